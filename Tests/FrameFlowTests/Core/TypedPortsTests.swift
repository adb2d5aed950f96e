import FrameFlow
import FrameFlowTesting
import Testing

/// Typed ports: the contract derived from the declarations, and reading, writing and side
/// packets through them.
@Suite struct TypedPortsTests {
    /// Adds SCALE (a side packet) times VALUE to each BASE, when VALUE is there; counts calls.
    final class ScaledSum: Calculator {
        struct Options: CalculatorOptions {
            static let typeName = "test.ScaledSumOptions"
            init() {}
        }
        static let base = InputPort<Int>("BASE")
        static let addend = InputPort<Int>("VALUE", optional: true)
        static let scale = InputSidePacket<Int>("SCALE")
        static let sum = OutputPort<Int>("SUM")
        static let calls = OutputPort<Int>("CALLS", optional: true)
        static let contract = CalculatorContract(ports: [base, addend, scale, sum, calls])
        var count = 0
        var factor = 0
        init(options: Options) {}
        func open(_ cc: CalculatorContext) throws { factor = try cc.get(Self.scale) }
        func process(_ cc: CalculatorContext) throws {
            count += 1
            let extra = try cc.value(Self.addend).map { $0 * factor } ?? 0
            try cc.emit(try cc.get(Self.base) + extra, to: Self.sum)
            try cc.emit(count, to: Self.calls)
        }
    }

    @Test func theContractIsDerivedFromTheDeclarations() {
        let c = ScaledSum.contract
        #expect(c.inputs.map(\.tag) == ["BASE", "VALUE"])
        #expect(c.inputs.map(\.isOptional) == [false, true])
        #expect(c.inputs.allSatisfy { $0.type == .of(Int.self) })
        #expect(c.outputs.map(\.tag) == ["SUM", "CALLS"])
        #expect(c.inputSidePackets.map(\.tag) == ["SCALE"])
        #expect(c.outputSidePackets.isEmpty)
    }

    @Test func valuesFlowThroughTheTypedPorts() throws {
        let runner = try CalculatorRunner(
            ScaledSum.self, inputs: ["BASE:b", "VALUE:v"], outputs: ["SUM:s"], sideInputs: ["SCALE:k"])
        runner.setSidePacket(10, tag: "SCALE")
        runner.add(1, tag: "BASE", at: 0)
        runner.add(2, tag: "BASE", at: 1)
        runner.add(3, tag: "VALUE", at: 1)
        try runner.run()
        #expect(try runner.outputs("SUM").map { try $0.get(Int.self) } == [1, 32])
    }

    @Test func aMissingSidePacketIsNamed() throws {
        let runner = try CalculatorRunner(ScaledSum.self, inputs: ["BASE:b"], outputs: ["SUM:s"], sideInputs: ["SCALE:k"])
        runner.add(1, tag: "BASE", at: 0)
        #expect {
            try runner.run()
        } throws: { error in
            "\(error)".contains("SCALE") || "\(error)".contains("'k'")
        }
    }
}
