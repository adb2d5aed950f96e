import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// TensorsToFloatsCalculator: MediaPipe's outputs and sigmoid, and the tensors it refuses.
@Suite struct TensorsToFloatsCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(output: String, options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "TensorsToFloatsCalculator"
                input_stream: "TENSORS:tensors"
                output_stream: "\(output)"
                \(options)
                """, registry: registry)
    }

    @Test func floatsKeepEveryValueOfTheFirstTensor() throws {
        let r = try runner(output: "FLOATS:floats")
        r.add([Tensor(shape: [1, 3], floats: [0.5, -2, 7]), Tensor(shape: [1], floats: [9])], tag: "TENSORS", at: 3)
        try r.run()
        let out = r.outputs("FLOATS")
        #expect(out.count == 1 && out[0].timestamp == 3)
        #expect(try out[0].get([Float].self) == [0.5, -2, 7])
    }

    @Test func sigmoidAppliesToEachValue() throws {
        let r = try runner(
            output: "FLOATS:floats", options: "options { [mediapipe.TensorsToFloatsCalculatorOptions.ext] { activation: SIGMOID } }")
        let x: [Float] = [0, 2, -3]
        r.add([Tensor(shape: [3], floats: x)], tag: "TENSORS", at: 0)
        try r.run()
        let got = try r.outputs("FLOATS")[0].get([Float].self)
        let want = x.map { 1 / (1 + exp(-$0)) }
        #expect(got.count == 3 && zip(got, want).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(abs(got[0] - 0.5) < 1e-7 && abs(got[1] - 0.880797) < 1e-5)
    }

    @Test func floatTakesTheSingleValue() throws {
        let r = try runner(
            output: "FLOAT:score", options: "options { [mediapipe.TensorsToFloatsCalculatorOptions.ext] { activation: SIGMOID } }")
        r.add([Tensor(shape: [1, 1], floats: [1])], tag: "TENSORS", at: 7)
        try r.run()
        let out = r.outputs("FLOAT")
        #expect(out.count == 1 && out[0].timestamp == 7)
        #expect(abs(try out[0].get(Float.self) - 1 / (1 + exp(-1))) < 1e-6)
    }

    @Test func floatRefusesATensorOfSeveralValues() throws {
        let r = try runner(output: "FLOAT:score")
        r.add([Tensor(shape: [2], floats: [1, 2])], tag: "TENSORS", at: 0)
        #expect { try r.run() } throws: { e in
            "\(e)".contains("stream 'tensors'") && "\(e)".contains("one element; TENSORS has 2")
        }
    }

    @Test(arguments: [[Tensor](), [Tensor(shape: [1], ints: [1])]])
    func refusesEmptyOrNonFloatTensors(tensors: [Tensor]) throws {
        let r = try runner(output: "FLOATS:floats")
        r.add(tensors, tag: "TENSORS", at: 0)
        #expect { try r.run() } throws: { e in
            e is GraphError && "\(e)".contains("stream 'tensors'") && "\(e)".contains("TENSORS")
        }
    }

    @Test func needsAnOutput() throws {
        #expect(throws: GraphError.self) {
            let r = try CalculatorRunner(
                node: "calculator: \"TensorsToFloatsCalculator\"\ninput_stream: \"TENSORS:t\"", registry: registry)
            r.add([Tensor(shape: [1], floats: [1])], tag: "TENSORS", at: 0)
            try r.run()
        }
    }

    @Test func optionsFromTheBinarySchema() throws {
        #expect(TensorsToFloatsCalculator.Options.protoSchema?.extensionNumber == 343499115)
        #expect(registry.calculator(named: "TensorsToFloatsCalculator") != nil)
    }
}
