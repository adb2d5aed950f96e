#!/usr/bin/env bash
# The consumer-package check (issue 27): FrameFlow used the way another project adopts it.
# Clones this repository's HEAD into a scratch directory, tags it 0.1.0 there (only there),
# writes a tiny package that depends on it with `from: "0.1.0"` through a file:// URL, builds
# it with `swift build` and runs MediaPipe's edge-detection graph on generated frames through
# it. Fails unless every frame comes out. SwiftPM refuses a versioned dependency whose targets
# carry unsafeFlags, so this also proves Package.swift has none.
#
# Usage: scripts/ci/consumer-package.sh [FRAMES]     (SWIFT, KEEP_SCRATCH=1 to keep the dir)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
frames="${1:-30}"
swift="${SWIFT:-swift}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/frameflow-consumer.XXXXXX")"
if [[ "${KEEP_SCRATCH:-0}" != 1 ]]; then trap 'rm -rf "$scratch"' EXIT; fi
start=$(date +%s)

# (a) The committed HEAD, tagged in the scratch clone.
head="$(git -C "$repo" rev-parse HEAD)"
git clone -q --no-hardlinks "$repo" "$scratch/FrameFlow"
git -C "$scratch/FrameFlow" checkout -q --detach "$head"
git -C "$scratch/FrameFlow" -c user.name=ci -c user.email=ci@localhost tag -a 0.1.0 -m "0.1.0 (consumer check)"

# (b) The consumer package, with every Swift program of the README and the guides as a
# target of its own (scripts/ci/check-readme.py --snippets: complete programs that compile).
mkdir -p "$scratch/Consumer/Sources/Consumer"
cp "$repo/Graphs/edge_detection_mobile_gpu.pbtxt" "$scratch/Consumer/"
snippets="$(python3 "$repo/scripts/ci/check-readme.py" --snippets "$scratch/Consumer")"
snippet_targets=""
for name in $snippets; do
    snippet_targets+="        .executableTarget(name: \"$name\", dependencies: [
            .product(name: \"FrameFlow\", package: \"FrameFlow\"), .product(name: \"FrameFlowCalculators\", package: \"FrameFlow\"),
            .product(name: \"FrameFlowML\", package: \"FrameFlow\"), .product(name: \"FrameFlowMedia\", package: \"FrameFlow\"),
            .product(name: \"FrameFlowTasks\", package: \"FrameFlow\"),
        ]),
"
done
cat > "$scratch/Consumer/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "file://$scratch/FrameFlow", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "Consumer",
            dependencies: [
                .product(name: "FrameFlow", package: "FrameFlow"),
                .product(name: "FrameFlowCalculators", package: "FrameFlow"),
            ]),
$snippet_targets    ]
)
SWIFT
cat > "$scratch/Consumer/Sources/Consumer/main.swift" <<'SWIFT'
import FrameFlow
import FrameFlowCalculators
import Synchronization

// MediaPipe's edge-detection graph on generated RGBA frames (a gradient that moves).
let frames = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 30
let (width, height) = (64, 48)
let received = Atomic<Int>(0)
let wrongSize = Atomic<Int>(0)

let graph = try Graph(contentsOfFile: "edge_detection_mobile_gpu.pbtxt", registry: .standard)
try graph.observe("output_video") { packet in
    guard let image = try? packet.get(ImageFrame.self), image.width == width, image.height == height else {
        wrongSize.add(1, ordering: .relaxed)
        return
    }
    received.add(1, ordering: .relaxed)
}
try graph.start()
for i in 0..<frames {
    let buffer = ImageBuffer(byteCount: width * height * 4)
    let p = buffer.baseAddress.assumingMemoryBound(to: UInt8.self)
    for y in 0..<height {
        for x in 0..<width {
            let o = (y * width + x) * 4
            p[o] = UInt8(truncatingIfNeeded: (x + i) * 4)
            p[o + 1] = UInt8(truncatingIfNeeded: y * 5)
            p[o + 2] = x > width / 2 ? 200 : 30
            p[o + 3] = 255
        }
    }
    let frame = try ImageFrame(
        width: width, height: height, format: .rgba8,
        planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: width * 4, rows: height)])
    _ = try graph.send(frame, to: "input_video", at: Timestamp(Int64(i) * 33_333))
}
try graph.closeAllInputStreams()
try graph.waitUntilDone()
print("kernel level: \(KernelLevel.active)")
print("frames in: \(frames), frames out: \(received.load(ordering: .relaxed)), wrong size: \(wrongSize.load(ordering: .relaxed))")
SWIFT

# (c) Build and run.
cd "$scratch/Consumer"
if ! "$swift" build >build.log 2>&1; then
    tail -n 30 build.log >&2
    echo "consumer-package: FAILED: the consumer package does not build" >&2
    exit 1
fi
tail -n 2 build.log
built=$(date +%s)
echo "consumer-package: the README's and guides' Swift programs compile: $snippets"
out="$(.build/debug/Consumer "$frames")"
echo "$out"
echo "consumer-package: resolved $(grep -o '"version" : "[^"]*"' Package.resolved | head -1), build $((built - start)) s, total $(( $(date +%s) - start )) s"
if ! grep -qx "frames in: $frames, frames out: $frames, wrong size: 0" <<<"$out"; then
    echo "consumer-package: FAILED: expected all $frames frames out, 64 x 48" >&2
    exit 1
fi
echo "consumer-package: ok"
