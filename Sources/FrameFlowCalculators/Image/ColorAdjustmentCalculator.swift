import CFrameFlowKernels
import Foundation
import FrameFlow

/// Brightness, contrast, saturation, exposure and gamma — changeable while the graph runs.
///
/// On each colour channel c ∈ [0, 1], in this order:
///
///     c = c · 2^exposure
///     c = (c − 0.5) · contrast + 0.5 + brightness          (clamped to [0, 1])
///     c = L + (c − L) · saturation,  L = 0.2125 R + 0.7154 G + 0.0721 B   (clamped)
///     c = c^gamma
///
/// The tone curve (first two lines) is rounded to 8 bits, then saturation mixes in Float.
/// 4-byte pixels without gamma run as arithmetic in a vectorised loop; otherwise the tone
/// curve and gamma are 256-entry tables rebuilt when the options change. Alpha passes through.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (rgba8, bgra8, rgb8; gray8 ignores saturation).
/// Outputs:
///   - `IMAGE`: the adjusted image.
/// Options: `frameflow.ColorAdjustmentCalculatorOptions` { brightness (0, −1…1), contrast (1,
/// 0…100), saturation (1, 0…100), exposure (0, in stops, −10…10), gamma (1, 0.01…100) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ColorAdjustmentCalculator"
///   input_stream: "IMAGE:in"
///   output_stream: "IMAGE:adjusted"
///   options { [frameflow.ColorAdjustmentCalculatorOptions.ext] { contrast: 1.2 saturation: 1.3 } }
/// }
/// ```
public final class ColorAdjustmentCalculator: ImageFilterCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ColorAdjustmentCalculatorOptions"
        public var brightness = 0.0
        public var contrast = 1.0
        public var saturation = 1.0
        public var exposure = 0.0
        public var gamma = 1.0
        public init() {}
        public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1, exposure: Double = 0, gamma: Double = 1) {
            self.brightness = brightness
            self.contrast = contrast
            self.saturation = saturation
            self.exposure = exposure
            self.gamma = gamma
        }

        public func validate() throws {
            try OptionCheck.range(brightness, -1...1, "brightness")
            try OptionCheck.range(contrast, 0...100, "contrast")
            try OptionCheck.range(saturation, 0...100, "saturation")
            try OptionCheck.range(exposure, -10...10, "exposure")
            try OptionCheck.range(gamma, 0.01...100, "gamma")
        }
    }

    private var tables: Tables

    public init(options: Options) throws { tables = try Tables(options) }
    public func update(options: Options) throws { tables = try Tables(options) }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.apply(image, tables, pool: cc.pool, context: cc)
    }

    /// `input` adjusted by `options` (for use outside a graph).
    public static func adjust(_ input: ImageFrame, _ options: Options, pool: ImagePool = .shared) throws -> ImageFrame {
        try apply(input, try Tables(options), pool: pool, context: nil)
    }

    struct Tables: Sendable {
        var tone = [UInt8](repeating: 0, count: 256)  // exposure, contrast, brightness
        var gamma = [UInt8](repeating: 0, count: 256)

        init(_ o: Options) throws {
            try o.validate()
            let gain = pow2(o.exposure)
            // The tone curve, ((v/255 · gain − ½) · contrast + ½ + brightness) · 255, as one
            // multiply-add in Float: the table and the vectorised loop compute it alike.
            toneScale = Float(gain * o.contrast)
            toneOffset = Float((0.5 - 0.5 * o.contrast + o.brightness) * 255)
            for i in 0..<256 {
                tone[i] = UInt8(saturating: Self.affineTone(Float(i), toneScale, toneOffset))
                gamma[i] = UInt8(saturating: (pow(Double(i) / 255, o.gamma) * 255).rounded())
            }
            saturationF = Float(o.saturation)
            identityGamma = o.gamma == 1
        }

        var saturationF: Float
        /// The tone curve as arithmetic, `round(clamp(v · scale + offset))`, so that 4-byte
        /// pixels take a vectorised loop instead of the table.
        var toneScale: Float, toneOffset: Float
        var identityGamma: Bool

        @inline(__always) static func affineTone(_ v: Float, _ a: Float, _ b: Float) -> Float {
            let c = Swift.min(Swift.max(v * a + b, 0), 255)
            return (c + 0.5).rounded(.down)  // half up
        }
    }

    /// The luma weights of R, G, B in the saturation step.
    static let luma: (r: Float, g: Float, b: Float) = (0.2125, 0.7154, 0.0721)

    /// 3- and 4-byte pixels without gamma: float arithmetic, no table lookups
    /// (`ff_color_adjust_row`). `redFirst`: byte 0 is red (rgba8, rgb8), else blue (bgra8).
    @inline(__always)
    private static func affineRow(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ w: Int, _ t: Tables, redFirst: Bool, bpp: Int) {
        let k: SIMD8<Float> = [
            t.toneScale, t.toneOffset, t.saturationF, redFirst ? luma.r : luma.b, luma.g, redFirst ? luma.b : luma.r, 0, 0,
        ]
        withUnsafePointer(to: k) { p in
            p.withMemoryRebound(to: Float.self, capacity: 8) { ff_color_adjust_row(s, d, w, Int32(bpp), $0) }
        }
    }

    static func apply(_ input: ImageFrame, _ t: Tables, pool: ImagePool, context: CalculatorContext?) throws -> ImageFrame {
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "ColorAdjustmentCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width
        let tables = t
        Kernels.rows(input.height, context) { rows in
            tables.tone.withUnsafeBufferPointer { tone in
                tables.gamma.withUnsafeBufferPointer { gamma in
                    for y in rows {
                        let s = Kernels.rowPointer(input, y), d = Kernels.rowPointer(out, y)
                        if l.bpp == 4 && tables.identityGamma {
                            affineRow(s, d, w, tables, redFirst: l.r == 0, bpp: 4)
                            continue
                        }
                        if l.bpp == 3 && tables.identityGamma {
                            affineRow(s, d, w, tables, redFirst: l.r == 0, bpp: 3)
                            continue
                        }
                        if l.bpp == 1 {
                            for x in 0..<w { d[x] = gamma[Int(tone[Int(s[x])])] }
                            continue
                        }
                        for x in 0..<w {
                            let p = s + x &* l.bpp, q = d + x &* l.bpp
                            // The same arithmetic as `affineRow`, then the gamma table.
                            let r = Float(tone[Int(p[l.r])]), g = Float(tone[Int(p[l.g])]), b = Float(tone[Int(p[l.b])])
                            let lum = luma.r * r + luma.g * g + luma.b * b, k = tables.saturationF
                            q[l.r] = gamma[Int(Kernels.clamp255(lum + k * (r - lum)))]
                            q[l.g] = gamma[Int(Kernels.clamp255(lum + k * (g - lum)))]
                            q[l.b] = gamma[Int(Kernels.clamp255(lum + k * (b - lum)))]
                            if l.a >= 0 { q[l.a] = p[l.a] }
                        }
                    }
                }
            }
        }
        return out.freeze()
    }
}

@inline(__always) func pow2(_ x: Double) -> Double { pow(2, x) }
