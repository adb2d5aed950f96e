extension ImageFrame {
    /// The image rotated clockwise by `rotation` (0, 90, 180, 270) and then flipped — the
    /// order MediaPipe's image transformation and camera orientation use. Packed 8-bit formats.
    ///
    /// ```swift
    /// let upright = try frame.oriented(rotation: 90, flipHorizontally: true)   // a front camera
    /// ```
    public func oriented(
        rotation: Int, flipHorizontally: Bool = false, flipVertically: Bool = false, pool: ImagePool = .shared
    ) throws -> ImageFrame {
        guard [PixelFormat.gray8, .rgb8, .rgba8, .bgra8].contains(format) else {
            throw ImageError.unsupportedFormat(format, "rotation and flips")
        }
        guard [0, 90, 180, 270].contains(rotation) else {
            throw ImageError.invalidLayout("rotation must be 0, 90, 180 or 270, not \(rotation)")
        }
        let bpp = format.bytesPerPixel()
        let w = width, h = height
        let (ow, oh) = rotation % 180 == 0 ? (w, h) : (h, w)
        var out = try pool.makeImage(width: ow, height: oh, format: format)
        for oy0 in 0..<oh {
            let oy = flipVertically ? oh - 1 - oy0 : oy0
            out.withMutableRow(oy0) { dst in
                for ox0 in 0..<ow {
                    let ox = flipHorizontally ? ow - 1 - ox0 : ox0
                    let (sx, sy): (Int, Int)
                    switch rotation {
                    case 90: (sx, sy) = (oy, h - 1 - ox)
                    case 180: (sx, sy) = (w - 1 - ox, h - 1 - oy)
                    case 270: (sx, sy) = (w - 1 - oy, ox)
                    default: (sx, sy) = (ox, oy)
                    }
                    let src = row(sy)
                    for c in 0..<bpp { dst[ox0 * bpp + c] = src[sx * bpp + c] }
                }
            }
        }
        return out.freeze()
    }
}
