import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// The `[Tensor]` vector calculators: MediaPipe's names, the shared semantics, and the split's
/// rule that tensor ranges must not overlap.
@Suite struct TensorVectorCalculatorsTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func tensor(_ value: Float) -> Tensor { Tensor(shape: [1], floats: [value]) }
    func values(_ packet: Packet) throws -> [Float] { try packet.get([Tensor].self).flatMap(\.floats) }

    @Test func registeredUnderMediaPipesNames() {
        for name in [
            "BeginLoopTensorCalculator", "EndLoopTensorCalculator", "SplitTensorVectorCalculator",
            "ConcatenateTensorVectorCalculator",
        ] {
            #expect(registry.calculator(named: name)?.name == name)
        }
    }

    /// A SplitTensorVectorCalculator with two outputs, cut by `ranges` (its options' fields).
    func split(_ ranges: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "SplitTensorVectorCalculator"
                input_stream: "tensors"
                output_stream: "a"
                output_stream: "b"
                options { [mediapipe.SplitVectorCalculatorOptions.ext] { \(ranges) } }
                """, registry: registry)
    }

    @Test func splitCutsTensorVectors() throws {
        let r = try split("ranges: { begin: 0 end: 1 } ranges: { begin: 1 end: 3 }")
        r.add([tensor(1), tensor(2), tensor(3)], at: 5)
        try r.run()
        #expect(try r.outputs("", 0).map(values) == [[1]])
        #expect(try r.outputs("", 1).map(values) == [[2, 3]])
    }

    @Test func splitRefusesOverlappingTensorRanges() throws {
        let r = try split("ranges: { begin: 0 end: 3 } ranges: { begin: 1 end: 4 }")
        r.add((0..<4).map { tensor(Float($0)) }, at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("overlap") }
    }

    @Test func concatenateJoinsTensorsAndVectors() throws {
        let r = try CalculatorRunner(
            node: """
                calculator: "ConcatenateTensorVectorCalculator"
                input_stream: "a"
                input_stream: "b"
                output_stream: "all"
                """, registry: registry)
        r.add(tensor(1), index: 0, at: 0)
        r.add([tensor(2), tensor(3)], index: 1, at: 0)
        try r.run()
        #expect(try r.outputs().map(values) == [[1, 2, 3]])
    }

    @Test func aTensorLoopGivesTheTensorsBackAtTheBatchTimestamp() throws {
        let g = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "tensors"
                    node {
                      calculator: "BeginLoopTensorCalculator"
                      input_stream: "ITERABLE:tensors"
                      output_stream: "ITEM:tensor"
                      output_stream: "BATCH_END:end"
                    }
                    node {
                      calculator: "EndLoopTensorCalculator"
                      input_stream: "ITEM:tensor"
                      input_stream: "BATCH_END:end"
                      output_stream: "ITERABLE:out"
                    }
                    """), registry: registry)
        let out = try PacketCollector(g, "out")
        try g.start()
        try g.send([tensor(1), tensor(2)], to: "tensors", at: 100)
        try g.send([Tensor](), to: "tensors", at: 200)
        try g.send([tensor(3)], to: "tensors", at: 300)
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(out.timestamps == [100, 300])
        #expect(try out.packets.map(values) == [[1, 2], [3]])
    }
}
