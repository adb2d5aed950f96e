import FrameFlowArguments
import FrameFlow
import Foundation

/// `frameflow-bench media`: whole runs on a 1080p H.264 clip: frameflow run against the ffmpeg tool.
struct MediaBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "media", abstract: "frameflow run on a 1080p H.264 clip against the ffmpeg tool")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false

    @MainActor func measure() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-bench-media").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let clip = dir + "/clip1080_\(quick ? 3 : 10)s.mp4"
        let seconds = quick ? 3 : 10
        if !FileManager.default.fileExists(atPath: clip) {
            _ = runTool(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds)", "-c:v", "libx264", "-pix_fmt",
                    "yuv420p", clip,
                ])
        }
        let frameflow = repoRoot.appendingPathComponent(".build/release/frameflow").path
        let graph = repoRoot.appendingPathComponent("Graphs/edge_detection_mobile_gpu.pbtxt").path
        func wall(_ tool: String, _ a: [String]) -> Double? {
            var best = Double.infinity
            for _ in 0..<(quick ? 1 : 3) {
                let t = monotonicNanoseconds()
                guard runTool(tool, a) != nil else { return nil }
                best = min(best, Double(monotonicNanoseconds() - t) / 1e9)
            }
            return best
        }
        print("\n(c) 1920×1080 H.264 clip, \(seconds) s at 30 fps: whole runs, wall time (best of \(quick ? 1 : 3))")
        if FileManager.default.isExecutableFile(atPath: frameflow) {
            let ours = wall(frameflow, ["run", graph, "--input", clip, "--output", "null"])
            let ref = wall("ffmpeg", ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel", "-f", "null", "-"])
            if let ours { row("frameflow run edge graph → null", ours, ref, unit: "s", refName: "ffmpeg -vf format=gray,sobel -f null") }
            let ours264 = wall(frameflow, ["run", graph, "--input", clip, "--output", dir + "/edges.mp4"])
            let ref264 = wall(
                "ffmpeg", ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel,format=yuv420p", "-c:v", "libx264", dir + "/edges_ffmpeg.mp4"])
            if let ours264 { row("frameflow run edge graph → H.264 file", ours264, ref264, unit: "s", refName: "ffmpeg … sobel -c:v libx264") }
        } else {
            print("  (build frameflow first: swift build -c release --product frameflow)")
        }
    }
}
