import FrameFlow
import FrameFlowArguments
import FrameFlowCalculators
import Testing

@testable import FrameFlowCommandLine

/// `frameflow run -p 'A ! B key=value'`: the chain as a graph (ports by image type, options in
/// the text format), runs end to end, and bad elements are named.
@Suite struct QuickPipelineTests {
    @MainActor @Test func aChainBecomesAGraphThatRuns() throws {
        let registry = try CalculatorRegistry.commandLine()
        let text = try QuickPipeline.graphText("LuminanceCalculator ! GaussianBlurCalculator sigma=2 ! SobelEdgesCalculator", registry: registry)
        let config = try GraphConfig(parsing: text, file: "pipeline")
        #expect(config.nodes.map(\.calculator) == ["LuminanceCalculator", "GaussianBlurCalculator", "SobelEdgesCalculator"])
        #expect(config.nodes[0].inputStreams.map(\.name) == ["input_video"] && config.nodes[2].outputStreams.map(\.name) == ["output_video"])
        #expect(config.nodes[1].inputStreams[0].name == config.nodes[0].outputStreams[0].name)
        _ = try Graph(config, registry: registry)
        #expect(
            FrameFlowCommand.runToStatus([
                "run", "-p", "LuminanceCalculator ! SobelEdgesCalculator", "--input", "testsrc:64x48@10", "--frames", "3", "--output", "null",
                "--quiet",
            ]) == 0)
    }

    @MainActor @Test func badElementsAreNamed() throws {
        let registry = try CalculatorRegistry.commandLine()
        let typo = #expect(throws: ValidationError.self) { try QuickPipeline.graphText("LuminanceCalculatr", registry: registry) }
        #expect("\(typo!)".contains("did you mean LuminanceCalculator?"), "\(typo!)")
        #expect(throws: ValidationError.self) { try QuickPipeline.graphText("A ! ! B", registry: registry) }
        #expect(throws: ValidationError.self) { try QuickPipeline.graphText("GaussianBlurCalculator sigma", registry: registry) }
        #expect(throws: ValidationError.self) { try QuickPipeline.graphText("GaussianBlurCalculator sigma=\"2", registry: registry) }
        #expect(FrameFlowCommand.runToStatus(["run", "-p", "GaussianBlurCalculator sigma=nan", "--input", "testsrc", "--output", "null"]) == 1)
        #expect(FrameFlowCommand.runToStatus(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "-p", "LuminanceCalculator"]) == 2)
        #expect(FrameFlowCommand.runToStatus(["run"]) == 2)
    }
}
