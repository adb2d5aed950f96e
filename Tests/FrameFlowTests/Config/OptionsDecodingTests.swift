import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Options text is held to what the options' protobuf schema can hold, as MediaPipe's parser
/// holds it: a 32-bit field refuses a 64-bit value, a float field a value past Float's range;
/// each error names the field and its line and column.
@Suite struct OptionsDecodingTests {
    func error(_ options: String) -> GraphError? {
        let text = """
            input_stream: "in"
            node {
              calculator: "FlowLimiterCalculator"
              input_stream: "in"
              output_stream: "out"
              options { [mediapipe.FlowLimiterCalculatorOptions.ext] { \(options) } }
            }
            """
        return GraphBuildErrors.of(text, file: "f.pbtxt", registry: .standard).first
    }

    @Test(arguments: ["max_in_flight: 2147483648", "max_in_flight: -2147483649", "max_in_queue: 9223372036854775807"])
    func thirtyTwoBitFieldsRefuseWiderValues(options: String) {
        let e = error(options)
        #expect(e?.message.contains("out of range for its protobuf type int32") == true, "\(String(describing: e))")
        #expect(e?.location?.line == 6 && e?.location?.column ?? 0 > 50, "\(String(describing: e?.location))")
    }

    /// int64 fields take 64-bit values (this one is then bounded by the calculator's range).
    @Test func sixtyFourBitFieldsTakeThem() {
        #expect(error("in_flight_timeout: 5000000000") == nil)
        #expect(error("in_flight_timeout: 9223372036854775807")?.message.contains("in_flight_timeout") == true)
    }
}
