import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowTestSupport
import Testing

@testable import FrameFlowML

/// InferenceCalculator takes a tensor with a model input's element count in another shape in the
/// input's shape (MediaPipe's CPU inference copies buffers): GestureRecognizer's embedder gets
/// `[1, 3, 21, 1]` matrices for its `[1, 21, 3]` inputs. Checked on that model.
@Suite struct InferenceCalculatorReshapeTests {
    @Test func sameCountOtherShapeTakesTheModelsShape() throws {
        try TasksFixtures.requireModels()
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: RepositoryFiles.built("tasks/gesture_recognizer.task")))
        let bytes = try bundle.bundle("hand_gesture_recognizer.task").data("gesture_embedder.tflite")
        let model = try Model.load(tflite: bytes, file: "gesture_embedder.tflite", limits: ResourceLimits())
        let names = model.inputs.map(\.name)
        let declared = model.inputs.map { ($0.shape ?? []).map { $0 ?? -1 } }
        #expect(declared.contains([1, 21, 3]) && declared.contains([1, 1]))
        let given = declared.map { shape -> Tensor in
            let count = shape.reduce(1, *)
            return Tensor(shape: shape == [1, 21, 3] ? [1, 3, 21, 1] : shape, floats: (0..<count).map(Float.init))
        }
        let out = InferenceCalculator.reshaped(given, names, model)
        #expect(out.map(\.shape) == declared)
        #expect(zip(out, given).allSatisfy { $0.floats == $1.floats }, "the data are not moved")
        // Another element count is left for the model to refuse.
        let wrong = [Tensor(shape: [1, 62], floats: Array(repeating: 0, count: 62))] + given.dropFirst()
        #expect(InferenceCalculator.reshaped(wrong, names, model)[0].shape == [1, 62])
    }
}
