import Foundation
import FrameFlow

/// Filmic tone mapping in linear light: each channel is decoded from sRGB, scaled by
/// `2^exposure`, mapped by the curve, and encoded back to sRGB.
///
/// - `HABLE` (the Uncharted 2 curve family): `f(x) = ((x(Ax+CB)+DE) / (x(Ax+B)+DF)) − E/F`,
///   normalized by `f(W)`; A shoulder strength, B linear strength, C linear angle, D toe
///   strength, E/F toe numerator/denominator, W linear white point.
/// - `ACES` (Narkowicz's fit): `x(2.51x + 0.03) / (x(2.43x + 0.59) + 0.14)`, clamped.
///
/// On 8-bit images the whole chain is a 256-entry table per option set.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8; alpha unchanged).
/// Outputs:
///   - `IMAGE`: the tone-mapped image.
/// Options: `frameflow.ToneMapCalculatorOptions` { curve (HABLE | ACES), exposure (0, stops,
/// −16…16), shoulder_strength (0.15), linear_strength (0.50), linear_angle (0.10), toe_strength
/// (0.20), toe_numerator (0.02) — each 0…10 —, toe_denominator (0.30, 0.001…10), linear_white
/// (11.2, 0.01…1000) }. HABLE also needs a defined curve: linear_strength and toe_strength not
/// both 0, and f(linear_white) > 0. With toe_strength 0, f(0) is the curve's
/// limit at 0 (its 0/0 divided out).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ToneMapCalculator"
///   input_stream: "IMAGE:in"
///   output_stream: "IMAGE:mapped"
///   options { [frameflow.ToneMapCalculatorOptions.ext] { curve: HABLE exposure: 1.0 } }
/// }
/// ```
public final class ToneMapCalculator: ImageFilterCalculator {
    public enum Curve: String, Codable, Sendable, CaseIterable {
        case hable = "HABLE"
        case aces = "ACES"
    }

    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ToneMapCalculatorOptions"
        public var curve = Curve.hable
        public var exposure = 0.0
        public var shoulderStrength = 0.15
        public var linearStrength = 0.50
        public var linearAngle = 0.10
        public var toeStrength = 0.20
        public var toeNumerator = 0.02
        public var toeDenominator = 0.30
        public var linearWhite = 11.2
        public init() {}
        public init(curve: Curve, exposure: Double = 0) {
            self.curve = curve
            self.exposure = exposure
        }

        public func validate() throws {
            try OptionCheck.range(exposure, -16...16, "exposure")
            try OptionCheck.range(shoulderStrength, 0...10, "shoulder_strength")
            try OptionCheck.range(linearStrength, 0...10, "linear_strength")
            try OptionCheck.range(linearAngle, 0...10, "linear_angle")
            try OptionCheck.range(toeStrength, 0...10, "toe_strength")
            try OptionCheck.range(toeNumerator, 0...10, "toe_numerator")
            try OptionCheck.range(toeDenominator, 0.001...10, "toe_denominator")
            try OptionCheck.range(linearWhite, 0.01...1000, "linear_white")
            guard curve == .hable else { return }
            guard linearStrength > 0 || toeStrength > 0 else {
                throw GraphError(.invalidOption, "linear_strength and toe_strength must not both be 0 (the curve is 0/0 at 0)")
            }
            guard ToneMapCalculator.hable(linearWhite, self) > 0 else {
                throw GraphError(.invalidOption, "linear_white must be where the curve is above 0, not \(linearWhite)")
            }
        }
    }

    private var table: [UInt8]

    public init(options: Options) throws { table = try Self.table(options) }
    public func update(options: Options) throws { table = try Self.table(options) }

    /// The curve on linear values (before sRGB encoding).
    public static func curve(_ x: Double, _ o: Options) -> Double {
        switch o.curve {
        case .aces:
            return min(max(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0), 1)
        case .hable:
            return min(max(hable(x, o) / hable(o.linearWhite, o), 0), 1)
        }
    }

    /// The unnormalized Hable curve. With toe_strength 0 both terms of the fraction have a
    /// factor x, divided out: at x = 0 that gives the curve's limit instead of 0/0.
    static func hable(_ x: Double, _ o: Options) -> Double {
        let (a, b, c, d, e, f) = (o.shoulderStrength, o.linearStrength, o.linearAngle, o.toeStrength, o.toeNumerator, o.toeDenominator)
        if d == 0 { return (a * x + c * b) / (a * x + b) - e / f }
        return ((x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f)) - e / f
    }

    public static func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    public static func linearToSRGB(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// The 8-bit → 8-bit table for `options`.
    public static func table(_ o: Options) throws -> [UInt8] {
        try o.validate()
        let gain = pow(2, o.exposure)
        return (0..<256).map { i in
            let lin = srgbToLinear(Double(i) / 255) * gain
            return UInt8(saturating: (linearToSRGB(curve(lin, o)) * 255).rounded())
        }
    }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.apply(table, to: image, pool: cc.pool, context: cc)
    }

    /// `input` with `table` applied to every colour channel.
    public static func apply(_ table: [UInt8], to input: ImageFrame, pool: ImagePool = .shared, context: CalculatorContext? = nil) throws
        -> ImageFrame
    {
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "ToneMapCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width
        Kernels.rows(input.height, context) { rows in
            table.withUnsafeBufferPointer { t in
                for y in rows {
                    let s = Kernels.rowPointer(input, y), d = Kernels.rowPointer(out, y)
                    let n = w * l.bpp
                    for i in 0..<n { d[i] = t[Int(s[i])] }
                    guard l.a >= 0 else { continue }
                    // Alpha copied back pixel by pixel (a `%` per byte to skip it would be a
                    // division per byte).
                    var i = l.a
                    while i < n {
                        d[i] = s[i]
                        i &+= l.bpp
                    }
                }
            }
        }
        return out.freeze()
    }
}
