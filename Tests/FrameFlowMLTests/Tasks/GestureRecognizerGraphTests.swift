import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// `mediapipe.tasks.vision.gesture_recognizer.GestureRecognizerGraph`, loaded through MediaPipe's
/// own top-level task config, against MediaPipe Tasks' GestureRecognizer on the same pixels
/// (Tests/Fixtures/mediapipe/tasks/gesture_recognizer.json): HandLandmarker's thresholds, and
/// each hand's gesture name equal (the canned classifier has no labels in this bundle, so its
/// names are empty) with its score within 0.01.
@Suite struct GestureRecognizerGraphTests {
    static let streams = ["landmarks", "world_landmarks", "handedness", "hand_gestures"]

    @Test func photosMatchMediaPipeTasks() throws {
        _ = try HandLandmarkerGraphTests.checkPhotos("gesture_recognizer", streams: Self.streams)
    }

    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "a clip runs in the optimized pass of make test"))
    func clipMatchesMediaPipeTasksFrameByFrame() throws {
        try HandLandmarkerGraphTests.checkClip("gesture_recognizer", streams: Self.streams)
    }
}
