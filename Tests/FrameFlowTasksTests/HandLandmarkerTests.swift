import FrameFlow
import FrameFlowTasks
import Testing

/// `HandLandmarker` and `GestureRecognizer` on the fixture photos against MediaPipe Tasks: the
/// same hands, landmarks within 0.5 % of the width, handedness and gesture names equal,
/// scores within 0.01.
@Suite struct HandLandmarkerTests {
    /// Each of MediaPipe's hands matched with the nearest of ours: (ours, theirs, distance).
    static func match(_ ours: [[NormalizedLandmark]], _ theirs: [[String: Any]], _ image: ImageFrame) -> [(Int, [String: Any], Double)] {
        theirs.compactMap { t in
            let flat = (t["landmarks"] as? [Double]) ?? []
            let best = ours.indices.min {
                TaskFixtures.meanDistance(ours[$0], flat, width: image.width, height: image.height)
                    < TaskFixtures.meanDistance(ours[$1], flat, width: image.width, height: image.height)
            }
            return best.map { ($0, t, TaskFixtures.meanDistance(ours[$0], flat, width: image.width, height: image.height)) }
        }
    }

    @Test func handsOfThePhotos() throws {
        var options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try TaskFixtures.model("hand_landmarker.task")
        options.numHands = 4
        let landmarker = try HandLandmarker(options: options)
        var hands = 0
        for photo in try TaskFixtures.photos("hand_landmarker") {
            let result = try landmarker.detect(image: photo.image)
            let want = photo.frame["hands"] as? [[String: Any]] ?? []
            #expect(result.landmarks.count == want.count && result.worldLandmarks.count == want.count, "\(photo.source)")
            for (k, t, d) in Self.match(result.landmarks, want, photo.image) {
                hands += 1
                #expect(d <= 0.005, "\(photo.source): landmarks \(d) off")
                let side = ((t["handedness"] as? [[Any]])?.first?[2] as? String) ?? ""
                #expect(result.handedness[k].first?.categoryName == side, "\(photo.source): \(result.handedness[k]) vs \(side)")
            }
        }
        #expect(hands >= 6, "\(hands) hands compared")
    }

    @Test func gesturesOfThePhotos() throws {
        var options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try TaskFixtures.model("gesture_recognizer.task")
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)
        var compared = 0
        for photo in try TaskFixtures.photos("gesture_recognizer") {
            let result = try recognizer.recognize(image: photo.image)
            let want = photo.frame["hands"] as? [[String: Any]] ?? []
            #expect(result.gestures.count == want.count, "\(photo.source): \(result.gestures.count) hands, MediaPipe \(want.count)")
            for (k, t, _) in Self.match(result.landmarks, want, photo.image) {
                guard let g = (t["gestures"] as? [[Any]])?.first, let name = g[2] as? String, let score = g[1] as? Double else { continue }
                compared += 1
                #expect(result.gestures[k].first?.categoryName == name, "\(photo.source): \(result.gestures[k]) vs \(name)")
                #expect(abs(Double(result.gestures[k].first?.score ?? -1) - score) <= 0.01, "\(photo.source): score")
            }
        }
        #expect(compared >= 4, "\(compared) gestures compared")
    }
}
