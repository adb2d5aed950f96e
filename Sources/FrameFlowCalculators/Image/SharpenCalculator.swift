import CFrameFlowKernels
import FrameFlow

/// Unsharp mask: `out = in + amount · (in − blur(in))` where `|in − blur(in)| > threshold`,
/// per channel, clamped; the blur is Gaussian with σ = radius.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8; alpha unchanged).
/// Outputs:
///   - `IMAGE`: the sharpened image.
/// Options: `frameflow.SharpenCalculatorOptions` { radius (1.0, pixels, 0.01…42: a blur of at
/// most 255 taps), amount (1.0, 0…100), threshold (0, in 8-bit levels, 0…255) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SharpenCalculator"
///   input_stream: "IMAGE:in"
///   output_stream: "IMAGE:sharp"
///   options { [frameflow.SharpenCalculatorOptions.ext] { radius: 1.5 amount: 0.8 threshold: 3 } }
/// }
/// ```
public final class SharpenCalculator: ImageFilterCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.SharpenCalculatorOptions"
        public var radius = 1.0
        public var amount = 1.0
        public var threshold = 0
        public init() {}
        public init(radius: Double, amount: Double, threshold: Int = 0) {
            self.radius = radius
            self.amount = amount
            self.threshold = threshold
        }

        public func validate() throws {
            try OptionCheck.range(radius, 0.01...GaussianBlurCalculator.maxDerivedSigma, "radius")
            try OptionCheck.range(amount, 0...100, "amount")
            try OptionCheck.range(threshold, 0...255, "threshold")
        }
    }

    private var options: Options
    private var kernel: [Float]

    public init(options: Options) throws {
        self.options = options
        kernel = try Self.blurKernel(options)
    }

    public func update(options: Options) throws {
        kernel = try Self.blurKernel(options)
        self.options = options
    }

    static func blurKernel(_ o: Options) throws -> [Float] {
        try o.validate()
        return try GaussianBlurCalculator.kernel(.init(sigma: o.radius, kernelSize: 0))
    }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.sharpen(image, kernel: kernel, options, pool: cc.pool, context: cc)
    }

    /// `input` sharpened: each row is blurred and combined with its source while both are
    /// still in cache (one pass over the image instead of a blur pass and a combine pass).
    static func sharpen(_ input: ImageFrame, kernel: [Float], _ o: Options, pool: ImagePool = .shared, context: CalculatorContext? = nil) throws
        -> ImageFrame
    {
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "SharpenCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let amount = Float(o.amount), threshold = Int32(clamping: o.threshold), w = input.width
        GaussianBlurCalculator.filterRows(input, .init(kernel), context, into: out) { y, d in
            combineRow(Kernels.rowPointer(input, y), d, d, w, l, amount, threshold)
        }
        return out.freeze()
    }

    /// `input` sharpened with `blurred` as its low-pass.
    public static func combine(_ input: ImageFrame, _ blurred: ImageFrame, _ o: Options, pool: ImagePool = .shared, context: CalculatorContext? = nil)
        throws -> ImageFrame
    {
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "SharpenCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let amount = Float(o.amount), threshold = Int32(clamping: o.threshold), w = input.width
        Kernels.rows(input.height, context) { rows in
            for y in rows {
                combineRow(Kernels.rowPointer(input, y), Kernels.rowPointer(blurred, y), Kernels.rowPointer(out, y), w, l, amount, threshold)
            }
        }
        return out.freeze()
    }

    /// One row of `combine`; `d` may be `b` (the blurred row replaced by the result). Amounts
    /// below 31 in 16-bit fixed point: diff · 2⁷ times amount in 1/1024ths (`vpmulhw`), halved
    /// rounding up, is s + ⌊amount · diff + ½⌋ with amount within 1/2048 (≤ 1/8 level).
    @inline(__always) static func combineRow(
        _ s: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ w: Int,
        _ l: (r: Int, g: Int, b: Int, a: Int, bpp: Int), _ amount: Float, _ threshold: Int32
    ) {
        let q10 = amount < 31 ? Int16(saturating: (amount * 1024).rounded()) : 0
        ff_sharpen_combine_row(s, b, d, w &* l.bpp, l.a >= 0 ? 1 : 0, amount, q10, threshold)
    }
}
