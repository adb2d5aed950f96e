import FrameFlow

/// Rotation (clockwise, multiples of 90°) and mirroring of packed 8-bit images, for camera
/// orientation: rotation first, then the horizontal flip, as MediaPipe does.
public enum Orientation {
    public static func apply(_ image: ImageFrame, rotation: Int, mirrored: Bool, pool: ImagePool = .shared) throws -> ImageFrame {
        guard image.format.planeCount == 1, [.gray8, .rgb8, .rgba8, .bgra8].contains(image.format) else {
            throw ImageError.unsupportedFormat(image.format, "rotation and mirroring")
        }
        let w = image.width, h = image.height
        let (ow, oh) = rotation % 180 == 0 ? (w, h) : (h, w)
        let bpp = image.format.bytesPerPixel()
        var out = try pool.makeImage(width: ow, height: oh, format: image.format)
        for oy in 0..<oh {
            out.withMutableRow(oy) { dst in
                for ox in 0..<ow {
                    let mx = mirrored ? ow - 1 - ox : ox
                    let (sx, sy): (Int, Int)
                    switch rotation {
                    case 90: (sx, sy) = (oy, h - 1 - mx)
                    case 180: (sx, sy) = (w - 1 - mx, h - 1 - oy)
                    case 270: (sx, sy) = (w - 1 - oy, mx)
                    default: (sx, sy) = (mx, oy)
                    }
                    let src = image.row(sy)
                    for c in 0..<bpp { dst[ox * bpp + c] = src[sx * bpp + c] }
                }
            }
        }
        return out.freeze()
    }
}
