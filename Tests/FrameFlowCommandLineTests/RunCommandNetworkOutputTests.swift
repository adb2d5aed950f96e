import FrameFlowArguments
import FrameFlowCommandLine
import FrameFlowTestSupport
import Foundation
import Testing

/// `frameflow run --output URL|.m3u8` and `--output-option`, parsed and run in process
/// (the receivers themselves are tested in FrameFlowMediaTests' NetworkOutputTests).
@Suite(.serialized) struct RunCommandNetworkOutputTests {
    static let graph = RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt")

    /// The error `frameflow run` with `arguments` (after the graph) throws, or nil.
    @MainActor static func error(_ arguments: [String]) throws -> (any Error)? {
        let run = try #require(try FrameFlowCommand.parseAsRoot(["run", graph] + arguments) as? RunCommand)
        do {
            try run.run()
        } catch {
            return error
        }
        return nil
    }

    @MainActor @Test func aRefusedConnectionIsAnErrorNamingTheURL() throws {
        let url = "rtmp://127.0.0.1:\(try LoopbackPort.free())/live/test"  // no one listens
        let started = Date()
        let error = try Self.error(["--input", "testsrc:64x48@10", "--frames", "3", "--output", url])
        #expect(Date().timeIntervalSince(started) < 5)
        #expect("\(String(describing: error))".contains("\(url): cannot connect: Connection refused"), "\(String(describing: error))")
        #expect(FrameFlowCommand.runToStatus(["run", Self.graph, "--input", "testsrc:64x48@10", "--frames", "3", "--output", url]) == 1)
    }

    @MainActor @Test func anUnknownSchemeListsTheOutputs() throws {
        let error = try Self.error(["--input", "testsrc:64x48@10", "--frames", "3", "--output", "ftp://example.com/x.mp4"])
        let text = String(describing: error)
        #expect(text.contains("ftp://example.com/x.mp4: FrameFlow does not write to ftp:// URLs; outputs are udp://HOST:PORT"), "\(text)")
        #expect(FrameFlowCommand.runToStatus(["run", Self.graph, "--input", "testsrc:64x48@10", "--output", "ftp://example.com/x.mp4"]) == 1)
    }

    @MainActor @Test func outputOptionsReachTheMuxer() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-hls-\(getpid())-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let playlist = (dir as NSString).appendingPathComponent("cam.m3u8")
        // 60 frames at 30 fps: 2 s, so 1 s segments make two (the default, 2 s, makes one).
        let status = FrameFlowCommand.runToStatus([
            "run", Self.graph, "--input", "testsrc:64x48@30", "--frames", "60", "--output", playlist, "--output-option", "hls_time=1",
        ])
        #expect(status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["cam.m3u8", "cam0.ts", "cam1.ts"])
        // KEY=VALUE is required; a key no muxer takes is an error naming it.
        #expect(
            FrameFlowCommand.runToStatus(["run", Self.graph, "--input", "testsrc:64x48@30", "--output", playlist, "--output-option", "hls_time"]) == 2
        )
        let error = try Self.error(["--input", "testsrc:64x48@30", "--frames", "3", "--output", playlist, "--output-option", "hls_tme=1"])
        #expect(String(describing: error).contains("--output-option hls_tme"), "\(String(describing: error))")
    }
}
