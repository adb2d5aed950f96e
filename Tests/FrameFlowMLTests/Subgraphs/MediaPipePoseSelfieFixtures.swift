import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

/// MediaPipe's own Pose and Selfie Segmentation results (Tests/Fixtures/mediapipe/pose.json,
/// selfie_segmentation.json and masks/, from scripts/fixtures/make_mediapipe_pose_selfie_fixtures.py,
/// whose docstring gives the schema) and the means to compare masks.
enum PoseSelfieFixtures {
    struct Pose: Decodable {
        /// 33 × (x, y, z, visibility, presence), x and y normalised by the image size.
        var landmarks: [Float]
        /// 33 × (x, y, z, visibility), in metres.
        var world_landmarks: [Float]
    }
    struct Frame: Decodable {
        var index: Int
        var pose: Pose?
        /// A mask PNG's path under Tests/Fixtures/mediapipe (stored for some frames only).
        var mask: String?
        /// The mean of MediaPipe's float mask (every frame that has a mask).
        var mask_mean: Float?
    }
    struct Run: Decodable {
        var source: String
        var path: String
        var width: Int
        var height: Int
        var static_image_mode: Bool
        /// Checksums of the RGB bytes MediaPipe was given (see `rgbSums`).
        var rgb_sums: [String]?
        var model_complexity: Int?
        var smooth_landmarks: Bool?
        var enable_segmentation: Bool?
        var smooth_segmentation: Bool?
        var use_prev_landmarks: Bool?
        var model_selection: Int?
        var frames: [Frame]
    }
    struct File: Decodable { var runs: [Run] }

    static func runs(_ file: String) -> [Run] {
        guard let data = FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/\(file).json")),
            let f = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return f.runs
    }
    static let pose = runs("pose")
    static let selfieSegmentation = runs("selfie_segmentation")

    /// The pose landmarks of a fixture frame as a list (visibility and presence included).
    static func landmarks(_ pose: Pose) -> NormalizedLandmarkList {
        let v = pose.landmarks.map(Double.init)
        return NormalizedLandmarkList(
            stride(from: 0, to: v.count - 4, by: 5).map { i in
                NormalizedLandmark(x: v[i], y: v[i + 1], z: v[i + 2], visibility: v[i + 3], presence: v[i + 4])
            })
    }

    /// The world landmarks of a fixture frame as a list (visibility included).
    static func worldLandmarks(_ pose: Pose) -> LandmarkList {
        let v = pose.world_landmarks.map(Double.init)
        return LandmarkList(
            stride(from: 0, to: v.count - 3, by: 4).map { i in Landmark(x: v[i], y: v[i + 1], z: v[i + 2], visibility: v[i + 3]) })
    }

    /// x, y, z of each landmark, the layout `MediaPipeSolutionFixtures.distance` takes.
    static func xyz(_ pose: Pose) -> [Float] {
        stride(from: 0, to: pose.landmarks.count - 4, by: 5).flatMap { pose.landmarks[$0..<($0 + 3)] }
    }

    /// The fixtures' checksums of `images`' bytes (rgb8, row by row, frame after frame), as 16
    /// hex digits: their sum, and the sum of byte i times i + 1, both modulo 2^64.
    static func rgbSums(_ images: [ImageFrame]) -> [String] {
        var sum: UInt64 = 0, weighted: UInt64 = 0, i: UInt64 = 0
        for image in images {
            for y in 0..<image.height {
                for b in image.row(y) {
                    i &+= 1
                    sum &+= UInt64(b)
                    weighted &+= UInt64(b) &* i
                }
            }
        }
        return [sum, weighted].map { String(repeating: "0", count: 16 - String($0, radix: 16).count) + String($0, radix: 16) }
    }

    /// A stored mask, row by row, as floats in [0, 1] (the PNG holds round(value × 255)).
    static func mask(_ relative: String) throws -> (width: Int, height: Int, values: [Float]) {
        let path = RepositoryFiles.fixture("mediapipe/" + relative)
        let source = try MediaSource(path, options: .init(pixelFormat: .gray8))
        let image = try #require(try source.read()?.image, "\(path): no picture")
        var values: [Float] = []
        values.reserveCapacity(image.width * image.height)
        for y in 0..<image.height { values += image.row(y).prefix(image.width).map { Float($0) / 255 } }
        return (image.width, image.height, values)
    }

    /// Intersection over union of the two masks thresholded at 0.5 (1 when both are empty),
    /// and their mean absolute difference.
    static func compare(_ ours: [Float], _ theirs: [Float]) -> (iou: Double, mad: Double) {
        guard ours.count == theirs.count, !ours.isEmpty else { return (0, .infinity) }
        var both = 0, either = 0, sum = 0.0
        for (a, b) in zip(ours, theirs) {
            let p = a > 0.5, q = b > 0.5
            if p && q { both += 1 }
            if p || q { either += 1 }
            sum += Double(abs(a - b))
        }
        return (either == 0 ? 1 : Double(both) / Double(either), sum / Double(ours.count))
    }

    /// A float image's pixels row by row (one channel).
    static func values(_ image: ImageFrame) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(image.width * image.height)
        for y in 0..<image.height {
            image.row(y).withUnsafeBytes { raw in out += raw.bindMemory(to: Float.self).prefix(image.width) }
        }
        return out
    }
}
