import FrameFlow
import FrameFlowCalculators
@testable import FrameFlowMedia
import FrameFlowTestSupport
import FrameFlowTesting
import Foundation
import Testing

func edgeGraph() throws -> Graph {
    try Graph(contentsOfFile: RepositoryFiles.root.appendingPathComponent("Graphs/edge_detection_mobile_gpu.pbtxt").path, registry: .standard)
}

@Suite struct GraphRunnerTests {
    @Test(arguments: ["mp4", "mov", "mkv", "webm", "avi"])
    func encodesEveryContainer(ext: String) throws {
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = MediaFixtures.path("edges.\(ext)")
        o.encode.frameRate = 25
        let summary = try GraphRunner(graph: try edgeGraph(), options: o).run()
        #expect(summary.framesIn == 50 && summary.framesOut == 50 && summary.dropped == 0)
        let p = try MediaFixtures.probe(o.output!)
        #expect(p.frames == 50, "\(ext): ffprobe counted \(p.frames) frames")
        #expect(abs(p.duration - 2.0) < 0.15, "\(ext): duration \(p.duration)")
        #expect(p.width == 160 && p.height == 120)
    }

    @Test func edgesInTheFileMatchTheCalculators() throws {
        // Lossless check through PNG: frame 0 of the output equals Luminance→Sobel of the
        // decoded input frame.
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = MediaFixtures.path("edges_%03d.png")
        o.frames = 3
        _ = try GraphRunner(graph: try edgeGraph(), options: o).run()
        let written = try #require(try MediaSource(MediaFixtures.path("edges_001.png")).read()).image
        let input = try #require(try MediaSource(try MediaFixtures.clip()).read()).image
        let expected = try SobelEdgesCalculator.edges(try LuminanceCalculator.luminance(input))
        #expect(TestImages.maxDifference(written, expected) == 0)
        #expect(!FileManager.default.fileExists(atPath: MediaFixtures.path("edges_004.png")), "--frames 3 writes 3 frames")
    }

    @Test func jsonLinesForNonImageStreams() throws {
        let graph = try Graph(registry: .standard) {
            Input("input_video")
            Output("sizes")
            Node(ImageSizeCalculator.self, in: "input_video", out: "sizes")
        }
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.frames = 3
        o.outputStreams = [("sizes", MediaFixtures.path("sizes.jsonl"))]
        _ = try GraphRunner(graph: graph, options: o).run()
        let lines = try String(contentsOfFile: MediaFixtures.path("sizes.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(
            lines == [
                #"{"stream":"sizes","timestamp_us":0,"height":120,"width":160}"#,
                #"{"stream":"sizes","timestamp_us":40000,"height":120,"width":160}"#,
                #"{"stream":"sizes","timestamp_us":80000,"height":120,"width":160}"#,
            ])
    }

    @Test func unwritableOutputFailsBeforeDecoding() throws {
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = "/nonexistent-dir/out.mp4"
        let runner = GraphRunner(graph: try edgeGraph(), options: o)
        let e = #expect(throws: MediaError.self) { try runner.run() }
        #expect(e?.kind == .cannotWrite)
        #expect(e?.description.hasPrefix("/nonexistent-dir/out.mp4: cannot write") == true)
        #expect(runner.lastSummary == nil, "nothing was decoded")
    }

    @Test func anInputThatDoesNotOpenLeavesNoTemporaryOutput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-runner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var o = GraphRunner.Options()
        o.inputs = [(nil, dir.appendingPathComponent("missing.mp4").path)]
        o.sinks = [("output_video", try makeSink(dir.appendingPathComponent("out.mp4").path, stream: "output_video"))]
        o.outputStreams = [("output_video", dir.appendingPathComponent("out.jsonl").path)]
        let runner = GraphRunner(graph: try edgeGraph(), options: o)  // kept alive: no deinit to clean up
        #expect(throws: MediaError.self) { try runner.run() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        withExtendedLifetime(runner) {}
    }

    @Test func inputNameMustMatchTheGraph() throws {
        var o = GraphRunner.Options()
        o.inputs = [("camera", try MediaFixtures.clip())]
        let e = #expect(throws: MediaError.self) { try GraphRunner(graph: try edgeGraph(), options: o).run() }
        #expect(e?.description.contains("no input stream 'camera' (its inputs: input_video)") == true)
    }

