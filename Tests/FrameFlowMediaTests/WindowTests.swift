import FrameFlow
import FrameFlowCalculators
import FrameFlowDisplay
import FrameFlowMedia
import FrameFlowTestSupport
import Foundation
import Testing

/// The preview window under Xvfb (Debian's xvfb, xdotool, imagemagick; installed by
/// scripts/setup.sh test).
@Suite(.serialized) struct WindowTests {
    /// A 20 s clip of one still frame, lossless, so every frame on screen is the same.
    static func staticClip() throws -> (path: String, edges: ImageFrame) {
        let still = try MediaFixtures.make("still.png", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=1:duration=1", "-frames:v", "1"])
        let clip = try MediaFixtures.make("static.mkv", ["-loop", "1", "-i", still, "-t", "20", "-r", "30", "-c:v", "ffv1", "-pix_fmt", "bgr0"])
        let frame = try #require(try MediaSource(clip).read()).image
        return (clip, try SobelEdgesCalculator.edges(try LuminanceCalculator.luminance(frame)))
    }

    func runWindow(scale: String, size: String) throws -> (status: String, shot: ImageFrame, dir: String) {
        let (clip, _) = try Self.staticClip()
        let dir = MediaFixtures.path("window-\(scale)")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try runCommand(["bash", RepositoryFiles.root.appendingPathComponent("scripts/window_test.sh").path, clip, scale, size, dir])
        let status = (try? String(contentsOfFile: dir + "/status", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "none"
        let shot = try #require(try MediaSource(dir + "/shot.png").read()).image
        return (status, shot, dir)
    }

    @Test func fitShowsTheWholeFrameLetterboxed() throws {
        let (_, edges) = try Self.staticClip()
        let r = try runWindow(scale: "fit", size: "320x480")
        #expect(r.status == "0", "q must end the run cleanly: \((try? String(contentsOfFile: r.dir + "/run.out", encoding: .utf8)) ?? "")")
        #expect(r.shot.width == 320 && r.shot.height == 480)
        var worst = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let a = r.shot[x, y + 120], b = edges[x, y]
                for c in 0..<3 { worst = max(worst, abs(Int(a[c]) - Int(b[c]))) }
            }
        }
        #expect(worst == 0, "the window shows the frame's pixels")
        #expect(r.shot[5, 5].prefix(3) == [0, 0, 0] && r.shot[5, 475].prefix(3) == [0, 0, 0], "black bars")
        let p = try MediaFixtures.probe(r.dir + "/window.mp4")
        #expect(p.frames > 10, "the file written beside the window is playable: \(p.frames) frames")
    }

    @Test func fillCropsTheMiddle() throws {
        let (_, edges) = try Self.staticClip()
        let r = try runWindow(scale: "fill", size: "320x120")
        #expect(r.status == "0")
        #expect(r.shot.width == 320 && r.shot.height == 120)
        var worst = 0
        for y in 0..<120 {
            for x in 0..<320 {
                let a = r.shot[x, y], b = edges[x, y + 60]
                for c in 0..<3 { worst = max(worst, abs(Int(a[c]) - Int(b[c]))) }
            }
        }
        #expect(worst == 0)
    }

    @Test func noDisplayIsAClearErrorBeforeTheGraphStarts() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        p.arguments = ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc", "--output", "window"]
        p.currentDirectoryURL = RepositoryFiles.root
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DISPLAY")
        env.removeValue(forKey: "WAYLAND_DISPLAY")
        p.environment = env
        let err = Pipe(), out = Pipe()
        p.standardError = err
        p.standardOutput = out
        try p.run()
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus != 0)
        #expect(e.contains("no display") && e.contains("--output FILE"), "\(e)")
        #expect(!o.contains("frames in"), "nothing ran")
    }

    @Test func layoutMath() {
        func flat(_ l: (src: (Int, Int, Int, Int), dst: (Int, Int, Int, Int))) -> [Int] {
            [l.src.0, l.src.1, l.src.2, l.src.3, l.dst.0, l.dst.1, l.dst.2, l.dst.3]
        }
        let fit: [Int] = flat(PreviewWindow.layout(image: (320, 240), window: (320, 480), mode: .fit))
        let fill: [Int] = flat(PreviewWindow.layout(image: (320, 240), window: (320, 120), mode: .fill))
        let stretch: [Int] = flat(PreviewWindow.layout(image: (320, 240), window: (100, 100), mode: .stretch))
        #expect(fit == [0, 0, 320, 240, 0, 120, 320, 240])
        #expect(fill == [0, 60, 320, 120, 0, 0, 320, 120])
        #expect(stretch == [0, 0, 320, 240, 0, 0, 100, 100])
        // A minimised (0×0) window: nothing to show, no trap on 0 / 0.
        #expect(flat(PreviewWindow.layout(image: (320, 240), window: (0, 0), mode: .fill)) == [160, 120, 0, 0, 0, 0, 0, 0])
        #expect(flat(PreviewWindow.layout(image: (320, 240), window: (0, 0), mode: .fit)) == [0, 0, 320, 240, 0, 0, 0, 0])
    }
}
