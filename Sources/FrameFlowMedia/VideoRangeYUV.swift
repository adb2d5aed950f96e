import CFrameFlowKernels
import FrameFlow

/// RGBA, BGRA and grey images to BT.601 video-range YUV 4:2:0 planes of the same size, the
/// input of the H.264, VP9 and MPEG-4 encoders, without swscale: swscale's RGB-to-YUV path took
/// about 7 ms per 1080p frame on the encoder's thread (a tenth of a whole edge-graph-to-H.264
/// run); this is one pass of `ff_rgbx_rows_to_yuv420`. The formulas are in `ff_pixels.h`: per
/// pixel Y = 16 + 219/255 · (0.299 R + 0.587 G + 0.114 B); per 2 × 2 block U and V of the
/// block's mean colour; a grey image gets U = V = 128.
enum VideoRangeYUV {
    /// Whether `convert` takes `image` into planes of `width` × `height` (its own size, even
    /// on both sides, in rgba8, bgra8 or gray8); other images go through swscale.
    static func converts(_ image: ImageFrame, width: Int, height: Int) -> Bool {
        guard image.width == width, image.height == height, width % 2 == 0, height % 2 == 0, width > 0, height > 0 else { return false }
        return image.format == .rgba8 || image.format == .bgra8 || image.format == .gray8
    }

    /// Writes `image` (`converts` holds) into the Y, U and V planes: `image.height` rows of
    /// `image.width` bytes `yStride` apart, and half as many rows of half as many bytes
    /// `uvStride` apart.
    static func convert(
        _ image: ImageFrame, y: UnsafeMutablePointer<UInt8>, yStride: Int, u: UnsafeMutablePointer<UInt8>,
        v: UnsafeMutablePointer<UInt8>, uvStride: Int
    ) {
        let src = image.planes[0]
        let base = src.baseAddress.assumingMemoryBound(to: UInt8.self)
        let (w, h) = (image.width, image.height)
        if image.format == .gray8 {
            for row in 0..<h { ff_gray_to_video_luma(base + row * src.bytesPerRow, y + row * yStride, w) }
            for row in 0..<h / 2 {
                (u + row * uvStride).update(repeating: 128, count: w / 2)
                (v + row * uvStride).update(repeating: 128, count: w / 2)
            }
            return
        }
        let bgr: Int32 = image.format == .bgra8 ? 1 : 0
        for pair in 0..<h / 2 {
            let r0 = 2 * pair
            ff_rgbx_rows_to_yuv420(
                base + r0 * src.bytesPerRow, base + (r0 + 1) * src.bytesPerRow, y + r0 * yStride, y + (r0 + 1) * yStride,
                u + pair * uvStride, v + pair * uvStride, w / 2, bgr)
        }
    }
}
