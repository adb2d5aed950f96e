import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

/// HandednessToMatrixCalculator against MediaPipe's handedness_util rule: the top score if
/// "Right", 1 − score if "Left" (any case); a top score below 0.5 or another label fails.
@Suite struct HandednessToMatrixCalculatorTests {
    func run(_ list: ClassificationList) throws -> Float? {
        let runner = try CalculatorRunner(HandednessToMatrixCalculator.self, inputs: ["HANDEDNESS:h"], outputs: ["HANDEDNESS_MATRIX:m"])
        runner.add(list, tag: "HANDEDNESS", at: 0)
        try runner.run()
        let m = try runner.outputs("HANDEDNESS_MATRIX").first?.get(Matrix.self)
        #expect(m?.rows == 1 && m?.cols == 1)
        return m?[0, 0]
    }

    @Test func rightHandProbability() throws {
        #expect(try run(ClassificationList([Classification(index: 0, score: 0.9, label: "Right")])) == Float(0.9))
        #expect(try run(ClassificationList([Classification(index: 1, score: 0.75, label: "left")])) == 1 - Float(0.75))
        // The top of several: Left 0.7 over Right 0.3.
        let both = ClassificationList([Classification(index: 0, score: 0.3, label: "Right"), Classification(index: 1, score: 0.7, label: "Left")])
        #expect(try run(both) == 1 - Float(0.7))
    }

    @Test(arguments: [
        (ClassificationList([]), "empty"), (ClassificationList([Classification(index: 0, score: 0.4, label: "Right")]), "0.4"),
        (ClassificationList([Classification(index: 0, score: 1.5, label: "Right")]), "1.5"),
        (ClassificationList([Classification(index: 0, score: .nan, label: "Right")]), "nan"),
        (ClassificationList([Classification(index: 0, score: 0.9, label: "Up")]), "Up"),
    ])
    func badHandednessIsAnError(list: ClassificationList, naming: String) throws {
        let e = TasksCalculatorTesting.thrown { _ = try run(list) }
        #expect(e?.contains(naming) == true && e?.contains("HandednessToMatrixCalculator") == true, "\(String(describing: e))")
    }
}
