import Foundation
import FrameFlow

/// Keeps the best frame of each tracked object, as Frigate picks an event's snapshot: a box
/// that does not touch the frame's edge beats one that does (a cut-off object), and otherwise
/// the higher score × area wins. Whenever a track's best improves, it emits an
/// `ObjectSnapshot` with the frame, the crop (the box grown by `crop_margin` of its size on each
/// side, inside the frame) and the frame annotated with the box and "label score".
///
/// A box is on the edge when it comes within `edge_threshold` pixels of a side. Tracks not seen
/// for `forget_seconds` are forgotten (a new track with the same id starts afresh).
///
/// Inputs:
///   - `IMAGE`: `ImageFrame`, the frame (packed: rgba8, bgra8, rgb8, gray8).
///   - `DETECTIONS`: `[Detection]`, the frame's tracked detections (`detection_id` = track
///     id, as `ObjectTrackerCalculator` emits them); detections without id are ignored;
///     relative boxes are scaled by the frame's size.
/// Outputs:
///   - `SNAPSHOTS`: `[ObjectSnapshot]`, the tracks whose best frame this is (only when one is).
/// Options: `frameflow.SnapshotSelectorCalculatorOptions` { edge_threshold (5 pixels,
/// 0…100000), crop_margin (0.2 of the box's size, 0…10), min_score (0, 0…1), forget_seconds
/// (60, 0.001…1000000), box_thickness (2, 1…64), text_scale (2, 1…16) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SnapshotSelectorCalculator"
///   input_stream: "IMAGE:input_video"
///   input_stream: "DETECTIONS:tracked_people"
///   output_stream: "SNAPSHOTS:snapshots"
///   options { [frameflow.SnapshotSelectorCalculatorOptions.ext] { crop_margin: 0.25 } }
/// }
/// ```
public final class SnapshotSelectorCalculator: Calculator {
    /// How snapshots are chosen and drawn.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.SnapshotSelectorCalculatorOptions"
        /// Pixels from a side within which a box counts as cut off by the edge.
        public var edgeThreshold = 5.0
        /// The crop's margin around the box, as a fraction of the box's width (left and right)
        /// and height (top and bottom).
        public var cropMargin = 0.2
        /// Detections scoring below it are never a snapshot.
        public var minScore = 0.0
        /// Seconds (of timestamps) after which an unseen track is forgotten.
        public var forgetSeconds = 60.0
        /// The annotated box's line width in pixels.
        public var boxThickness = 2
        /// The label's size (multiples of the 5×7 font).
        public var textScale = 2
        public init() {}

