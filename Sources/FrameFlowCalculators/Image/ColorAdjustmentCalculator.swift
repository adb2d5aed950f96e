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
/// The per-channel steps are 256-entry tables rebuilt when the options change; saturation
/// mixes in 16-bit fixed point. Alpha passes through.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (rgba8, bgra8, rgb8; gray8 ignores saturation).
/// Outputs:
///   - `IMAGE`: the adjusted image.
/// Options: `frameflow.ColorAdjustmentCalculatorOptions` { brightness (0, −1…1), contrast (1),
/// saturation (1), exposure (0, in stops), gamma (1) }.
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
public final class ColorAdjustmentCalculator: Calculator {
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
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)], outputs: [PortSpec("IMAGE", ImageFrame.self)])

    private var tables: Tables

    public init(options: Options) throws { tables = try Tables(options) }
    public func update(options: Options) throws { tables = try Tables(options) }

    public func process(_ cc: CalculatorContext) throws {
        let input = try cc.input("IMAGE", as: ImageFrame.self)
        try cc.emit(try Self.apply(input, tables, pool: cc.pool, context: cc), tag: "IMAGE")
    }

    /// `input` adjusted by `options` (for use outside a graph).
    public static func adjust(_ input: ImageFrame, _ options: Options, pool: ImagePool = .shared) throws -> ImageFrame {
        try apply(input, try Tables(options), pool: pool, context: nil)
    }

    struct Tables: Sendable {
        var tone = [UInt8](repeating: 0, count: 256)  // exposure, contrast, brightness
        var gamma = [UInt8](repeating: 0, count: 256)
        var saturation: Int32  // ×65536
        var identitySaturation: Bool

        init(_ o: Options) throws {
            guard o.contrast >= 0, o.saturation >= 0, o.gamma > 0, (-1...1).contains(o.brightness), abs(o.exposure) <= 10 else {
                throw GraphError(.invalidOption, "need contrast ≥ 0, saturation ≥ 0, gamma > 0, brightness in −1…1, |exposure| ≤ 10")
            }
            let gain = pow2(o.exposure)
            for i in 0..<256 {
                var c = Double(i) / 255 * gain
                c = (c - 0.5) * o.contrast + 0.5 + o.brightness
                tone[i] = UInt8((min(max(c, 0), 1) * 255).rounded())
                gamma[i] = UInt8((pow(Double(i) / 255, o.gamma) * 255).rounded())
            }
            saturation = Int32((o.saturation * 65536).rounded())
            identitySaturation = o.saturation == 1
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
                        if l.bpp == 1 {
                            for x in 0..<w { d[x] = gamma[Int(tone[Int(s[x])])] }
                            continue
                        }
                        for x in 0..<w {
                            let p = s + x &* l.bpp, q = d + x &* l.bpp
                            var r = Int32(tone[Int(p[l.r])]), g = Int32(tone[Int(p[l.g])]), b = Int32(tone[Int(p[l.b])])
                            if !tables.identitySaturation {
                                let lum = (13926 &* r &+ 46885 &* g &+ 4725 &* b) // ×65536
                                let k = tables.saturation
                                r = Int32(truncatingIfNeeded: (Int64(lum) &* 65536 &+ Int64(k) &* (Int64(r) &* 65536 &- Int64(lum)) &+ (1 << 31)) >> 32)
                                g = Int32(truncatingIfNeeded: (Int64(lum) &* 65536 &+ Int64(k) &* (Int64(g) &* 65536 &- Int64(lum)) &+ (1 << 31)) >> 32)
                                b = Int32(truncatingIfNeeded: (Int64(lum) &* 65536 &+ Int64(k) &* (Int64(b) &* 65536 &- Int64(lum)) &+ (1 << 31)) >> 32)
                            }
                            q[l.r] = gamma[Int(Kernels.clamp255(r))]
                            q[l.g] = gamma[Int(Kernels.clamp255(g))]
                            q[l.b] = gamma[Int(Kernels.clamp255(b))]
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
