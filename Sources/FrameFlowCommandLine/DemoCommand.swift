import FrameFlow
import FrameFlowArguments
import FrameFlowMedia
import Foundation

/// `frameflow demo`: the edge-detection graph on FFmpeg's generated test pattern, written to
/// `demo-output.mp4`. Nothing to download.
public struct DemoCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "demo",
            abstract: "run Graphs/edge_detection_mobile_gpu.pbtxt on a generated clip, write demo-output.mp4 and print the summary")
    }

    /// `--frames N`.
    @Option(valueName: "N", help: "frames to generate", expecting: "needs a positive number", valid: { $0 > 0 })
    public var frames = 150
    /// `--size WxH`.
    @Option(valueName: "WxH", help: "the clip's size") public var size = "640x480"
    /// `--output FILE`.
    @Option(valueName: "FILE", help: "the video to write") public var output = "demo-output.mp4"

    public init() {}

    public func validate() throws {
        guard FrameSize(size) != nil else { throw ValidationError("--size must be WxH, e.g. 640x480") }
    }

    @MainActor public func run() throws {
        StopSignals.runWillStart()
        guard let frameSize = FrameSize(size) else { throw ExitRequest.usage("--size must be WxH, e.g. 640x480") }
        let graphPath = GraphFiles.locate("Graphs/edge_detection_mobile_gpu.pbtxt")
        guard FileManager.default.fileExists(atPath: graphPath) else {
            throw ExitRequest.failure(
                "Graphs/edge_detection_mobile_gpu.pbtxt not found: run the demo from the repository root, or install FrameFlow (make install)")
        }
        let graph = try Graph(contentsOfFile: graphPath, registry: try CalculatorRegistry.commandLine(), environment: GraphEnvironment())
        var options = GraphRunner.Options()
        options.inputs = [(nil, "testsrc:\(frameSize.width)x\(frameSize.height)@30")]
        options.frames = frames
        options.output = output
        options.progress = isatty(2) != 0
        let runner = GraphRunner(graph: graph, options: options)
        let summary = try runWithInterrupt(runner)
        try finishRun(summary, readsInput: true)
        print("wrote \(output)")
        if summary.interrupted { throw ExitRequest(status: ExitCode.interrupted, message: "") }
    }
}
