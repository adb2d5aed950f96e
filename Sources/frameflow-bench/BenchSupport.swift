import FrameFlow
import Foundation

/// The repository this benchmark was built from: fixtures and reference scripts are read from it.
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
/// Workers for the "all threads" rows run from this (main) thread: one fewer than the cores,
/// the caller taking chunks too, as onnxruntime's intra_op_num_threads, LiteRT's num_threads
/// and OpenCV's setNumThreads count theirs.
let callerHelpers = WorkerPool(threads: max(1, ProcessInfo.processInfo.activeProcessorCount - 1), name: "frameflow.bench")

/// Median wall time of `body` in milliseconds.
func medianMilliseconds(iterations: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var times: [Double] = []
    for _ in 0..<iterations {
        let t = monotonicNanoseconds()
        try body()
        times.append(Double(monotonicNanoseconds() - t) / 1e6)
    }
    times.sort()
    return times[times.count / 2]
}

/// Runs a command; returns its standard output, or nil when it cannot run.
func runTool(_ executable: String, _ arguments: [String]) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [executable] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
}

func row(_ name: String, _ ours: Double, _ reference: Double?, unit: String, refName: String) {
    let r = reference.map { String(format: "%.2f", ours / $0) } ?? "n/a"
    let refText = reference.map { String(format: "%10.3f %@", $0, unit) } ?? "           n/a"
    let padded = name.padding(toLength: 52, withPad: " ", startingAt: 0)
    print(padded + String(format: "%10.3f %@", ours, unit) + "  " + refText + "  ratio " + r + "  (vs \(refName))")
}

/// One row over rounds: FrameFlow's median of the rounds and the reference's, each with its spread,
/// the ratio of the medians with the spread of the per-round ratios, and FrameFlow's GFLOP/s
/// (`gflop` floating-point operations a run) as a share of `peak`.
func spreadRow(_ name: String, _ ours: [Double], _ reference: [Double]?, refName: String, unit: String = "ms", gflop: Double? = nil, peak: Double = 0)
{
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    func spread(_ v: [Double]) -> String { String(format: "[%.2f–%.2f]", v.min() ?? 0, v.max() ?? 0) }
    let m = median(ours)
    var line = name.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: "%9.2f %@ %@", m, unit, spread(ours))
    if let reference, !reference.isEmpty {
        let ratios = zip(ours, reference).map { $0 / $1 }
        line += String(format: "  %9.2f %@ %@  ratio %.2f %@", median(reference), unit, spread(reference), m / median(reference), spread(ratios))
    } else {
        line += "  reference n/a"
    }
    if let gflop, m > 0, peak > 0 {
        let rate = gflop / m / 1e6
        line += String(format: "  %.1f GFLOP/s (%.0f %% of peak)", rate, 100 * rate / peak)
    }
    print(line + "  (vs \(refName))")
}

/// Up to `count` frames of `clip` scaled to `width` × `height` as rgb8 images, decoded by the
/// ffmpeg tool into `raw` (which the Python references read too); nil without ffmpeg or with
/// fewer than ten frames.
func clipFrames(_ clip: String, width w: Int, height h: Int, count: Int, into raw: URL) throws -> [ImageFrame]? {
    guard
        runTool(
            "ffmpeg",
            ["-v", "error", "-y", "-i", clip, "-vf", "scale=\(w):\(h)", "-frames:v", "\(count)", "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            != nil,
        let bytes = try? Data(contentsOf: raw), bytes.count >= w * h * 3 * 10
    else { return nil }
    let frameBytes = w * h * 3
    return try (0..<(bytes.count / frameBytes)).map { k in
        let buffer = ImageBuffer(byteCount: frameBytes)
        bytes.withUnsafeBytes { buffer.baseAddress.copyMemory(from: $0.baseAddress! + k * frameBytes, byteCount: frameBytes) }
        return try ImageFrame(width: w, height: h, format: .rgb8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: w * 3, rows: h)])
    }
}

/// The first line of every run: the cores, and how to read a ratio.
func printBenchHeader() {
    print(
        "frameflow-bench — \(ProcessInfo.processInfo.activeProcessorCount) cores; ratio = FrameFlow / reference (≤ 1.0: FrameFlow as fast or faster)")
}