    @Test func anOutputThatIsAnInputIsAnErrorAndNothingIsTouched() throws {
        let clip = MediaFixtures.path("own.mp4")
        try? FileManager.default.removeItem(atPath: clip)
        try FileManager.default.copyItem(atPath: try MediaFixtures.clip(), toPath: clip)
        let before = try Data(contentsOf: URL(fileURLWithPath: clip))
        let link = MediaFixtures.path("own-link.mp4")
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: clip)
        let dir = (clip as NSString).deletingLastPathComponent
        for output in [clip, link, dir + "/./own.mp4"] {
            var o = GraphRunner.Options()
            o.inputs = [(nil, clip)]
            o.output = output
            let runner = GraphRunner(graph: try edgeGraph(), options: o)
            let e = #expect(throws: MediaError.self) { try runner.run() }
            #expect(e?.description.contains("is also an input") == true, "\(String(describing: e))")
            #expect(runner.lastSummary == nil)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: clip)) == before, "the input is untouched")
        // An image read and written in place.
        let png = MediaFixtures.path("own.png")
        try ImageFileWriter.write(try TestImages.random(width: 32, height: 24, format: .rgba8), to: png)
        let pngBefore = try Data(contentsOf: URL(fileURLWithPath: png))
        var o = GraphRunner.Options()
        o.inputs = [(nil, png)]
        o.output = png
        #expect(throws: MediaError.self) { try GraphRunner(graph: try edgeGraph(), options: o).run() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)) == pngBefore)
    }

    @Test func aFailedRunLeavesAnExistingOutputAsItWas() throws {
        let precious = Data("an earlier result the user wants to keep\n".utf8)
        let video = MediaFixtures.path("keep.mp4"), lines = MediaFixtures.path("keep.jsonl")
        let notMedia = MediaFixtures.path("not-media.mp4")
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: notMedia))
        for input in ["/nonexistent/typo.mp4", notMedia] {
            try precious.write(to: URL(fileURLWithPath: video))
            try precious.write(to: URL(fileURLWithPath: lines))
            var o = GraphRunner.Options()
            o.inputs = [(nil, input)]
            o.output = video
            o.outputStreams = [("luma_video", lines)]
            #expect(throws: MediaError.self) { try GraphRunner(graph: try edgeGraph(), options: o).run() }
            #expect(try Data(contentsOf: URL(fileURLWithPath: video)) == precious, "\(input): the existing video is kept")
            #expect(try Data(contentsOf: URL(fileURLWithPath: lines)) == precious, "\(input): the existing JSON Lines are kept")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: MediaFixtures.directory).filter { $0.hasPrefix(".keep.") }
        #expect(leftovers.isEmpty, "no temporary file is left behind: \(leftovers)")
        // A finished run replaces it.
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = video
        o.frames = 5
        _ = try GraphRunner(graph: try edgeGraph(), options: o).run()
        #expect(try MediaFixtures.probe(video).frames == 5)
    }

    @Test func sidePacketsTheGraphDoesNotDeclareAreErrors() throws {
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = "null"
        o.sidePackets = ["threshold": "0.5"]
        let e = #expect(throws: MediaError.self) { try GraphRunner(graph: try edgeGraph(), options: o).run() }
        #expect(e?.description.contains("no input side packet 'threshold' (it has none)") == true, "\(String(describing: e))")
    }

    @Test func sidePacketTextBecomesTheDeclaredType() throws {
        #expect(try GraphRunner.sidePacketValue("3", name: "n", types: [.of(Int.self)]) as? Int == 3)
        #expect(try GraphRunner.sidePacketValue("1", name: "b", types: [.any, .of(Bool.self)]) as? Bool == true)
        #expect(try GraphRunner.sidePacketValue("0.5", name: "f", types: [.of(Float.self)]) as? Float == 0.5)
        #expect(try GraphRunner.sidePacketValue("007", name: "s", types: [.of(String.self)]) as? String == "007", "a string port keeps the text")
        #expect(try GraphRunner.sidePacketValue("007", name: "u", types: []) as? Int == 7, "untyped: the first parse that fits")
        let e = #expect(throws: MediaError.self) { try GraphRunner.sidePacketValue("abc", name: "n", types: [.of(Int.self)]) }
        #expect(e?.description == "side packet n=abc: the graph reads 'n' as an integer (Int), and 'abc' is not one")
    }

    @Test func truncatedInputStillFinalizesTheOutput() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try MediaFixtures.clip()))
        let cut = MediaFixtures.path("cut_for_run.mp4")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        var o = GraphRunner.Options()
        o.inputs = [(nil, cut)]
        o.output = MediaFixtures.path("from_cut.mp4")
        let summary = try GraphRunner(graph: try edgeGraph(), options: o).run()
        #expect(summary.framesIn > 5 && summary.framesIn < 50)
        #expect(summary.warnings.contains { $0.contains("ended early") })
        #expect(try MediaFixtures.probe(o.output!).frames == summary.framesOut)
    }

    @Test func realtimeDropsLateFramesAndCountsThem() throws {
        let graph = try Graph(registry: .standard.adding([SlowImageCalculator.self])) {
            Input("input_video")
            Output("out")
            Node(SlowImageCalculator.self, in: "input_video", out: "out")
        }
        var o = GraphRunner.Options()
        o.inputs = [(nil, "testsrc:64x48@100")]
        o.frames = 60
        o.realtime = true
        o.maxFramesInFlight = 1
        let summary = try GraphRunner(graph: graph, options: o).run()
        #expect(summary.framesIn == 60)
        #expect(summary.dropped > 0, "a 30 ms node cannot keep up with 100 fps")
        #expect(summary.framesOut + summary.dropped == 60)
    }

    @Test func debugSnapshotsWritePNGsEveryNFrames() throws {
        let folder = MediaFixtures.path("snaps")
        var opts = DebugSnapshotCalculator.Options()
        opts.folder = folder
        opts.everyN = 20
        opts.tag = "luma"
        let graph = try Graph {
            Input("input_video")
            Output("out")
            Node(LuminanceCalculator.self, in: "input_video", out: "luma")
            Node(DebugSnapshotCalculator.self, in: ["IMAGE:luma"], out: ["IMAGE:out"], options: opts)
        }
        var o = GraphRunner.Options()
        o.inputs = [(nil, try MediaFixtures.clip())]
        o.output = "null"
        _ = try GraphRunner(graph: graph, options: o).run()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files == ["luma_0.png", "luma_1600000.png", "luma_800000.png"])
        let snap = try #require(try MediaSource((folder as NSString).appendingPathComponent("luma_800000.png")).read()).image
        #expect(snap.width == 160)
    }
}

