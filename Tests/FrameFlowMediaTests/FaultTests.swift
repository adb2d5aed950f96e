import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import FrameFlowTestSupport
import Foundation
import Testing

/// Throws on the `failAt`-th image.
final class FailingImageCalculator: Calculator {
    struct Options: CalculatorOptions { var failAt = 17; init() {} }
    struct Failure: Error, CustomStringConvertible { var description: String { "sensor glitch" } }
    static let contract = CalculatorContract(inputs: [PortSpec("", ImageFrame.self)], outputs: [PortSpec("", ImageFrame.self)])
    let failAt: Int
    var seen = 0
    init(options: Options) { failAt = options.failAt }
    func process(_ cc: CalculatorContext) throws {
        seen += 1
        if seen == failAt { throw Failure() }
        cc.emit(packet: cc.input(at: 0), atPosition: 0)
    }
}

@Suite(.serialized) struct FaultTests {
    /// A calculator throws at a random frame: the error names it, the run stops, and the run
    /// leaves no output and no temporary file (a failed run replaces nothing).
    @Test func calculatorFailureLeavesNoOutput() throws {
        var o = FailingImageCalculator.Options()
        o.failAt = 5 + Int.random(in: 0..<30)
        let graph = try Graph {
            Input("input_video")
            Output("out")
            Node(FailingImageCalculator.self, name: "flaky", in: "input_video", out: "out", options: o)
        }
        var r = GraphRunner.Options()
        r.inputs = [(nil, try MediaFixtures.clip())]
        r.output = MediaFixtures.path("fault.mp4")
        let runner = GraphRunner(graph: graph, options: r)
        let e = #expect(throws: GraphError.self) { try runner.run() }
        #expect(e?.node == "flaky" && e?.description.contains("sensor glitch") == true)
        #expect(!FileManager.default.fileExists(atPath: r.output!), "a failed run leaves no output")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: MediaFixtures.directory).filter { $0.hasPrefix(".fault.mp4") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(runner.lastSummary?.framesOut == o.failAt - 1)
    }

    /// Whether this test binary (and so the `frameflow` binary built beside it) runs under
    /// ThreadSanitizer: its runtime dies with SIGBUS at start-up under a file-size limit
    /// (its own mappings hit RLIMIT_FSIZE), before any FrameFlow code runs.
    static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    /// The output stops being writable (a file-size limit): a clear error, a non-zero exit,
    /// and neither the output nor a temporary is left.
    @Test(.disabled(if: underThreadSanitizer, "ThreadSanitizer's runtime cannot start under ulimit -f"))
    func fullOutputIsAClearError() throws {
        let out = MediaFixtures.path("limited.mkv")
        try? FileManager.default.removeItem(atPath: out)
        let (p, text) = try MediaFixtures.runReadingStderr(
            "/bin/bash",
            [
                "-c",
                "ulimit -f 200; exec \(CommandLineTests.binary) run Graphs/edge_detection_mobile_gpu.pbtxt --input testsrc:320x240@30 --frames 300 --crf 0 --output \(out)",
            ])
        #expect(p.terminationStatus == 1)
        #expect(p.terminationReason == .exit, "an error exit, not a signal")
        #expect(text.contains(out) && text.contains("cannot write"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: out), "a failed output is not left under its name")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: MediaFixtures.directory).filter { $0.hasPrefix(".limited.mkv") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

/// A graph whose calculator blocks in a call (9 s a frame): the run fails after `--timeout`, like a read
/// that gets no data, and leaves no output.
@Suite struct StalledGraphTests {
    @Test func aBlockedCalculatorEndsTheRunAtTheTimeout() throws {
        let graph = try Graph(registry: .standard.adding([SleepCalculator.self])) {
            Input("input_video")
            Output("out")
            Node(SleepCalculator.self, name: "stuck", in: "input_video", out: "out", options: SleepCalculator.Options(microseconds: 9_000_000))
        }
        var o = GraphRunner.Options()
        o.inputs = [(nil, "testsrc:32x24@30")]
        o.frames = 40
        o.source.timeout = 1
        o.output = MediaFixtures.path("stalled.mp4")
        let t0 = Date()
        let e = #expect(throws: MediaError.self) { try GraphRunner(graph: graph, options: o).run() }
        #expect(e?.kind == .timedOut && e?.description.contains("no calculator finished a step for 1 s") == true, "\(String(describing: e))")
        #expect(Date().timeIntervalSince(t0) < 10)
        #expect(!FileManager.default.fileExists(atPath: o.output!))
    }
}
