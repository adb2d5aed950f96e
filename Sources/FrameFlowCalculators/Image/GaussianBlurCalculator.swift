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
/// Options: `frameflow.GaussianBlurCalculatorOptions` { sigma (0: from kernel_size),
/// kernel_size (0: from sigma; odd) }.
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
public final class GaussianBlurCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.GaussianBlurCalculatorOptions"
        public var sigma = 0.0
        public var kernelSize = 5
        public init() {}
        public init(sigma: Double, kernelSize: Int = 0) {
            self.sigma = sigma
            self.kernelSize = kernelSize
        }
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)], outputs: [PortSpec("IMAGE", ImageFrame.self)])

    private var kernel: [Float]

    public init(options: Options) throws { kernel = try Self.kernel(options) }
    public func update(options: Options) throws { kernel = try Self.kernel(options) }

    public func process(_ cc: CalculatorContext) throws {
        let input = try cc.input("IMAGE", as: ImageFrame.self)
        try cc.emit(try Self.blur(input, kernel: kernel, pool: cc.pool, context: cc), tag: "IMAGE")
    }

    /// The normalized 1-D kernel for `options`.
    public static func kernel(_ options: Options) throws -> [Float] {
        var k = options.kernelSize
        var sigma = options.sigma
        guard sigma >= 0, k >= 0, k == 0 || k % 2 == 1, k <= 255 else {
            throw GraphError(.invalidOption, "kernel_size must be odd (or 0) and sigma ≥ 0")
        }
        if k == 0 {
            guard sigma > 0 else { throw GraphError(.invalidOption, "give sigma or kernel_size") }
            k = Int((sigma * 6 + 1).rounded()) | 1
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
        guard let l = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "GaussianBlurCalculator") }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width, h = input.height, bpp = l.bpp, n = kernel.count, r = n / 2
        let rowLen = w * bpp
        let padLen = (w + 2 * r) * bpp
        // Reflect-101 source columns of the padding, once per call.
        let leftCols = (0..<r).map { reflect101($0 - r, w) }, rightCols = (0..<r).map { reflect101(w + $0, w) }
        let kern = kernel
        Kernels.rows(h, context, grain: 16) { band in
          // Chunks of 16 output rows keep the float buffer in cache.
          for chunk in stride(from: band.lowerBound, to: band.upperBound, by: 16) {
            let rows = chunk..<Swift.min(chunk + 16, band.upperBound)
            // Every source row the chunk needs (r extra above and below) is widened to Float
            // with reflected ends, filtered horizontally into `buf`; then the vertical pass.
            // Loops run tap-outer, pixel-inner so that they vectorize.
            let lines = rows.count + 2 * r
            withUnsafeTemporaryAllocation(of: Float.self, capacity: lines * rowLen + padLen + rowLen) { all in
                let buf = all.baseAddress!, pad = buf + lines * rowLen, acc = pad + padLen
                kern.withUnsafeBufferPointer { k in
                    for j in 0..<lines {
                        let src = Kernels.rowPointer(input, reflect101(rows.lowerBound - r + j, h))
                        for i in 0..<rowLen { pad[r &* bpp &+ i] = Float(src[i]) }
                        for (m, sx) in leftCols.enumerated() { for c in 0..<bpp { pad[m * bpp + c] = Float(src[sx * bpp + c]) } }
                        for (m, sx) in rightCols.enumerated() { for c in 0..<bpp { pad[(r + w + m) * bpp + c] = Float(src[sx * bpp + c]) } }
                        let dst = buf + j * rowLen
                        let k0 = k[0]
                        for i in 0..<rowLen { dst[i] = k0 * pad[i] }
                        for t in 1..<Swift.max(n, 1) {
                            let kt = k[t], off = t &* bpp
                            for i in 0..<rowLen { dst[i] += kt * pad[i &+ off] }
                        }
                    }
                    for y in rows {
                        let base = buf + (y - rows.lowerBound) * rowLen
                        let k0 = k[0]
                        for i in 0..<rowLen { acc[i] = k0 * base[i] }
                        for t in 1..<Swift.max(n, 1) {
                            let kt = k[t], row = base + t &* rowLen
                            for i in 0..<rowLen { acc[i] += kt * row[i] }
                        }
                        let d = Kernels.rowPointer(out, y)
                        for i in 0..<rowLen { d[i] = Kernels.clamp255(acc[i]) }
                    }
                }
            }
          }
        }
        return out.freeze()
    }
}

/// OpenCV's `BORDER_REFLECT_101`: … 2 1 | 0 1 2 … n−1 | n−2 n−3 …
@inline(__always) func reflect101(_ i: Int, _ n: Int) -> Int {
    if n == 1 { return 0 }
    var i = i
    while i < 0 || i >= n { i = i < 0 ? -i : 2 * (n - 1) - i }
    return i
}
