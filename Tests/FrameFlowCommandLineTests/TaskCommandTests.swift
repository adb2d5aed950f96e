import Foundation
import FrameFlow
import FrameFlowArguments
import FrameFlowTestSupport
import Testing

@testable import FrameFlowCommandLine

/// `frameflow task`: a MediaPipe Task on a photo and a clip, one JSON line per frame in the
/// Tasks result shape (checked against MediaPipe's boxes), the file written only on success,
/// and its bad arguments.
@Suite struct TaskCommandTests {
    static let model = RepositoryFiles.built("tasks/face_detector.tflite")

    @MainActor @Test func facesOfAPhotoAndAClipAsJSONLines() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/setup.sh test")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-task-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("faces.jsonl").path
        let photo = RepositoryFiles.fixture("mediapipe/photos/two_faces.png")
        #expect(FrameFlowCommand.runToStatus(["task", "face-detector", Self.model, "--input", photo, "--output", out]) == 0)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let boxes = try #require(object["detections"] as? [[String: Any]]).compactMap { $0["boundingBox"] as? [String: Int] }
        // MediaPipe Tasks' FaceDetector on the same photo (Tests/Fixtures/mediapipe/tasks/face_detector.json).
        #expect(Set(boxes.map { [$0["originX"]!, $0["originY"]!, $0["width"]!, $0["height"]!] }) == [[245, 55, 85, 85], [58, 61, 83, 83]])
        let clip = RepositoryFiles.path("Tests/Fixtures/mediapipe/hand_clip.mp4")
        #expect(FrameFlowCommand.runToStatus(["task", "face-detector", Self.model, "--input", clip, "--frames", "12", "--output", out]) == 0)
        let video = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(video.count == 12 && video.allSatisfy { $0.contains("\"timestampInMilliseconds\"") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["faces.jsonl"])
    }

    @MainActor @Test func badArgumentsAndAMissingModelLeaveNoFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-task-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.jsonl").path
        let photo = RepositoryFiles.fixture("mediapipe/photos/two_faces.png")
        #expect(FrameFlowCommand.runToStatus(["task", "face-detectr", Self.model, "--input", photo]) == 2)
        #expect(FrameFlowCommand.runToStatus(["task", "face-detector", Self.model, "--input", photo, "--option", "num_hands=2"]) == 2)
        #expect(
            FrameFlowCommand.runToStatus([
                "task", "face-detector", Self.model, "--input", photo, "--option", "min_detection_confidence=nan", "--output", out,
            ]) == 1)
        #expect(FrameFlowCommand.runToStatus(["task", "face-detector", "/nonexistent.tflite", "--input", photo, "--output", out]) == 1)
        #expect(FrameFlowCommand.runToStatus(["task", "face-detector", Self.model, "--input", "/nonexistent.png", "--output", out]) != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
