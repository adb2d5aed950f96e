import Foundation
import FrameFlow

/// Drops hands that duplicate an earlier one, as MediaPipe Tasks'
/// `HandLandmarksDeduplicationCalculator` (after HandLandmarkerGraph's landmark loop: two
/// ROIs can land on one hand). Hands are taken in order; a hand is dropped when, against some
/// hand already kept, at least 10 of its 21 landmarks lie closer (in pixels, x and y only)
/// than 0.2 × the larger of the two hands' baselines **and** the two landmark bounding boxes
/// have IoU above 0.2. A hand's baseline is the longest side of its wrist (0) – index MCP (5) –
/// pinky MCP (17) triangle, in pixels. Distances are in single precision.
///
/// The other lists are filtered alike, entry for entry. When nothing is dropped every input
/// goes out as it came; when something is, an output list left empty is not sent (as
/// MediaPipe). Nothing is sent without `MULTI_LANDMARKS` and `IMAGE_SIZE`.
///
/// Inputs: `MULTI_LANDMARKS` ([NormalizedLandmarkList], 21 points each), `IMAGE_SIZE`
///   (ImageSize); optional, each as long as `MULTI_LANDMARKS`: `MULTI_ROIS`
///   ([NormalizedRect]), `MULTI_WORLD_LANDMARKS` ([LandmarkList]), `MULTI_CLASSIFICATIONS`
///   ([ClassificationList]).
/// Outputs: the same tags, filtered.
/// A hand without 21 landmarks, or a list of another length, is an error naming the node.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HandLandmarksDeduplicationCalculator"
///   input_stream: "MULTI_LANDMARKS:every_landmarks"
///   input_stream: "MULTI_CLASSIFICATIONS:every_handedness"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "MULTI_LANDMARKS:landmarks"
///   output_stream: "MULTI_CLASSIFICATIONS:handedness"
/// }
/// ```
public final class HandLandmarksDeduplicationCalculator: Calculator {
    /// Each hand's landmarks.
    public static let landmarks = InputPort<[NormalizedLandmarkList]>("MULTI_LANDMARKS")
    /// The image the landmarks are normalised to.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// Each hand's ROI.
    public static let rois = InputPort<[NormalizedRect]>("MULTI_ROIS", optional: true)
    /// Each hand's world landmarks.
    public static let worldLandmarks = InputPort<[LandmarkList]>("MULTI_WORLD_LANDMARKS", optional: true)
    /// Each hand's classifications (handedness).
    public static let classifications = InputPort<[ClassificationList]>("MULTI_CLASSIFICATIONS", optional: true)
    /// The kept hands' landmarks.
    public static let outLandmarks = OutputPort<[NormalizedLandmarkList]>("MULTI_LANDMARKS", optional: true)
    /// The kept hands' ROIs.
    public static let outRois = OutputPort<[NormalizedRect]>("MULTI_ROIS", optional: true)
    /// The kept hands' world landmarks.
    public static let outWorldLandmarks = OutputPort<[LandmarkList]>("MULTI_WORLD_LANDMARKS", optional: true)
    /// The kept hands' classifications.
    public static let outClassifications = OutputPort<[ClassificationList]>("MULTI_CLASSIFICATIONS", optional: true)

    public static let contract = CalculatorContract(ports: [
        landmarks, imageSize, rois, worldLandmarks, classifications, outLandmarks, outRois, outWorldLandmarks,
        outClassifications,
    ])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let hands = try cc.value(Self.landmarks), let size = try cc.value(Self.imageSize) else { return }
        let drop: Set<Int>
        do {
            drop = try Self.duplicates(hands, width: size.width, height: size.height)
        } catch var e as GraphError {
            e.node = cc.nodeName
            throw e
        }
        func filtered<T>(_ port: InputPort<[T]>, _ out: OutputPort<[T]>) throws {
            guard cc.isConnected(out), let list = try cc.value(port) else { return }
            if drop.isEmpty { return try cc.emit(list, to: out) }
            guard list.count == hands.count else {
                throw GraphError(
                    .calculatorFailed, "\(port.tag) has \(list.count) entries for \(hands.count) hands", node: cc.nodeName)
            }
            let kept = list.indices.filter { !drop.contains($0) }.map { list[$0] }
            if !kept.isEmpty { try cc.emit(kept, to: out) }
        }
        try filtered(Self.landmarks, Self.outLandmarks)
        try filtered(Self.rois, Self.outRois)
        try filtered(Self.worldLandmarks, Self.outWorldLandmarks)
        try filtered(Self.classifications, Self.outClassifications)
    }

    /// The indexes of the hands of `hands` that duplicate an earlier kept one.
    static func duplicates(_ hands: [NormalizedLandmarkList], width: Int, height: Int) throws -> Set<Int> {
        for (i, h) in hands.enumerated() where h.landmark.count != 21 {
            throw GraphError(.calculatorFailed, "hand \(i) has \(h.landmark.count) landmarks, not 21")
        }
        let (w, hgt) = (Float(width), Float(height))
        func distance(_ a: NormalizedLandmark, _ b: NormalizedLandmark) -> Float {
            let dx = (Float(a.x) - Float(b.x)) * w, dy = (Float(a.y) - Float(b.y)) * hgt
            return (dx * dx + dy * dy).squareRoot()
        }
        let baselines = hands.map { h -> Float in
            let p = h.landmark
            return max(distance(p[0], p[5]), distance(p[5], p[17]), distance(p[17], p[0]))
        }
        let bounds = hands.map { h -> (Float, Float, Float, Float) in
            let xs = h.landmark.map { Float($0.x) }, ys = h.landmark.map { Float($0.y) }
            return (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
        }
        func iou(_ a: (Float, Float, Float, Float), _ b: (Float, Float, Float, Float)) -> Float {
            let areaA = (a.2 - a.0) * (a.3 - a.1), areaB = (b.2 - b.0) * (b.3 - b.1)
            guard areaA > 0, areaB > 0 else { return 0 }
            let inter = max(min(a.3, b.3) - max(a.1, b.1), 0) * max(min(a.2, b.2) - max(a.0, b.0), 0)
            return inter / (areaA + areaB - inter)
        }
        var kept: [Int] = []
        var dropped: Set<Int> = []
        for i in hands.indices {
            let duplicate = kept.contains { j in
                let threshold = max(baselines[i], baselines[j]) * 0.2
                let close = zip(hands[i].landmark, hands[j].landmark).filter { distance($0, $1) < threshold }.count
                return close >= 10 && iou(bounds[i], bounds[j]) > 0.2
            }
            if duplicate { dropped.insert(i) } else { kept.append(i) }
        }
        return dropped
    }
}
