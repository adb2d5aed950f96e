import FrameFlow
import FrameFlowTesting
import Testing

/// `GraphBuildErrors`: every error a graph's build reports, in order, with its line.
@Suite struct GraphBuildErrorsTests {
    @Test func aGraphThatBuildsHasNone() {
        let text = "input_stream: \"in\"\nnode { calculator: \"PassThroughCalculator\" input_stream: \"in\" output_stream: \"out\" }"
        #expect(GraphBuildErrors.of(text, registry: .standard).isEmpty)
    }

    @Test func everyErrorComesBackWithItsLine() {
        let text = """
            input_stream: "in"
            node { calculator: "NoSuchCalculator" input_stream: "in" output_stream: "a" }
            node {
              calculator: "FlowLimiterCalculator"
              input_stream: "in"
              output_stream: "b"
              options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: -1 } }
            }
            """
        let errors = GraphBuildErrors.of(text, file: "two.pbtxt", registry: .standard)
        #expect(errors.count == 2, "\(errors)")
        #expect(errors.first?.description.contains("NoSuchCalculator") == true)
        #expect(errors.first?.description.contains("two.pbtxt:2") == true, "\(errors)")
        let option = GraphBuildErrors.firstOptionError(text, registry: .standard)
        #expect(option?.kind == .invalidOption)
        #expect(option?.description.contains("max_in_flight") == true, "\(String(describing: option))")
    }
}
