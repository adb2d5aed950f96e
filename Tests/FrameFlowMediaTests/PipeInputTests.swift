import Foundation
import Testing

/// Inputs that are FIFOs (`PipeInput`), and images too wide for FrameFlow: every wait ends at
/// `--timeout` or the first SIGTERM, with a message naming the input and nothing left behind.
@Suite struct PipeInputTests {
    static func fifo(_ name: String) throws -> String {
        let path = MediaFixtures.path(name)
        unlink(path)
        guard mkfifo(path, 0o600) == 0 else { throw MediaFixtures.FixtureError(description: "mkfifo \(path) failed") }
        return path
    }

    /// A FIFO no process writes to: the open gives up after `--timeout`, and the output's
    /// temporary is gone.
    @Test func aFIFOWithoutAWriterTimesOut() throws {
        let input = try Self.fifo("silent.fifo")
        let out = MediaFixtures.path("from-silent-fifo.mp4")
        let t0 = Date()
        let r = try CommandLineTests().run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", input, "--timeout", "1", "--output", out])
        #expect(r.status == 1 && r.err.contains(input) && r.err.contains("no answer for 1 s"), "\(r.status) \(r.err)")
        #expect(Date().timeIntervalSince(t0) < 6)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: MediaFixtures.directory).filter { $0.hasPrefix(".from-silent-fifo") }
        #expect(leftovers.isEmpty && !FileManager.default.fileExists(atPath: out), "\(leftovers)")
    }

    /// The first SIGTERM ends a run waiting on a FIFO, as an interrupted run (status 3).
    @Test func theFirstSIGTERMEndsAWaitOnAFIFO() throws {
        let input = try Self.fifo("waiting.fifo")
        let t0 = Date()
        let r = try CommandLineTests().run(
            ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", input, "--timeout", "60", "--output", "null"], interruptAfter: 1,
            signal: SIGTERM)
        #expect(r.status == 3, "\(r.status) \(r.err)")
        #expect(Date().timeIntervalSince(t0) < 5)
    }

    /// A writer that sends a clip through the FIFO: every frame is read.
    @Test func aClipThroughAFIFOIsReadWhole() throws {
        let input = try Self.fifo("clip.fifo")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = [
            "ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "2", "-f", "matroska", "-y", input,
        ]
        try writer.run()
        let r = try CommandLineTests().run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", input, "--timeout", "5", "--output", "null"])
        writer.waitUntilExit()
        #expect(r.status == 0 && r.out.contains("frames in: 20, frames out: 20"), "\(r.status) \(r.out) \(r.err)")
    }

    /// PNGs one pixel high or wide and wider or higher than an image may be (32768): a clear
    /// error naming the file at once, not a run that never ends; 32768 × 1 itself runs.
    @Test func linesOfPixelsOverTheSideLimitAreRefused() throws {
        for (w, h) in [(40000, 1), (1, 65535), (32768, 1)] {
            let png = "Tests/Fixtures/media/line-\(w)x\(h).png"  // scripts/fixtures/make_hostile_media.py
            let t0 = Date()
            let r = try CommandLineTests().run([
                "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", png, "--timeout", "2", "--output", "null",
            ])
            #expect(Date().timeIntervalSince(t0) < 10, "\(w)×\(h)")
            if w <= 32768 && h <= 32768 {
                #expect(r.status == 0, "\(w)×\(h): \(r.err)")
            } else {
                #expect(r.status == 1 && r.err.contains(png) && r.err.contains("at most 32768 pixels on a side"), "\(w)×\(h): \(r.status) \(r.err)")
            }
        }
    }
}
