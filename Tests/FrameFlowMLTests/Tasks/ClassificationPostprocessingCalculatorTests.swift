import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// ClassificationPostprocessingCalculator on GestureRecognizer's two classifiers, against the
/// TensorsToClassificationCalculator options MediaPipe 0.10.21 itself derived from the same
/// models' metadata (Tests/Fixtures/mediapipe/tasks/graphs/gesture_recognizer_expanded.pbtxt):
/// the custom classifier's labels and min_score_threshold 0.5, and no labels and −FLT_MAX for the
/// canned one.
@Suite struct ClassificationPostprocessingCalculatorTests {
    static func model(_ entry: String) throws -> [UInt8] {
        try TasksFixtures.requireModels()
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: RepositoryFiles.built("tasks/gesture_recognizer.task")))
        return try bundle.bundle("hand_gesture_recognizer.task").data(entry)
    }

    /// MediaPipe's label names for the custom classifier, read off its expanded graph.
    static func mediaPipeCustomLabels() throws -> [String] {
        let text = try String(
            contentsOfFile: RepositoryFiles.fixture("mediapipe/tasks/graphs/gesture_recognizer_expanded.pbtxt"), encoding: .utf8)
        let start = try #require(text.range(of: "min_score_threshold: 0.5"))
        let end = try #require(text.range(of: "sort_by_descending_score", range: start.upperBound..<text.endIndex))
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("name: \"") else { return nil }
            return String(t.dropFirst(7).dropLast())
        }
    }

    func run(_ bytes: [UInt8], _ scores: [Float], options: String = "") throws -> [Classification] {
        let runner = try CalculatorRunner(
            node: """
                calculator: "ClassificationPostprocessingCalculator" input_stream: "TENSORS:t" output_stream: "CLASSIFICATIONS:c"
                input_side_packet: "CONTENTS:model"
                options { [frameflow.ClassificationPostprocessingCalculatorOptions.ext] { \(options) } }
                """, registry: MLFixtures.registry)
        runner.setSidePacket(bytes, tag: "CONTENTS")
        runner.add([Tensor(shape: [1, scores.count], floats: scores)], tag: "TENSORS", at: 0)
        try runner.run()
        return try runner.outputs("CLASSIFICATIONS").first?.get(ClassificationList.self).classification ?? []
    }

    @Test func customClassifierLabelsAndThresholdFromMetadata() throws {
        let labels = try Self.mediaPipeCustomLabels()
        #expect(labels.count == 9)
        let bytes = try Self.model("custom_gesture_classifier.tflite")
        let scores: [Float] = [0.1, 0.6, 0.2, 0.7, 0.0, 0.5, 0.3, 0.4, 0.45]
        let out = try run(bytes, scores)
        // At least 0.5, best first.
        #expect(out.map(\.index) == [3, 1, 5])
        #expect(out.map { $0.label ?? "?" } == [labels[3], labels[1], labels[5]])
        // score_threshold and max_results override and cut.
        #expect(try run(bytes, scores, options: "score_threshold: 0.3 max_results: 4").map(\.index) == [3, 1, 5, 8])
        #expect(try run(bytes, scores, options: "category_denylist: \"\(labels[3])\"").map(\.index) == [1, 5])
    }

    @Test func cannedClassifierHasNoLabelsAndNoThreshold() throws {
        let bytes = try Self.model("canned_gesture_classifier.tflite")
        let out = try run(bytes, [0.1, -0.2, 0.3, 0, 0, 0, 0.05, 0.2])
        #expect(out.map(\.index) == [2, 7, 0, 6, 3, 4, 5, 1] && out.allSatisfy { $0.label == nil })
        let e = TasksCalculatorTesting.thrown { _ = try run(bytes, [0.1], options: "category_allowlist: \"x\"") }
        #expect(e?.contains("need a model with labels") == true)
    }

    @Test func brokenModelsAndOptionsAreErrors() throws {
        let e = TasksCalculatorTesting.thrown { _ = try run([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0.5]) }
        #expect(e?.contains("ClassificationPostprocessingCalculator") == true)
        for (options, field) in [
            ("max_results: 0", "max_results"), ("score_threshold: nan", "score_threshold"), ("score_threshold: 1e308", "score_threshold"),
            ("category_allowlist: \"a\" category_denylist: \"b\"", "category_allowlist"),
        ] {
            let error = TasksCalculatorTesting.nodeError(
                """
                calculator: "ClassificationPostprocessingCalculator" input_stream: "TENSORS:t" output_stream: "CLASSIFICATIONS:c"
                input_side_packet: "CONTENTS:model"
                options { [frameflow.ClassificationPostprocessingCalculatorOptions.ext] { \(options) } }
                """, inputs: ["t"])
            TasksCalculatorTesting.expectInvalidOption(error, naming: field, options)
        }
    }
}
