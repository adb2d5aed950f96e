import CFrameFlowKernels
import Foundation
import FrameFlow

/// Gaussian blur, separable, with OpenCV's conventions: kernel size from sigma
/// (`round(6σ + 1) | 1`) or sigma from kernel size (`0.3((k − 1)/2 − 1) + 0.8`, with
/// OpenCV's fixed binomial kernels for sizes up to 7), and reflected borders
/// (`BORDER_REFLECT_101`).
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8; every channel blurred).
/// Outputs:
///   - `IMAGE`: the blurred image.
/// Options: `frameflow.GaussianBlurCalculatorOptions` { sigma (0: from kernel_size; 0…1000, and
/// at most 42 when kernel_size is 0, so the derived kernel has at most 255 taps), kernel_size
/// (5; 0: from sigma; odd, 1…255) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GaussianBlurCalculator"
///   input_stream: "IMAGE:in"
///   output_stream: "IMAGE:blurred"
///   options { [frameflow.GaussianBlurCalculatorOptions.ext] { kernel_size: 5 sigma: 1.2 } }
/// }
/// ```
public final class GaussianBlurCalculator: ImageFilterCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.GaussianBlurCalculatorOptions"
        public var sigma = 0.0
        public var kernelSize = 5
        public init() {}
        public init(sigma: Double, kernelSize: Int = 0) {
            self.sigma = sigma
            self.kernelSize = kernelSize
        }

        public func validate() throws {
            try OptionCheck.range(sigma, 0...(kernelSize == 0 ? GaussianBlurCalculator.maxDerivedSigma : 1000), "sigma")
            try OptionCheck.range(kernelSize, 0...255, "kernel_size")
            guard kernelSize == 0 || kernelSize % 2 == 1 else {
                throw GraphError(.invalidOption, "kernel_size must be odd (or 0), not \(kernelSize)")
            }
            guard kernelSize > 0 || sigma > 0 else { throw GraphError(.invalidOption, "give sigma or kernel_size") }
        }
    }

    /// The largest sigma a kernel size is derived from: `round(6σ + 1) | 1` ≤ 255.
    public static let maxDerivedSigma = 42.0

    private var kernel: [Float]

    public init(options: Options) throws { kernel = try Self.kernel(options) }
    public func update(options: Options) throws { kernel = try Self.kernel(options) }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.blur(image, kernel: kernel, pool: cc.pool, context: cc)
    }

    /// The normalized 1-D kernel for `options`.
    public static func kernel(_ options: Options) throws -> [Float] {
        var k = options.kernelSize
        var sigma = options.sigma
        try options.validate()
        if k == 0 {
            k = Int(saturating: (sigma * 6 + 1).rounded()) | 1
        }
        if sigma <= 0 {
            // OpenCV's fixed small kernels when sigma is derived from a size ≤ 7.
            switch k {
            case 1: return [1]
            case 3: return [0.25, 0.5, 0.25]
            case 5: return [0.0625, 0.25, 0.375, 0.25, 0.0625]
            case 7: return [0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125]
            default: sigma = 0.3 * (Double(k - 1) * 0.5 - 1) + 0.8
            }
        }
        let c = Double(k - 1) / 2
        var w = (0..<k).map { exp(-((Double($0) - c) * (Double($0) - c)) / (2 * sigma * sigma)) }
        let sum = w.reduce(0, +)
        w = w.map { $0 / sum }
        return w.map { Float($0) }
    }

    /// `input` convolved with `kernel` horizontally and vertically.
    public static func blur(_ input: ImageFrame, kernel: [Float], pool: ImagePool = .shared, context: CalculatorContext? = nil) throws -> ImageFrame {
        guard Kernels.layout(input.format) != nil else { throw ImageError.unsupportedFormat(input.format, "GaussianBlurCalculator") }
        guard kernel.count % 2 == 1, kernel.allSatisfy({ $0 >= 0 }), abs(kernel.reduce(0, +) - 1) < 1e-3 else {
            throw GraphError(.invalidOption, "a blur kernel needs an odd number of non-negative weights summing to 1")
        }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        filterRows(input, FixedKernel(kernel), context, into: out)
        return out.freeze()
    }

    /// A float kernel in fixed point, as OpenCV's bit-exact 8-bit blur has it: weights in
    /// 1/256 summing to exactly 256 (the kernel is taken as symmetric), divided by their
    /// common power of two. Horizontal sums of bytes then fit 16 bits; the vertical sums fit
    /// 16 bits when the weights sum to at most 16 (the binomial 3- and 5-tap kernels),
    /// otherwise 32.
    struct FixedKernel {
        var weights: [UInt16]
        /// log2 of the weights' sum: each pass scales by 2^bits.
        var bits: Int

        init(_ kernel: [Float]) {
            // Rounded from the outer taps inward, each carrying the previous rounding error
            // (error diffusion, as OpenCV quantizes), mirrored; the centre takes the rest.
            let n = kernel.count
            var q = [Int](repeating: 0, count: n), err = 0.0
            guard (0..<(n / 2)).allSatisfy({ abs(kernel[$0] - kernel[n - 1 - $0]) <= 1e-6 }) else {
                // An asymmetric kernel (only through `blur(_:kernel:)`): each tap rounded, the
                // largest taking the rest.
                q = kernel.map { Int(saturating: ($0 * 256).rounded()) }
                q[kernel.indices.max { kernel[$0] < kernel[$1] }!] += 256 - q.reduce(0, +)
                self.init(reduced: q)
                return
            }
            for i in 0..<(n / 2) {
                let v = Double(kernel[i]) * 256 + err
                q[i] = Int(saturating: v.rounded())
                err = v - Double(q[i])
                q[n - 1 - i] = q[i]
            }
            q[n / 2] = 256 - 2 * q[0..<(n / 2)].reduce(0, +)
            self.init(reduced: q)
        }

        private init(reduced q: [Int]) {
            var q = q, bits = 8
            while bits > 0, q.allSatisfy({ $0 % 2 == 0 }) {
                q = q.map { $0 / 2 }
                bits -= 1
            }
            weights = q.map { UInt16(clamping: $0) }
            self.bits = bits
        }
    }

    /// Blurs every row of `input` into `out` (same size and format) with `k`: each source
    /// row is padded (reflect-101) and filtered horizontally once into a ring of `n` rows of
    /// 16-bit sums (`ff_blur_horizontal_row`), from which each output row is one vertical pass
    /// (`ff_blur_vertical_row`).
    /// `post`, when given, is called with each finished output row (its index and bytes)
    /// while it is still in cache.
    static func filterRows(
        _ input: ImageFrame, _ k: FixedKernel, _ context: CalculatorContext?, into out: MutableImageFrame,
        post: ((Int, UnsafeMutablePointer<UInt8>) -> Void)? = nil
    ) {
        let bpp = input.format.bytesPerPixel()
        let w = input.width, h = input.height, n = k.weights.count, r = n / 2
        let rowLen = w * bpp, span = (rowLen + 15) & ~15
        let padLen = (w + 2 * r) * bpp + 16
        let leftCols = (0..<r).map { reflect101($0 - r, w) }, rightCols = (0..<r).map { reflect101(w + $0, w) }
        let weights = k.weights, bits = k.bits
        Kernels.rows(h, context, grain: 16) { band in
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: n * span) { ringBuffer in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: padLen) { padBuffer in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<UInt16>?.self, capacity: n) { rowsBuffer in
                        let ring = ringBuffer.baseAddress!, pad = padBuffer.baseAddress!, rowsOf = rowsBuffer.baseAddress!
                        pad.initialize(repeating: 0, count: padLen)
                        weights.withUnsafeBufferPointer { wt in
                            /// Source row `j` (reflected) filtered horizontally into ring slot j mod n.
                            func horizontal(_ j: Int) {
                                let src = Kernels.rowPointer(input, reflect101(j, h))
                                (pad + r * bpp).update(from: src, count: rowLen)
                                for (m, sx) in leftCols.enumerated() { for c in 0..<bpp { pad[m * bpp + c] = src[sx * bpp + c] } }
                                for (m, sx) in rightCols.enumerated() { for c in 0..<bpp { pad[(r + w + m) * bpp + c] = src[sx * bpp + c] } }
                                ff_blur_horizontal_row(pad, ring + ((j % n + n) % n) * span, rowLen, wt.baseAddress!, Int32(n), Int32(bpp))
                            }
                            for j in (band.lowerBound - r)..<(band.lowerBound + r) { horizontal(j) }
                            for y in band {
                                horizontal(y + r)
                                for t in 0..<n { rowsOf[t] = UnsafePointer(ring + (((y - r + t) % n + n) % n) * span) }
                                let d = Kernels.rowPointer(out, y)
                                ff_blur_vertical_row(rowsOf, wt.baseAddress!, Int32(n), Int32(2 * bits), d, rowLen)
                                post?(y, d)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// OpenCV's `BORDER_REFLECT_101`: … 2 1 | 0 1 2 … n−1 | n−2 n−3 …
@inline(__always) func reflect101(_ i: Int, _ n: Int) -> Int {
    if n == 1 { return 0 }
    var i = i
    while i < 0 || i >= n { i = i < 0 ? -i : 2 * (n - 1) - i }
    return i
}
