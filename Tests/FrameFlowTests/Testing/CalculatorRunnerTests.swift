import FrameFlow
import FrameFlowTesting
import Testing

/// `CalculatorRunner`'s step mode: push, run until idle, take, finish.
@Suite struct CalculatorRunnerTests {
    @Test func stepModeGivesEachTimestampsOutputsAndReportsUnreadOnes() throws {
        var o = AddCalculator.Options()
        o.amount = 10
        let runner = try CalculatorRunner(AddCalculator.self, options: o, inputs: ["in"], outputs: ["out"])
        try runner.start()
        try runner.push(1, at: 0)
        try runner.runUntilIdle()
        #expect(try runner.takeOutputs().map { try $0.get(Int.self) } == [11])
        #expect(runner.takeOutputs().isEmpty, "taken packets are gone")
        try runner.push(2, at: 1)
        try runner.push(3, at: 2)
        try runner.runUntilIdle()
        #expect(try runner.takeOutputs().map { try $0.get(Int.self) } == [12, 13])
        try runner.push(4, at: 3)
        let left = try runner.finish()
        #expect(!left.isClean)
        #expect(try left.unread["out"]?.map { try $0.get(Int.self) } == [14])
    }

    @Test func finishIsCleanWhenEverythingWasRead() throws {
        let runner = try CalculatorRunner(AddCalculator.self, inputs: ["in"], outputs: ["out"])
        try runner.start()
        try runner.push(5, at: 0)
        try runner.runUntilIdle()
        #expect(runner.takeOutputs().count == 1)
        #expect(try runner.finish().isClean)
    }

    @Test func stepModeThrowsTheNodesErrorAndTimestampErrors() throws {
        let runner = try CalculatorRunner(AddCalculator.self, inputs: ["in"], outputs: ["out"])
        try runner.start()
        try runner.push(1, at: 5)
        #expect(throws: GraphError.self) { try runner.push(2, at: 5) }
        _ = try runner.finish()
    }
}
