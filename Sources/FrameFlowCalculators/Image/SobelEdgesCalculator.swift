import CFrameFlowKernels
import FrameFlow

/// Sobel edge magnitude, as MediaPipe's `SobelEdgesCalculator`.
///
/// On the red channel (the first colour channel; the image is usually luminance), with
/// edges replicated:
///
///     h = -lu - 2 lc - ld + ru + 2 rc + rd
///     v = -lu - 2 cu - ru + ld + 2 cd + rd
///     out = min(255, √(h² + v²)), rounded, in R, G and B; alpha 255.
///
/// The rounded square root is computed exactly without `sqrt` (see `roundedMagnitude`).
///
/// Inputs:
///   - (untagged) `ImageFrame` in rgba8, bgra8, rgb8 or gray8.
/// Outputs:
///   - (untagged) `ImageFrame`, same size and format.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SobelEdgesCalculator"
///   input_stream: "luma_video"
///   output_stream: "output_video"
/// }
/// ```
public final class SobelEdgesCalculator: ImageFilterCalculator {
    public static let imageTag = ""

    public init(options: NoOptions) {}

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.edges(image, pool: cc.pool, context: cc)
    }

    /// The edge image of `input`; rows split across `context`'s workers.
    public static func edges(_ input: ImageFrame, pool: ImagePool = .shared, context: CalculatorContext? = nil) throws -> ImageFrame {
        let bpp: Int, channel: Int
        switch input.format {
        case .rgba8: (bpp, channel) = (4, 0)
        case .bgra8: (bpp, channel) = (4, 2)
        case .rgb8: (bpp, channel) = (3, 0)
        case .gray8: (bpp, channel) = (1, 0)
        default: throw ImageError.unsupportedFormat(input.format, "SobelEdgesCalculator")
        }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width, h = input.height
        let src = input.planes[0], dst = out.planes[0]
        Kernels.rows(h, context) { rows in
            // Scratch per band, on the stack: the vertical sums and differences of a row.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * (w + 2)) { scratch in
                for y in rows {
                    let up = src.baseAddress + Swift.max(y - 1, 0) * src.bytesPerRow
                    let mid = src.baseAddress + y * src.bytesPerRow
                    let down = src.baseAddress + Swift.min(y + 1, h - 1) * src.bytesPerRow
                    ff_sobel_row(
                        up.assumingMemoryBound(to: UInt8.self), mid.assumingMemoryBound(to: UInt8.self), down.assumingMemoryBound(to: UInt8.self),
                        (dst.baseAddress + y * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self), w, Int32(bpp), Int32(channel),
                        scratch.baseAddress!)
                }
            }
        }
        return out.freeze()
    }

    /// `min(255, round(√s))` for a sum of squares `s ≥ 0`, exactly: the formula `ff_sobel_row`
    /// computes sixteen pixels at a time, one pixel at a time.
    ///
    /// On Linux `Float.squareRoot()` keeps libm's errno check, which stops loops from
    /// vectorizing. This uses only vectorizable operations: a bit-trick first guess and two
    /// Newton steps (`y ← (y + s/y) / 2`), then rounding by adding 1.5·2²³ and reading the
    /// low mantissa bits. Sums are clamped to 255.5² first (everything above gives 255);
    /// below it the result equals the exact rounded root for every integer (the test checks
    /// all of them).
    @inline(__always)
    public static func roundedMagnitude(_ sumOfSquares: Int32) -> UInt32 {
        let s = Float(Swift.min(sumOfSquares, 65_280))
        var y = Float(bitPattern: (s.bitPattern >> 1) &+ 0x1FBD_1DF5)
        y = 0.5 * (y + s / y)
        y = 0.5 * (y + s / y)
        return (y + 12_582_912).bitPattern & 0xFF
    }
}
