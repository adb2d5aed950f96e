import Foundation
import FrameFlow

/// Scales, shifts and squares rectangles, as MediaPipe's `RectTransformationCalculator`: how
/// a detection's rect grows into the region a landmark model crops (e.g. palm → hand).
///
/// For each rect, in this order:
///   1. the rotation that steers the shift is the rect's, plus `rotation` (radians) or
///      `rotation_degrees` when set, normalized to [−π, π). As in MediaPipe, the output rect
///      keeps its input rotation: the added rotation only turns the shift;
///   2. the centre moves by `shift_x` × width along the rect's own x side and `shift_y` ×
///      height along its y side (turned by that rotation; for normalized rects the turn is
///      done in pixels of `IMAGE_SIZE`, so it stays a true rotation on non-square images);
///   3. `square_long` / `square_short` make both sides the longer / shorter one (compared in
///      pixels for normalized rects);
///   4. width × `scale_x`, height × `scale_y`.
/// Pixel rects (`RECT(S)`) are computed in single precision and truncated to integers, as
/// MediaPipe's `int32` fields take them.
///
/// Inputs (exactly one of the rect ports):
///   - `NORM_RECT`: `NormalizedRect`, or `NORM_RECTS`: `[NormalizedRect]` (both need `IMAGE_SIZE`).
///   - `RECT`: `RotatedRect`, or `RECTS`: `[RotatedRect]` (pixels).
///   - `IMAGE_SIZE`: `ImageSize`; a timestamp without one gives no normalized output.
/// Outputs:
///   - (untagged) the transformed rect(s), of the input's type.
/// Options: `mediapipe.RectTransformationCalculatorOptions` { scale_x (1), scale_y (1) (each
///   0…1000), rotation (−10…10 radians) | rotation_degrees (−360…360) (at most one), shift_x
///   (0), shift_y (0) (each −1000…1000), square_long | square_short (at most one set) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RectTransformationCalculator"
///   input_stream: "NORM_RECT:palm_rect"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "hand_rect"
///   options {
///     [mediapipe.RectTransformationCalculatorOptions.ext] {
///       scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true
///     }
///   }
/// }
/// ```
public final class RectTransformationCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RectTransformationCalculatorOptions"
        /// mediapipe/calculators/util/rect_transformation_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.rectTransformationCalculatorOptions }

        /// Factor on the rect's x side.
        public var scaleX = 1.0
        /// Factor on the rect's y side.
        public var scaleY = 1.0
        /// Rotation added for the shift, radians.
        public var rotation: Double?
        /// The same in degrees.
        public var rotationDegrees: Int?
        /// Centre shift along the rect's x side, in widths.
        public var shiftX = 0.0
        /// Centre shift along the rect's y side, in heights.
        public var shiftY = 0.0
        /// Make the rect a square with its longer side (set at most one of the two).
        public var squareLong: Bool?
        /// Make the rect a square with its shorter side.
        public var squareShort: Bool?
        public init() {}

        /// The added rotation in radians, when one is set.
        var addedRotation: Double? { rotation ?? rotationDegrees.map { Double.pi * Double($0) / 180 } }

        public func validate() throws {
            try OptionCheck.range(scaleX, 0...1000, "scale_x")
            try OptionCheck.range(scaleY, 0...1000, "scale_y")
            try OptionCheck.range(shiftX, -1000...1000, "shift_x")
            try OptionCheck.range(shiftY, -1000...1000, "shift_y")
            if let rotation { try OptionCheck.range(rotation, -10...10, "rotation") }
            if let rotationDegrees { try OptionCheck.range(rotationDegrees, -360...360, "rotation_degrees") }
            if rotation != nil, rotationDegrees != nil {
                throw GraphError(.invalidOption, "set at most one of rotation and rotation_degrees")
            }
            if squareLong != nil, squareShort != nil {
                throw GraphError(.invalidOption, "set at most one of square_long and square_short")
            }
        }
    }

    static let tags = ["NORM_RECT", "NORM_RECTS", "RECT", "RECTS"]

    public static let contract = CalculatorContract(
        inputs: [
            PortSpec("NORM_RECT", NormalizedRect.self, optional: true), PortSpec("NORM_RECTS", [NormalizedRect].self, optional: true),
            PortSpec("RECT", RotatedRect.self, optional: true), PortSpec("RECTS", [RotatedRect].self, optional: true),
            PortSpec("IMAGE_SIZE", ImageSize.self, optional: true),
        ],
        outputs: [PortSpec("")])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let connected = try cc.connectedInputTag(oneOf: Self.tags)
        if connected.hasPrefix("NORM"), !cc.hasInputPort("IMAGE_SIZE") {
            throw GraphError(.invalidPort, "\(connected) needs the IMAGE_SIZE input", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        if cc.hasInput("RECT") { try cc.emit(transform(try cc.input("RECT", as: RotatedRect.self))) }
        if cc.hasInput("RECTS") { try cc.emit(try cc.input("RECTS", as: [RotatedRect].self).map(transform)) }
        guard cc.hasInput("IMAGE_SIZE") else { return }
        let size = try cc.input("IMAGE_SIZE", as: ImageSize.self)
        if cc.hasInput("NORM_RECT") { try cc.emit(transform(try cc.input("NORM_RECT", as: NormalizedRect.self), in: size)) }
        if cc.hasInput("NORM_RECTS") {
            try cc.emit(try cc.input("NORM_RECTS", as: [NormalizedRect].self).map { transform($0, in: size) })
        }
    }

    /// The rotation the shift uses.
    private func shiftRotation(_ rotation: Double) -> Double {
        guard let added = options.addedRotation else { return rotation }
        return normalizeRadians(rotation + added)
    }

    /// `rect` transformed, in pixels (single precision, truncated as MediaPipe's `int32` fields).
    public func transform(_ rect: RotatedRect) -> RotatedRect {
        var out = rect
        var width = Float(rect.width), height = Float(rect.height)
        let rotation = Float(shiftRotation(Double(Float(rect.rotation))))
        let sx = Float(options.shiftX), sy = Float(options.shiftY)
        if rotation == 0 {
            out.xCenter = Self.truncated(Float(rect.xCenter) + width * sx)
            out.yCenter = Self.truncated(Float(rect.yCenter) + height * sy)
        } else {
            let dx = width * sx * cos(rotation) - height * sy * sin(rotation)
            let dy = width * sx * sin(rotation) + height * sy * cos(rotation)
            out.xCenter = Self.truncated(Float(rect.xCenter) + dx)
            out.yCenter = Self.truncated(Float(rect.yCenter) + dy)
        }
        if options.squareLong == true {
            (width, height) = (max(width, height), max(width, height))
        } else if options.squareShort == true {
            (width, height) = (min(width, height), min(width, height))
        }
        out.width = Self.truncated(width * Float(options.scaleX))
        out.height = Self.truncated(height * Float(options.scaleY))
        return out
    }

    /// `rect` transformed on an image of `size`.
    public func transform(_ rect: NormalizedRect, in size: ImageSize) -> NormalizedRect {
        var out = rect
        var width = rect.width, height = rect.height
        let rotation = shiftRotation(rect.rotation)
        let w = Double(size.width), h = Double(size.height)
        if rotation == 0 {
            out.xCenter += width * options.shiftX
            out.yCenter += height * options.shiftY
        } else {
            // The shift in pixels, turned, then back to fractions of the image.
            let px = w * width * options.shiftX, py = h * height * options.shiftY
            out.xCenter += (px * cos(rotation) - py * sin(rotation)) / w
            out.yCenter += (px * sin(rotation) + py * cos(rotation)) / h
        }
        if options.squareLong == true {
            let side = max(width * w, height * h)
            (width, height) = (side / w, side / h)
        } else if options.squareShort == true {
            let side = min(width * w, height * h)
            (width, height) = (side / w, side / h)
        }
        out.width = width * options.scaleX
        out.height = height * options.scaleY
        return out
    }

    /// A float as a C++ `int32` field takes it: truncated toward zero (0 when not finite).
    static func truncated(_ value: Float) -> Int {
        guard value.isFinite else { return 0 }
        return Int(saturating: value.rounded(.towardZero))
    }
}
