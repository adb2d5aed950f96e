import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import Foundation

/// `frameflow-bench mediapipe`: MediaPipe's solutions from their own compiled graphs, against MediaPipe's Python solutions.
struct MediaPipeBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "mediapipe", abstract: "MediaPipe's solutions from their compiled graphs against MediaPipe's Python solutions")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Flag(help: "print each node's milliseconds per call and per frame after each row (busiest first)") var profile = false
    @Option(help: "alternating rounds per row (at least 1; the median and spread are over them)") var rounds = 3
    @Option(
        name: "solutions", valueName: "A,B",
        help:
            "only these solutions, by the reference script's name, prefix match (face_detection, face_mesh, hands, pose, selfie_segmentation_0, selfie_segmentation_1, holistic, holistic_seg_refine)"
    )
    var solutionList: String?
    @Option(name: "threads", valueName: "N,M", help: "thread counts to run (default: 1 and every core)") var threadList: String?

    func validate() throws {
        guard rounds >= 1, rounds <= 100 else { throw ValidationError("--rounds: \(rounds) is not in 1…100") }
        let names = Self.solutions.map(\.python)
        for s in solutionList?.split(separator: ",") ?? [] where !names.contains(where: { $0.hasPrefix(s) }) {
            throw ValidationError("--solutions: no solution starts with \"\(s)\" (\(names.joined(separator: ", ")))")
        }
        for t in threadList?.split(separator: ",") ?? [] where Int(t).map({ !(1...1024).contains($0) }) ?? true {
            throw ValidationError("--threads: \"\(t)\" is not a thread count in 1…1024")
        }
    }

    /// A clip the rows run on: its file, and the size every frame is scaled to.
    struct Clip: Hashable {
        var name: String, path: String, width: Int, height: Int
        static let carphone = Clip(name: "carphone", path: ".build/fixtures/carphone_pristine.mp4", width: 640, height: 480)
        static let hands = Clip(name: "hand_clip", path: "Tests/Fixtures/mediapipe/hand_clip.mp4", width: 640, height: 480)
        static let walk = Clip(name: "walk_clip", path: "Tests/Fixtures/mediapipe/walk_clip.mp4", width: 640, height: 480)
        /// 256 × 256 signing, head to waist: scaled up square so that nothing is stretched.
        static let asl = Clip(name: "asl_face", path: "Tests/Fixtures/mediapipe/asl_face.mp4", width: 480, height: 480)
    }

    /// A solution: MediaPipe's compiled graph, its side packets as the Python solution sets
    /// them, the streams whose non-empty packets count as found (the Python result's fields of
    /// the same names), the reference script's name.
    struct Solution {
        var title: String, graph: String, sidePackets: [String: any Sendable], outputs: [String], python: String
        var clip = Clip.carphone
    }

    static let holisticParts = ["pose_landmarks", "face_landmarks", "left_hand_landmarks", "right_hand_landmarks"]
    static let solutions = [
        Solution(
            title: "face detection", graph: "face_detection/face_detection_short_range_cpu.binarypb", sidePackets: [:],
            outputs: ["detections"], python: "face_detection"),
        Solution(
            title: "Face Mesh (478 landmarks)", graph: "face_landmark/face_landmark_front_cpu.binarypb",
            sidePackets: ["num_faces": 1, "with_attention": true, "use_prev_landmarks": true],
            outputs: ["multi_face_landmarks"], python: "face_mesh"),
        Solution(
            title: "Hands (full model)", graph: "hand_landmark/hand_landmark_tracking_cpu.binarypb",
            sidePackets: ["num_hands": 2, "model_complexity": 1, "use_prev_landmarks": true],
            outputs: ["multi_hand_landmarks"], python: "hands", clip: .hands),
        Solution(
            title: "Pose (mask, smoothing)", graph: "pose_landmark/pose_landmark_cpu.binarypb",
            sidePackets: [
                "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": true, "smooth_segmentation": true,
                "use_prev_landmarks": true,
            ], outputs: ["pose_landmarks"], python: "pose", clip: .walk),
        Solution(
            title: "Selfie Segmentation (general model)", graph: "selfie_segmentation/selfie_segmentation_cpu.binarypb",
            sidePackets: ["model_selection": 0], outputs: ["segmentation_mask"], python: "selfie_segmentation_0"),
        Solution(
            title: "Selfie Segmentation (landscape model)", graph: "selfie_segmentation/selfie_segmentation_cpu.binarypb",
            sidePackets: ["model_selection": 1], outputs: ["segmentation_mask"], python: "selfie_segmentation_1"),
        // Python's `solutions.holistic.Holistic` in video mode with its defaults.
        Solution(
            title: "Holistic", graph: "holistic_landmark/holistic_landmark_cpu.binarypb",
            sidePackets: [
                "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": false, "smooth_segmentation": true,
                "refine_face_landmarks": false, "use_prev_landmarks": true,
            ], outputs: holisticParts, python: "holistic", clip: .asl),
        Solution(
            title: "Holistic (mask, refined face)", graph: "holistic_landmark/holistic_landmark_cpu.binarypb",
            sidePackets: [
                "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": true, "smooth_segmentation": true,
                "refine_face_landmarks": true, "use_prev_landmarks": true,
            ], outputs: holisticParts + ["segmentation_mask"], python: "holistic_seg_refine", clip: .asl),
    ]

    /// One timed pass of one side: milliseconds per frame, and per output the frames it was found on.
    struct Pass {
        var ms: Double
        var found: [Int]
        var statistics: GraphStatistics?
    }

    /// A row's rounds: FrameFlow's and MediaPipe's passes, alternating.
    struct Row {
        var ours: [Pass]
        var theirs: [Pass]

        static func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            guard !s.isEmpty else { return .nan }
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        /// Each round's FrameFlow / MediaPipe ratio.
        var ratios: [Double] { zip(ours, theirs).map { $0.ms / $1.ms } }
        var sameFound: Bool { Set((ours + theirs).map(\.found)).count <= 1 }
        /// Whether every output's count stays within 2 % of the frames (at least one frame) of
        /// the other side's: tracking may keep or lose a hand a frame earlier on one side, but
        /// a row that finds less than the reference cannot pass.
        func closeFound(frames: Int) -> Bool {
            let all = (ours + theirs).map(\.found)
            guard let width = all.first?.count, all.allSatisfy({ $0.count == width }) else { return false }
            let allowed = max(1, frames / 50)
            return (0..<width).allSatisfy { i in
                let v = all.map { $0[i] }
                return v.max()! - v.min()! <= allowed
            }
        }
        /// One side's counts, once when every round found the same.
        static func counts(_ passes: [Pass]) -> String {
            let each = passes.map { $0.found.map(String.init).joined(separator: "/") }
            return Set(each).count == 1 ? each[0] : each.joined(separator: ", ")
        }
        func foundText(frames: Int) -> String {
            if sameFound { return "found \(Self.counts(ours)) both" }
            let each = "FrameFlow \(Self.counts(ours)), MediaPipe \(Self.counts(theirs))"
            return closeFound(frames: frames) ? "found " + each + " (within 2 % of the frames)" : "FOUND DIFFERS: " + each
        }

        func line(_ label: String, frames: Int) -> String {
            let padded = label.padding(toLength: 58, withPad: " ", startingAt: 0)
            let oursMs = Self.median(ours.map(\.ms))
            guard !theirs.isEmpty else {
                return padded + String(format: "%8.2f ms  (reference n/a)  found %@ of %d frames", oursMs, Self.counts(ours), frames)
            }
            let r = ratios
            return padded
                + String(
                    format: "%8.2f ms  %8.2f ms  ratio %.2f (%.2f–%.2f, %d round%@)  ", oursMs, Self.median(theirs.map(\.ms)), Self.median(r),
                    r.min() ?? 0, r.max() ?? 0, r.count, r.count == 1 ? "" : "s") + foundText(frames: frames) + " (\(frames) frames)"
        }

        /// The summary table's cell: median ratio (spread), FrameFlow / MediaPipe ms, what each found.
        func cell(frames: Int) -> String {
            let oursMs = Self.median(ours.map(\.ms))
            guard !theirs.isEmpty else { return String(format: "n/a, %.2f ms", oursMs) }
            let r = ratios
            return String(
                format: "%.2f (%.2f–%.2f), %.2f / %.2f ms, found %@", Self.median(r), r.min() ?? 0, r.max() ?? 0, oursMs,
                Self.median(theirs.map(\.ms)),
                sameFound ? Self.counts(ours) : Self.counts(ours) + " / " + Self.counts(theirs) + (closeFound(frames: frames) ? "" : " DIFFERS"))
        }
    }

    @MainActor func measure() throws {
        let root = repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path
        let python = repoRoot.appendingPathComponent(".build/venv-mediapipe/bin/python").path
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threadCounts = threadList.map { $0.split(separator: ",").compactMap { Int($0) } } ?? (cores > 1 ? [1, cores] : [1])
        let rounds = quick ? 1 : self.rounds
        let frameCount = quick ? 30 : 120
        let only = solutionList?.split(separator: ",") ?? []
        let solutions = Self.solutions.filter { s in only.isEmpty || only.contains { s.python.hasPrefix($0) } }
        print(
            "\n(h) MediaPipe's solutions from their compiled graphs (mediapipe==0.10.21's .binarypb and models) against its Python solutions on the same RGB frames: carphone_pristine.mp4 (faces, selfie segmentation), Tests/Fixtures/mediapipe/hand_clip.mp4 (hands), walk_clip.mp4 (pose) scaled to 640×480, asl_face.mp4 (holistic) to 480×480, the first \(frameCount) frames; ms per frame, median of \(rounds) alternating round\(rounds == 1 ? "" : "s") (ratio: median of the rounds' ratios, spread min–max); found: frames with each output (holistic: pose/face/left hand/right hand[/mask]); ratio ≤ 1.0: FrameFlow as fast or faster"
        )
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-mediapipe-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Each clip decoded once, into a raw file the Python side reads too.
        var clips: [Clip: (frames: [ImageFrame], raw: URL)?] = [:]
        func decode(_ clip: Clip) throws -> (frames: [ImageFrame], raw: URL)? {
            if let known = clips[clip] { return known }
            let raw = scratch.appendingPathComponent(clip.name + ".rgb")
            let decoded = try clipFrames(
                repoRoot.appendingPathComponent(clip.path).path, width: clip.width, height: clip.height, count: frameCount, into: raw)
            clips[clip] = decoded.map { ($0, raw) }
            return clips[clip] ?? nil
        }
        if let first = solutions.first, let sample = try decode(first.clip)?.frames.first {
            // The pre-processing on its own: one frame letterboxed into 128×128 floats.
            var toTensor = ImageToTensorCalculator.Options()
            (toTensor.outputTensorWidth, toTensor.outputTensorHeight, toTensor.keepAspectRatio) = (128, 128, true)
            toTensor.outputTensorFloatRange = .init(min: -1, max: 1)
            toTensor.borderMode = .zero
            let preprocess = try medianMilliseconds(iterations: quick ? 20 : 200) {
                _ = try ImageToTensorCalculator.convert(sample, options: toTensor)
            }
            print(String(format: "  ImageToTensorCalculator alone, %d×%d → 128×128: %.3f ms", sample.width, sample.height, preprocess))
        }
        let hasReference = FileManager.default.isExecutableFile(atPath: python)
        if !hasReference {
            print(
                "  MediaPipe's Python solutions unavailable (python3 -m venv .build/venv-mediapipe && .build/venv-mediapipe/bin/pip install mediapipe==0.10.21)"
            )
        }
        let environment = GraphEnvironment(resourceRoots: [root])
        let registry = try CalculatorRegistry.withML()
        var summary: [(title: String, frames: Int, rows: [Int: Row])] = []
        for solution in solutions {
            let graphPath = root + "/mediapipe/modules/" + solution.graph
            guard FileManager.default.fileExists(atPath: graphPath) else {
                print("  \(solution.graph) missing (scripts/setup.sh bench)")
                continue
            }
            guard let decoded = try decode(solution.clip) else {
                print("  \(solution.title): \(solution.clip.path) or ffmpeg missing (scripts/setup.sh bench)")
                continue
            }
            let (frames, raw) = decoded
            // Frames go in as fast as the graph takes them (it pipelines its stages); MediaPipe's
            // Python solution takes one frame per call. A new graph each pass, so each pass
            // starts with a detection, as the reference's new solution does.
            func ourPass(threads: Int) throws -> Pass {
                var config = try GraphConfig(contentsOfFile: graphPath, registry: registry)
                config.numThreads = threads
                let graph = try Graph(config, registry: registry, environment: environment)
                let found = solution.outputs.map { _ in Locked(0) }
                for (stream, count) in zip(solution.outputs, found) {
                    try graph.observe(stream) { p in
                        let n =
                            (try? p.get([Detection].self).count) ?? (try? p.get([NormalizedLandmarkList].self).count)
                            ?? (try? p.get(NormalizedLandmarkList.self)).map { _ in 1 } ?? (try? p.get(ImageFrame.self)).map { _ in 1 } ?? 0
                        if n > 0 { count.withLock { $0 += 1 } }
                    }
                }
                try graph.start(sidePackets: solution.sidePackets)
                let t = monotonicNanoseconds()
                for (k, f) in frames.enumerated() { try graph.send(f, to: "image", at: Timestamp(Int64(k) * 33_333)) }
                try graph.closeAllInputStreams()
                try graph.waitUntilDone()
                let ms = Double(monotonicNanoseconds() - t) / 1e6 / Double(frames.count)
                return Pass(ms: ms, found: found.map { $0.withLock { $0 } }, statistics: graph.statistics)
            }
            func theirPass(threads: Int) -> Pass? {
                guard hasReference else { return nil }
                let script = repoRoot.appendingPathComponent("scripts/bench/reference_mediapipe.py").path
                let args = [script, solution.python, raw.path, "\(solution.clip.width)", "\(solution.clip.height)"]
                // One thread: the whole process on core 0 (MediaPipe's graph and XNNPACK start
                // threads of their own).
                let out = threads == 1 ? runTool("taskset", ["-c", "0", python] + args) : runTool(python, args)
                guard let line = out?.split(separator: "\n").last,
                    let j = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let ms = j["ms"] as? Double,
                    let found = j["found"] as? [Int]
                else { return nil }
                return Pass(ms: ms, found: found)
            }
            var perThreads: [Int: Row] = [:]
            for threads in threadCounts {
                _ = try ourPass(threads: threads)  // warm-up: model load, pools
                var row = Row(ours: [], theirs: [])
                for round in 0..<rounds {
                    // Alternate which side goes first, so that a slow stretch of this shared
                    // machine does not fall on one side only.
                    if round % 2 == 0 {
                        row.ours.append(try ourPass(threads: threads))
                        if let p = theirPass(threads: threads) { row.theirs.append(p) }
                    } else {
                        if let p = theirPass(threads: threads) { row.theirs.append(p) }
                        row.ours.append(try ourPass(threads: threads))
                    }
                }
                perThreads[threads] = row
                print(row.line("MediaPipe \(solution.title), \(threads) thread\(threads == 1 ? "" : "s")", frames: frames.count))
                if profile, let s = row.ours.last?.statistics {
                    // Busiest first: ms per call, ms per frame fed (busy time over all calls); the
                    // nodes under 1 % of the total in one line.
                    let nodes = s.nodes.filter { !$0.isOutput && $0.calls > 0 }.sorted { $0.busySeconds > $1.busySeconds }
                    let total = nodes.reduce(0) { $0 + $1.busySeconds }
                    for n in nodes where n.busySeconds >= 0.01 * total {
                        print(
                            String(
                                format: "    %@: %.3f ms per call, %.3f ms per frame (%d calls)", n.name,
                                n.busySeconds * 1000 / Double(n.calls), n.busySeconds * 1000 / Double(frames.count), n.calls))
                    }
                    let rest = nodes.filter { $0.busySeconds < 0.01 * total }
                    print(
                        String(
                            format: "    %d other nodes: %.3f ms per frame; all nodes %.3f ms per frame", rest.count,
                            rest.reduce(0) { $0 + $1.busySeconds } * 1000 / Double(frames.count), total * 1000 / Double(frames.count)))
                }
            }
            summary.append((solution.title, frames.count, perThreads))
        }
        guard !summary.isEmpty else { return }
        print(
            "\n  | solution | "
                + threadCounts.map { "\($0) thread\($0 == 1 ? "" : "s"): ratio (spread), FF / MP ms, found FF / MP" }.joined(separator: " | ")
                + " |")
        print("  |---|" + threadCounts.map { _ in "---|" }.joined())
        for (title, frames, rows) in summary {
            print("  | \(title) | " + threadCounts.map { rows[$0]?.cell(frames: frames) ?? "–" }.joined(separator: " | ") + " |")
        }
    }
}
