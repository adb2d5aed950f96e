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
        /// Wall seconds of one run, nil when the tool fails.
        func wall(_ tool: String, _ a: [String]) -> Double? {
            let t = monotonicNanoseconds()
            guard runTool(tool, a) != nil else { return nil }
            return Double(monotonicNanoseconds() - t) / 1e9
        }
        let rounds = quick ? 1 : 3
        print("\n(c) 1920×1080 H.264 clip, \(seconds) s at 30 fps: whole runs, wall time, medians of \(rounds) alternating rounds [spread]")
        guard FileManager.default.isExecutableFile(atPath: frameflow) else {
            print("  (build frameflow first: swift build -c release --product frameflow)")
            return
        }
        // (FrameFlow's arguments, ffmpeg's, the row's name, the reference's) per row, each row's
        // runs alternating FrameFlow and ffmpeg round by round.
        let rows: [([String], [String], String, String)] = [
            (
                ["run", graph, "--input", clip, "--output", "null"],
                ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel", "-f", "null", "-"],
                "frameflow run edge graph → null", "ffmpeg -vf format=gray,sobel -f null"
            ),
            (
                ["run", graph, "--input", clip, "--output", dir + "/edges.mp4"],
                ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel,format=yuv420p", "-c:v", "libx264", dir + "/edges_ffmpeg.mp4"],
                "frameflow run edge graph → H.264 file", "ffmpeg … sobel -c:v libx264"
            ),
        ]
        for (ours, theirs, name, refName) in rows {
            var a: [Double] = [], b: [Double] = []
            for _ in 0..<rounds {
                guard let t = wall(frameflow, ours) else { break }
                a.append(t)
                if let r = wall("ffmpeg", theirs) { b.append(r) }
            }
            if a.isEmpty {
                print("  \(name): frameflow run failed")
            } else {
                spreadRow(name, a, b.count == a.count ? b : nil, refName: refName, unit: "s")
            }
        }
    }
}
