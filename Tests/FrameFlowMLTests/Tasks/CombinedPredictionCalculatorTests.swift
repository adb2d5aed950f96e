import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

/// CombinedPredictionCalculator against MediaPipe's rule, case by case.
@Suite struct CombinedPredictionCalculatorTests {
    typealias Calc = CombinedPredictionCalculator

    static func list(_ pairs: [(String, Double)]) -> ClassificationList {
        ClassificationList(pairs.enumerated().map { Classification(index: $0.offset, score: $0.element.1, label: $0.element.0) })
    }

    func run(_ lists: [ClassificationList?], options: String = "background_label: \"None\"") throws -> [(String, Double)] {
        let node = """
            calculator: "CombinedPredictionCalculator"
            \(lists.indices.map { "input_stream: \"in\($0)\"" }.joined(separator: " "))
            output_stream: "PREDICTION:out"
            options { [mediapipe.CombinedPredictionCalculatorOptions.ext] { \(options) } }
            """
        let runner = try CalculatorRunner(node: node, registry: MLFixtures.registry)
        for (i, l) in lists.enumerated() { if let l { runner.add(l, index: i, at: 0) } }
        try runner.run()
        return try runner.outputs("PREDICTION").map {
            let c = try $0.get(ClassificationList.self).classification
            #expect(c.count == 1 && c[0].index == -1)
            return (c[0].label ?? "", c[0].score)
        }
    }

    @Test func firstNonBackgroundWins() throws {
        // Custom list empty (nothing above its threshold): the canned class wins.
        let out = try run([Self.list([]), Self.list([("", 0.7), ("", 0.2)])])
        #expect(out.map(\.0) == [""] && out.map(\.1) == [0.7])
        // "none" is not the background "None": the custom list wins.
        #expect(try run([Self.list([("none", 0.6), ("add", 0.3)]), Self.list([("x", 0.9)])]).map(\.0) == ["none"])
        // Background first: the next list's class wins; all background: the first.
        #expect(try run([Self.list([("None", 0.8)]), Self.list([("x", 0.9)])]).map(\.0) == ["x"])
        let allBackground = try run([Self.list([("None", 0.8)]), Self.list([("None", 0.6)])])
        #expect(allBackground.map(\.0) == ["None"] && allBackground.map(\.1) == [0.8])
        // No packets, or only empty lists: nothing.
        #expect(try run([nil, Self.list([])]).isEmpty)
    }

    /// A class below its own threshold gives way to the list's background entry (or an empty
    /// prediction without one).
    @Test func classThresholds() throws {
        let opts = "background_label: \"None\" class { label: \"add\" score_threshold: 0.9 }"
        let out = try run([Self.list([("add", 0.6), ("None", 0.3)]), Self.list([("x", 0.5)])], options: opts)
        #expect(out.map(\.0) == ["x"])
        let noBackground = try run([Self.list([("add", 0.6)])], options: opts)
        #expect(noBackground.map(\.0) == [""] && noBackground.map(\.1) == [0])
        let global = try run([Self.list([("b", 0.6)])], options: "background_label: \"None\" default_global_threshold: 0.7")
        #expect(global.map(\.0) == [""])
    }

    @Test(arguments: ["default_global_threshold: nan", "default_global_threshold: inf", "class { label: \"a\" score_threshold: nan }"])
    func refusesNonFiniteThresholds(options: String) {
        let e = TasksCalculatorTesting.nodeError(
            """
            calculator: "CombinedPredictionCalculator" input_stream: "a" output_stream: "PREDICTION:p"
            options { [mediapipe.CombinedPredictionCalculatorOptions.ext] { \(options) } }
            """, inputs: ["a"])
        #expect(e?.kind == .invalidOption, "\(options): \(String(describing: e))")
    }
}
