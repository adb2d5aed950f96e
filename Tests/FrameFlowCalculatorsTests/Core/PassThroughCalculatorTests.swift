import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct PassThroughCalculatorTests {
    @Test func passesEachInputToTheOutputAtItsPosition() throws {
        let runner = try CalculatorRunner(
            PassThroughCalculator.self, inputs: ["a", "VIDEO:b"], outputs: ["a_out", "VIDEO:b_out"])
        runner.add(1, at: 10)
        runner.add("x", tag: "VIDEO", at: 10)
        runner.add(2, at: 20)
        try runner.run()
        #expect(try runner.outputs().map { try $0.get(Int.self) } == [1, 2])
        #expect(runner.outputs().map(\.timestamp) == [10, 20])
        #expect(try runner.outputs("VIDEO").map { try $0.get(String.self) } == ["x"])
    }
}
