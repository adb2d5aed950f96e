import FrameFlow

/// Unsharp mask: `out = in + amount · (in − blur(in))` where `|in − blur(in)| > threshold`,
/// per channel, clamped; the blur is Gaussian with σ = radius.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8; alpha unchanged).
/// Outputs:
///   - `IMAGE`: the sharpened image.
/// Options: `frameflow.SharpenCalculatorOptions` { radius (1.0, pixels), amount (1.0),
/// threshold (0, in 8-bit levels) }.
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
public final class SharpenCalculator: Calculator {
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
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)], outputs: [PortSpec("IMAGE", ImageFrame.self)])

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
        guard o.radius > 0, o.amount >= 0, o.threshold >= 0 else {
            throw GraphError(.invalidOption, "radius must be > 0, amount ≥ 0, threshold ≥ 0")
        }
        return try GaussianBlurCalculator.kernel(.init(sigma: o.radius, kernelSize: 0))
    }

    public func process(_ cc: CalculatorContext) throws {
        let input = try cc.input("IMAGE", as: ImageFrame.self)
        let blurred = try GaussianBlurCalculator.blur(input, kernel: kernel, pool: cc.pool, context: cc)
        try cc.emit(try Self.combine(input, blurred, options, pool: cc.pool, context: cc), tag: "IMAGE")
    }

    /// `input` sharpened with `blurred` as its low-pass.
    public static func combine(_ input: ImageFrame, _ blurred: ImageFrame, _ o: Options, pool: ImagePool = .shared, context: CalculatorContext? = nil) throws -> ImageFrame {
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "SharpenCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let amount = Float(o.amount), threshold = Int32(o.threshold), w = input.width
        Kernels.rows(input.height, context) { rows in
            for y in rows {
                let s = Kernels.rowPointer(input, y), b = Kernels.rowPointer(blurred, y), d = Kernels.rowPointer(out, y)
                // The whole row as one run of bytes (a branch-free select the compiler
                // vectorises), then alpha copied back over.
                for i in 0..<(w &* l.bpp) {
                    let sv = s[i], diff = Int32(sv) &- Int32(b[i])
                    let sharpened = Kernels.clamp255(Float(sv) + amount * Float(diff))
                    d[i] = diff > threshold || diff < -threshold ? sharpened : sv
                }
                if l.a >= 0 { for x in 0..<w { d[x &* l.bpp &+ l.a] = s[x &* l.bpp &+ l.a] } }
            }
        }
        return out.freeze()
    }
}
