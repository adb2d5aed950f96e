import Foundation
import FrameFlow

/// The rect around a hand's landmarks, turned upright, as MediaPipe's
/// `HandLandmarksToRectCalculator`: where the hand landmark model looks in the next frame.
///
/// Of a full set of 21 landmarks only the wrist and the first two joints of each finger are
/// used (indices 0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18); any other count is taken as that
/// subset already chosen (MediaPipe's legacy input), and needs at least 9 landmarks.
///
/// In pixels of `IMAGE_SIZE` (y down), with the subset's indices:
///   - rotation = normalize(π/2 − atan2(−(y₁ − y₀), x₁ − x₀)), from the wrist (0) to the
///     midpoint of the middle-finger MCP (6) and the mean of the index (4) and ring (8) MCPs,
///     so that this vector points up after rotation;
///   - the landmarks, taken about the centre of their axis-aligned box and turned by
///     −rotation, give a box whose centre (turned back) is the rect's centre and whose sides
///     (over the image's width and height) are its width and height.
/// As in MediaPipe, everything is single precision, and both boxes start their maxima at
/// `Float.leastNormalMagnitude` (C's `FLT_MIN`), not at the lowest float: for landmarks wholly
/// left of or above the image the box reaches to 0.
///
/// A timestamp without landmarks gives nothing; landmarks without an `IMAGE_SIZE` packet are
/// an error.
///
/// Inputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`, a hand's landmarks.
///   - `IMAGE_SIZE`: `ImageSize`.
/// Outputs:
///   - `NORM_RECT`: `NormalizedRect`, rotation set.
/// Options: none.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HandLandmarksToRectCalculator"
///   input_stream: "NORM_LANDMARKS:hand_landmarks"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "NORM_RECT:hand_rect_from_landmarks"
/// }
/// ```
public final class HandLandmarksToRectCalculator: Calculator {
    /// The hand's landmarks.
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS")
    /// The image size the landmarks are relative to.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// The rect around the hand.
    public static let normRect = OutputPort<NormalizedRect>("NORM_RECT")

    public static let contract = CalculatorContract(ports: [landmarks, imageSize, normRect])

    /// The landmarks of a full hand that the rect is made from.
    static let partialIndices = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.landmarks) else { return }
        guard cc.has(Self.imageSize) else {
            throw GraphError(
                .calculatorFailed, "landmarks at \(cc.inputTimestamp) came without an IMAGE_SIZE packet", node: cc.nodeName,
                stream: cc.inputStreamName(Self.imageSize.tag))
        }
        let list = try cc.get(Self.landmarks)
        let size = try cc.get(Self.imageSize)
        do {
            try cc.emit(try Self.rect(list.landmark, imageSize: size), to: Self.normRect)
        } catch var e as GraphError {
            e.node = cc.nodeName
            e.stream = cc.inputStreamName(Self.landmarks.tag)
            throw e
        }
    }

    /// The rect around `landmarks` (21, or the 12-landmark subset) on an image of `imageSize`.
    /// - Throws: `GraphError(.calculatorFailed)` for fewer than 9 landmarks.
    public static func rect(_ landmarks: [NormalizedLandmark], imageSize: ImageSize) throws -> NormalizedRect {
        let chosen = landmarks.count == 21 ? partialIndices.map { landmarks[$0] } : landmarks
        guard chosen.count >= 9 else {
            throw GraphError(
                .calculatorFailed, "a hand needs 21 landmarks (or the 12 of the legacy subset), got \(landmarks.count)")
        }
        let xs = chosen.map { Float($0.x) }, ys = chosen.map { Float($0.y) }
        let w = Float(imageSize.width), h = Float(imageSize.height)

        // Wrist → middle of the middle MCP and the mean of the index and ring MCPs.
        let x0 = xs[0] * w, y0 = ys[0] * h
        let x1 = ((xs[4] + xs[8]) / 2 + xs[6]) / 2 * w
        let y1 = ((ys[4] + ys[8]) / 2 + ys[6]) / 2 * h
        let rotation = normalized(Float(Double.pi * 0.5) - atan2(-(y1 - y0), x1 - x0))
        let reverse = normalized(-rotation)

        let (minX, maxX) = bounds(xs), (minY, maxY) = bounds(ys)
        let centerX = (maxX + minX) / 2, centerY = (maxY + minY) / 2
        let c = cos(reverse), s = sin(reverse)
        let px = zip(xs, ys).map { x, y in ((x - centerX) * w) * c - ((y - centerY) * h) * s }
        let py = zip(xs, ys).map { x, y in ((x - centerX) * w) * s + ((y - centerY) * h) * c }
        let (minPX, maxPX) = bounds(px), (minPY, maxPY) = bounds(py)
        let boxX = (maxPX + minPX) / 2, boxY = (maxPY + minPY) / 2
        let rc = cos(rotation), rs = sin(rotation)
        let outX = boxX * rc - boxY * rs + w * centerX
        let outY = boxX * rs + boxY * rc + h * centerY
        return NormalizedRect(
            xCenter: Double(outX / w), yCenter: Double(outY / h), width: Double((maxPX - minPX) / w),
            height: Double((maxPY - minPY) / h), rotation: Double(rotation))
    }

    /// Minimum and maximum as MediaPipe finds them: from `Float.greatestFiniteMagnitude` and
    /// `Float.leastNormalMagnitude`.
    private static func bounds(_ values: [Float]) -> (min: Float, max: Float) {
        var lo = Float.greatestFiniteMagnitude, hi = Float.leastNormalMagnitude
        for v in values {
            hi = max(hi, v)
            lo = min(lo, v)
        }
        return (lo, hi)
    }

    /// `angle` moved by whole turns into [−π, π), in double precision as MediaPipe's float
    /// overload of `NormalizeRadians` computes it.
    private static func normalized(_ angle: Float) -> Float {
        Float(normalizeRadians(Double(angle)))
    }
}
