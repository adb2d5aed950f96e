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
            // Scratch per band, on the stack: the channel of three rows, padded by one
            // replicated pixel at each end, and the vertical sums.
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * (w + 2)) { scratch in
                let sum = scratch.baseAddress!  // a + 2b + c per column
                let diff = sum + (w + 2)  // c - a per column
                for y in rows {
                    let up = src.baseAddress + Swift.max(y - 1, 0) * src.bytesPerRow + channel
                    let mid = src.baseAddress + y * src.bytesPerRow + channel
                    let down = src.baseAddress + Swift.min(y + 1, h - 1) * src.bytesPerRow + channel
                    verticalPass(
                        up.assumingMemoryBound(to: UInt8.self), mid.assumingMemoryBound(to: UInt8.self),
                        down.assumingMemoryBound(to: UInt8.self), bpp, channel, w, sum + 1, diff + 1)
                    sum[0] = sum[1]
                    sum[w + 1] = sum[w]
                    diff[0] = diff[1]
                    diff[w + 1] = diff[w]
                    let d = dst.baseAddress + y * dst.bytesPerRow
                    switch bpp {
                    case 4: magnitudeRow32(sum, diff, d.assumingMemoryBound(to: UInt32.self), w)
                    default: magnitudeRow8(sum, diff, d.assumingMemoryBound(to: UInt8.self), w, bpp)
                    }
                }
            }
        }
        return out.freeze()
    }

    @inline(__always)
    static func verticalPass(
        _ u: UnsafeMutablePointer<UInt8>, _ m: UnsafeMutablePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ bpp: Int,
        _ channel: Int, _ w: Int, _ sum: UnsafeMutablePointer<Int32>, _ diff: UnsafeMutablePointer<Int32>
    ) {
        if bpp == 4 {
            // Whole pixels as UInt32 loaded from the pixel's start (the row pointers point at
            // the channel, so step back; loading at the channel would read past the row's last
            // pixel), the channel shifted down and masked: loads the compiler can vectorize.
            let u32 = UnsafeRawPointer(u - channel), m32 = UnsafeRawPointer(m - channel), d32 = UnsafeRawPointer(d - channel)
            let shift = UInt32(8 * channel)
            for x in 0..<w {
                let a = Int32(truncatingIfNeeded: (u32.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self) &>> shift) & 0xFF)
                let b = Int32(truncatingIfNeeded: (m32.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self) &>> shift) & 0xFF)
                let c = Int32(truncatingIfNeeded: (d32.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self) &>> shift) & 0xFF)
                sum[x] = a &+ 2 &* b &+ c
                diff[x] = c &- a
            }
        } else {
            for x in 0..<w {
                let a = Int32(u[bpp &* x]), b = Int32(m[bpp &* x]), c = Int32(d[bpp &* x])
                sum[x] = a &+ 2 &* b &+ c
                diff[x] = c &- a
            }
        }
    }

    /// `min(255, round(√s))` for a sum of squares `s ≥ 0`, exactly.
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

    /// `sum` and `diff` are padded: index 0 and w+1 replicate the edge columns.
    @inline(__always)
    static func magnitude(_ sum: UnsafeMutablePointer<Int32>, _ diff: UnsafeMutablePointer<Int32>, _ x: Int) -> UInt32 {
        let gh = sum[x &+ 2] &- sum[x]
        let gv = diff[x] &+ 2 &* diff[x &+ 1] &+ diff[x &+ 2]
        return roundedMagnitude(gh &* gh &+ gv &* gv)
    }

    @inline(__always)
    static func magnitudeRow32(
        _ sum: UnsafeMutablePointer<Int32>, _ diff: UnsafeMutablePointer<Int32>, _ d: UnsafeMutablePointer<UInt32>, _ w: Int
    ) {
        for x in 0..<w {
            let l = magnitude(sum, diff, x)
            d[x] = 0xFF00_0000 | l | (l << 8) | (l << 16)
        }
    }

    @inline(__always)
    static func magnitudeRow8(
        _ sum: UnsafeMutablePointer<Int32>, _ diff: UnsafeMutablePointer<Int32>, _ d: UnsafeMutablePointer<UInt8>, _ w: Int,
        _ bpp: Int
    ) {
        for x in 0..<w {
            let l = UInt8(truncatingIfNeeded: magnitude(sum, diff, x))
            for c in 0..<bpp { d[bpp &* x &+ c] = l }
        }
    }
}