/// Emits each image's size (for the JSON Lines test).
struct ImageSize: Encodable, Sendable { var width: Int; var height: Int }
final class ImageSizeCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("", ImageFrame.self)], outputs: [PortSpec("", ImageSize.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let img = try cc.input(as: ImageFrame.self)
        try cc.emit(ImageSize(width: img.width, height: img.height))
    }
}

/// Takes 30 ms per frame.
final class SlowImageCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("", ImageFrame.self)], outputs: [PortSpec("", ImageFrame.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        usleep(30_000)
        cc.emit(packet: cc.input(at: 0), atPosition: 0)
    }
}

/// The run's latency record stays bounded when the run never ends (a fleet camera): the
/// newest `capacity` samples, and frames dropped inside the graph forgotten once later ones
/// come out; the percentiles are those of the samples held.
@Suite struct LatencyTrackerTests {
    @Test func staysBoundedAndKeepsTheNewestSamples() {
        let tracker = LatencyTracker()
        let n = 2 * LatencyTracker.capacity  // two thirds of it come out: more than the capacity
        for k in 0..<n {
            let t = Timestamp(Int64(k) * 1000)
            tracker.sent(t)
            // Every third frame is dropped inside the graph: sent, never out.
            if k % 3 != 0 { tracker.received(t) }
        }
        #expect(tracker.held == LatencyTracker.capacity)
        #expect(tracker.waiting <= 257, "dropped frames forgotten: \(tracker.waiting) waiting")
        let (p50, p99) = tracker.percentiles()
        #expect(p50 >= 0 && p99 >= p50 && p99 < 1000, "\(p50) \(p99)")
    }

    @Test func percentilesOfAShortRunAreExact() {
        let tracker = LatencyTracker()
        for k in 0..<10 { tracker.sent(Timestamp(Int64(k))) }
        usleep(20_000)
        for k in 0..<10 { tracker.received(Timestamp(Int64(k))) }
        let (p50, p99) = tracker.percentiles()
        #expect(tracker.held == 10 && tracker.waiting == 0)
        #expect(p50 >= 20 && p99 >= p50, "each frame waited ≥ 20 ms: \(p50) \(p99)")
    }
}