        /// Checks the values (called by the graph before `init`).
        public func validate() throws {
            try OptionCheck.range(edgeThreshold, 0...100_000, "edge_threshold")
            try OptionCheck.range(cropMargin, 0...10, "crop_margin")
            try OptionCheck.range(minScore, 0...1, "min_score")
            try OptionCheck.range(forgetSeconds, 0.001...1_000_000, "forget_seconds")
            try OptionCheck.range(boxThickness, 1...64, "box_thickness")
            try OptionCheck.range(textScale, 1...16, "text_scale")
        }
    }

    /// The frame.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The frame's tracked detections.
    public static let detections = InputPort<[Detection]>("DETECTIONS")
    /// New best snapshots.
    public static let snapshots = OutputPort<[ObjectSnapshot]>("SNAPSHOTS")

    public static let contract = CalculatorContract(ports: [image, detections, snapshots])

    /// What a track's best frame was judged by.
    struct Best {
        var score: Double
        var area: Double
        var onEdge: Bool
        var lastSeen: Int64
    }

    private let options: Options
    private var best: [Int: Best] = [:]

    public init(options: Options) { self.options = options }

    /// Whether a box with `score`, `area` and `onEdge` beats `current` (Frigate's rule: not
    /// cut off first, then score × area).
    static func isBetter(score: Double, area: Double, onEdge: Bool, than current: Best) -> Bool {
        if onEdge != current.onEdge { return !onEdge }
        return score * area > current.score * current.area
    }

    /// Whether `box` comes within `threshold` pixels of a side of a `width` × `height` frame.
    static func isOnEdge(_ box: Rect, width: Int, height: Int, threshold: Double) -> Bool {
        box.x <= threshold || box.y <= threshold || box.maxX >= Double(width) - threshold || box.maxY >= Double(height) - threshold
    }

    /// The crop of `box` grown by `margin` of its size, in whole pixels inside the frame; nil
    /// when nothing of it is inside.
    static func cropRect(_ box: Rect, margin: Double, width: Int, height: Int) -> (x: Int, y: Int, w: Int, h: Int)? {
        let x0 = max(0, Int(saturating: (box.x - margin * box.width).rounded(.down)))
        let y0 = max(0, Int(saturating: (box.y - margin * box.height).rounded(.down)))
        let x1 = min(width, Int(saturating: (box.maxX + margin * box.width).rounded(.up)))
        let y1 = min(height, Int(saturating: (box.maxY + margin * box.height).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        return (x0, y0, x1 - x0, y1 - y0)
    }

    public func process(_ cc: CalculatorContext) throws {
        let now = cc.inputTimestamp.microseconds
        let forget = Int64(saturating: options.forgetSeconds * 1e6)
        best = best.filter { now - $0.value.lastSeen <= forget }
        guard let frame = try cc.value(Self.image), let detections = try cc.value(Self.detections) else { return }
        let stream = cc.inputStreamName(Self.image.tag)
        guard let layout = Kernels.layout(frame.format) else {
            throw GraphError(.calculatorFailed, "snapshots need a packed image (rgba8, bgra8, rgb8 or gray8), not \(frame.format)", stream: stream)
        }
        var out: [ObjectSnapshot] = []
        for d in detections {
            guard let id = d.detectionID else { continue }
            let box = d.box(inImageOfWidth: frame.width, height: frame.height)
            let values = [box.x, box.y, box.width, box.height, d.score]
            guard values.allSatisfy({ $0.isFinite && abs($0) <= 1e9 }), box.width > 0, box.height > 0 else { continue }
            let area = box.width * box.height
            let onEdge = Self.isOnEdge(box, width: frame.width, height: frame.height, threshold: options.edgeThreshold)
            if var current = best[id] {
                current.lastSeen = now
                best[id] = current
                guard Self.isBetter(score: d.score, area: area, onEdge: onEdge, than: current) else { continue }
            }
            guard d.score >= options.minScore,
                let r = Self.cropRect(box, margin: options.cropMargin, width: frame.width, height: frame.height)
            else { continue }
            best[id] = Best(score: d.score, area: area, onEdge: onEdge, lastSeen: now)
            let crop = try Self.crop(frame, r, bpp: layout.bpp, pool: cc.pool)
            let annotated = try annotate(frame, box, label: d.label, score: d.score, pool: cc.pool)
            out.append(
                ObjectSnapshot(
                    trackID: id, label: d.label, score: d.score, box: box, timestamp: cc.inputTimestamp, image: frame, crop: crop,
                    cropRect: Rect(x: Double(r.x), y: Double(r.y), width: Double(r.w), height: Double(r.h)), annotated: annotated))
        }
        if !out.isEmpty { try cc.emit(out, to: Self.snapshots) }
    }

    /// A copy of the pixels of `r`.
    static func crop(_ frame: ImageFrame, _ r: (x: Int, y: Int, w: Int, h: Int), bpp: Int, pool: ImagePool) throws -> ImageFrame {
        var m = try pool.makeImage(width: r.w, height: r.h, format: frame.format)
        for y in 0..<r.h {
            let src = frame.row(r.y + y)
            m.withMutableRow(y) { dst in
                dst.baseAddress!.update(from: src.baseAddress! + r.x * bpp, count: r.w * bpp)
            }
        }
        return m.freeze()
    }

    /// The frame with `box` outlined and "label score" written above it (inside when at the top).
    private func annotate(_ frame: ImageFrame, _ box: Rect, label: String?, score: Double, pool: ImagePool) throws -> ImageFrame {
        var canvas = AnnotationOverlayCalculator.Canvas(try frame.mutableCopy(pool: pool))
        let color = [255, 0, 0]
        let x0 = AnnotationOverlayCalculator.Canvas.pixel(box.x), y0 = AnnotationOverlayCalculator.Canvas.pixel(box.y)
        let x1 = AnnotationOverlayCalculator.Canvas.pixel(box.maxX) - 1, y1 = AnnotationOverlayCalculator.Canvas.pixel(box.maxY) - 1
        let t = options.boxThickness
        canvas.fill(x0, y0, x1, y0 + t - 1, color)
        canvas.fill(x0, y1 - t + 1, x1, y1, color)
        canvas.fill(x0, y0, x0 + t - 1, y1, color)
        canvas.fill(x1 - t + 1, y0, x1, y1, color)
        let text = [label, String(format: "%.2f", score)].compactMap { $0 }.joined(separator: " ")
        let s = options.textScale
        let tw = BitmapFont.textWidth(text, scale: s) + 2 * s, th = (BitmapFont.height + 2) * s
        let ty = y0 - th >= 0 ? y0 - th : y0
        canvas.fill(x0, ty, x0 + tw - 1, ty + th - 1, color)
        canvas.text(text, x: x0 + s, y: ty + s, scale: s, color: [255, 255, 255])
        return canvas.image.freeze()
    }
}
