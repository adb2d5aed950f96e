import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowML

/// ModelAssetCalculator on MediaPipe's own bundles (which start with padding before the first
/// ZIP header) and on entries found in a nested bundle, against ModelBundle's explicit
/// `outer.task/inner.tflite` path.
@Suite struct ModelAssetCalculatorNestedTests {
    func contents(_ asset: String, _ entry: String) throws -> [UInt8] {
        try ModelAssetCalculator.read(
            .init(modelAssetPath: asset, entry: entry), environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        ).bytes
    }

    @Test func paddedBundlesAndNestedEntries() throws {
        try TasksFixtures.requireModels()
        let path = ".build/fixtures/tasks/gesture_recognizer.task"
        let raw = try #require(FileManager.default.contents(atPath: RepositoryFiles.path(path)))
        #expect(raw.first == 0 && raw.dropFirst(2).starts(with: [0x50, 0x4B]), "MediaPipe's bundles start with two zero bytes")
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: RepositoryFiles.path(path)))
        let explicit = try bundle.bundle("hand_landmarker.task").data("hand_detector.tflite")
        #expect(try contents(path, "hand_landmarker.task/hand_detector.tflite") == explicit)
        #expect(try contents(path, "hand_detector.tflite") == explicit)
        let embedder = try bundle.bundle("hand_gesture_recognizer.task").data("gesture_embedder.tflite")
        #expect(try contents(path, "gesture_embedder.tflite") == embedder)
        let missing = TasksCalculatorTesting.thrown { _ = try contents(path, "no_such.tflite") }
        #expect(missing?.contains("no_such.tflite") == true)
    }
}
