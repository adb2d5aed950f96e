import CFrameFlowKernels
import FrameFlow

/// Converts colour images to luminance, still stored as colour: `(L, L, L, A)`.
///
/// MediaPipe's formula on the stored 8-bit values, rounded to nearest:
/// `L = 0.2125 R + 0.7154 G + 0.0721 B`; alpha passes through.
///
/// Inputs:
///   - (untagged) `ImageFrame` in rgba8, bgra8 or rgb8.
/// Outputs:
///   - (untagged) `ImageFrame`, same size and format.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LuminanceCalculator"
///   input_stream: "input_video"
///   output_stream: "luma_video"
/// }
/// ```
public final class LuminanceCalculator: ImageFilterCalculator {
    public static let imageTag = ""

    public init(options: NoOptions) {}

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.luminance(image, pool: cc.pool, context: cc)
    }

    /// round(0.2125 r + 0.7154 g + 0.0721 b), exactly (MediaPipe's weights, halves rounded
    /// up): floor(s / 10000) with s = 2125 r + 7154 g + 721 b + 5000, computed as
    /// floor(floor(s / 16) / 625) in 32-bit lanes from an estimate that is low by at most one.
    @inline(__always)
    static func luma(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 {
        let x = (2125 &* r &+ 7154 &* g &+ 721 &* b &+ 5000) >> 4
        let y = (x &* 6710) >> 22
        return x &- y &* 625 >= 625 ? y &+ 1 : y
    }

    /// The luminance image of `input`; rows split across `context`'s workers.
    public static func luminance(_ input: ImageFrame, pool: ImagePool = .shared, context: CalculatorContext? = nil) throws -> ImageFrame {
        switch input.format {
        case .rgba8, .bgra8, .rgb8: break
        default: throw ImageError.unsupportedFormat(input.format, "LuminanceCalculator")
        }
        let bgr = input.format == .bgra8
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width
        let src = input.planes[0], dst = out.planes[0]
        let packed = input.format != .rgb8
        Kernels.rows(input.height, context) { rows in
            for y in rows {
                let s = src.baseAddress + y * src.bytesPerRow
                let d = dst.baseAddress + y * dst.bytesPerRow
                if packed {
                    ff_luminance_rgbx(s.assumingMemoryBound(to: UInt8.self), d.assumingMemoryBound(to: UInt8.self), w, bgr ? 1 : 0)
                } else {
                    luminanceRow24(s.assumingMemoryBound(to: UInt8.self), d.assumingMemoryBound(to: UInt8.self), w)
                }
            }
        }
        _ = out.planes
        return out.freeze()
    }

    @inline(__always)
    static func luminanceRow24(_ s: UnsafeMutablePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ w: Int) {
        for x in 0..<w {
            let r = UInt32(s[3 &* x]), g = UInt32(s[3 &* x &+ 1]), b = UInt32(s[3 &* x &+ 2])
            let l = UInt8(truncatingIfNeeded: luma(r, g, b))
            d[3 &* x] = l
            d[3 &* x &+ 1] = l
            d[3 &* x &+ 2] = l
        }
    }
}
