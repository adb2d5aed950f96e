import Foundation
import FrameFlow
@testable import FrameFlowML
import FrameFlowTestSupport
import Testing

/// ModelAssetCalculator's bundle detection, against the bytes of MediaPipe's published
/// `face_landmarker.task` (two zero bytes before its first ZIP header, which Python's zipfile
/// reads) and a plain `.tflite`.
@Suite struct ModelAssetCalculatorTests {
    @Test func publishedTaskFilesAreBundlesAndTFLiteFilesAreNot() throws {
        try TasksFixtures.requireModels()
        let task = try #require(FileManager.default.contents(atPath: RepositoryFiles.built("tasks/face_landmarker.task")))
        #expect(task.prefix(4).elementsEqual([0, 0, 0x50, 0x4B]), "the published bundle's first bytes changed")
        #expect(ModelAssetCalculator.isBundle(task))
        let tflite = try #require(FileManager.default.contents(atPath: RepositoryFiles.built("tasks/face_detector.tflite")))
        #expect(!ModelAssetCalculator.isBundle(tflite))
    }

    @Test func entriesOfAPrefixedBundleAreRead() throws {
        try TasksFixtures.requireModels()
        let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        let options = ModelAssetCalculator.Options(modelAssetPath: ".build/fixtures/tasks/face_landmarker.task", entry: "face_detector.tflite")
        let (bytes, _) = try ModelAssetCalculator.read(options, environment: environment)
        // The same bytes scripts/fixtures/make_mediapipe_tasks_fixtures.py took out with zipfile.
        let extracted = try #require(FileManager.default.contents(atPath: RepositoryFiles.built("tasks/face_detector.tflite")))
        #expect(bytes == [UInt8](extracted))
    }

    @Test(arguments: [Data(), Data([0x50, 0x4B]), Data(repeating: 0, count: 100)])
    func shortOrForeignDataIsNoBundle(data: Data) {
        #expect(!ModelAssetCalculator.isBundle(data))
    }

    @Test func aBundleWithoutEntryIsRefused() throws {
        try TasksFixtures.requireModels()
        let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        let options = ModelAssetCalculator.Options(modelAssetPath: ".build/fixtures/tasks/face_landmarker.task")
        #expect { try ModelAssetCalculator.read(options, environment: environment) } throws: { e in
            "\(e)".contains("is a bundle") && "\(e)".contains("face_landmarker.task")
        }
    }
}
