import FrameFlow
import FrameFlowTasks
import Testing

/// `PoseLandmarker` and `ImageSegmenter` on the fixture photos against MediaPipe Tasks: the
/// same people, landmarks within 0.5 % of the width, masks with MediaPipe's mean within 0.02.
@Suite struct PoseLandmarkerTests {
    static func mean(_ mask: ImageFrame) -> Double {
        var sum = 0.0
        for y in 0..<mask.height {
            mask.row(y).withUnsafeBytes { raw in for v in raw.bindMemory(to: Float.self) { sum += Double(v) } }
        }
        return sum / Double(mask.width * mask.height)
    }

    @Test func peopleOfThePhotos() throws {
        var options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try TaskFixtures.model("pose_landmarker_full.task")
        options.numPoses = 3
        options.outputSegmentationMasks = true
        let landmarker = try PoseLandmarker(options: options)
        var poses = 0
        for photo in try TaskFixtures.photos("pose_landmarker") {
            let result = try landmarker.detect(image: photo.image)
            let want = photo.frame["poses"] as? [[String: Any]] ?? []
            #expect(result.landmarks.count == want.count && result.segmentationMasks?.count == want.count, "\(photo.source)")
            for t in want {
                let flat = (t["landmarks"] as? [Double]) ?? []
                let d = result.landmarks.map { TaskFixtures.meanDistance($0, flat, width: photo.image.width, height: photo.image.height) }
                guard let k = d.indices.min(by: { d[$0] < d[$1] }) else { continue }
                poses += 1
                #expect(d[k] <= 0.005, "\(photo.source): landmarks \(d[k]) off")
                if let m = t["mask_mean"] as? Double, let mask = result.segmentationMasks?[k] {
                    #expect(mask.width == photo.image.width && abs(Self.mean(mask) - m) <= 0.02, "\(photo.source): mask mean")
                }
            }
        }
        #expect(poses >= 5, "\(poses) poses compared")
    }

    @Test func selfieMasksOfThePhotos() throws {
        var options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = try TaskFixtures.model("selfie_segmenter.tflite")
        options.shouldOutputCategoryMask = true
        let segmenter = try ImageSegmenter(options: options)
        for photo in try TaskFixtures.photos("image_segmenter") {
            let result = try segmenter.segment(image: photo.image)
            let want = (photo.frame["confidence_masks"] as? [[String: Any]])?.first?["mean"] as? Double
            let mask = try #require(result.confidenceMasks?.first, "\(photo.source): no confidence mask")
            #expect(mask.width == photo.image.width && mask.height == photo.image.height)
            #expect(abs(Self.mean(mask) - (want ?? -1)) <= 0.02, "\(photo.source): mean \(Self.mean(mask)) vs \(want ?? -1)")
            #expect(result.categoryMask?.width == photo.image.width)
        }
    }
}
