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
        let out = try pool.makeImage(width: ow, height: oh, format: format)
        // Output pixel (x, y) reads source pixel f(x, y), an affine map: its byte offset is
        // origin + x · stepX + y · stepY.
        func source(_ ox0: Int, _ oy0: Int) -> (x: Int, y: Int) {
            let ox = flipHorizontally ? ow - 1 - ox0 : ox0, oy = flipVertically ? oh - 1 - oy0 : oy0
            switch rotation {
            case 90: return (oy, h - 1 - ox)
            case 180: return (w - 1 - ox, h - 1 - oy)
            case 270: return (w - 1 - oy, ox)
            default: return (ox, oy)
            }
        }
        let stride = planes[0].bytesPerRow
        func offset(_ p: (x: Int, y: Int)) -> Int { p.y * stride + p.x * bpp }
        let origin = offset(source(0, 0))
        let stepX = offset(source(1, 0)) - origin, stepY = offset(source(0, 1)) - origin
        let src = UnsafeRawPointer(planes[0].baseAddress + origin)
        let dst = out.planes[0].baseAddress, dstStride = out.planes[0].bytesPerRow
        switch bpp {
        case 4: Self.remap(src, dst, dstStride, ow, oh, stepX, stepY, bpp: 4)
        case 3: Self.remap(src, dst, dstStride, ow, oh, stepX, stepY, bpp: 3)
        default: Self.remap(src, dst, dstStride, ow, oh, stepX, stepY, bpp: 1)
        }
        return out.freeze()
    }

    /// Copies an `ow` × `oh` image with pixel (x, y) at `src + x · stepX + y · stepY` into `dst`;
    /// 90° and 270° go 8 output rows at a time (32 for gray), so a source line serves several.
    @inline(__always)
    static func remap(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ dstStride: Int, _ ow: Int, _ oh: Int,
        _ stepX: Int, _ stepY: Int, bpp: Int
    ) {
        @inline(__always) func copy(_ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer) {
            switch bpp {
            case 4: to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            case 3:
                to.storeBytes(of: from.loadUnaligned(as: UInt16.self), as: UInt16.self)
                to.storeBytes(of: from.load(fromByteOffset: 2, as: UInt8.self), toByteOffset: 2, as: UInt8.self)
            default: to.storeBytes(of: from.load(as: UInt8.self), as: UInt8.self)
            }
        }
        if abs(stepX) == bpp {
            for y in 0..<oh {
                let s = src + y &* stepY, d = dst + y &* dstStride
                for x in 0..<ow { copy(s + x &* stepX, d + x &* bpp) }
            }
            return
        }
        let tile = bpp == 1 ? 32 : 8
        var y0 = 0
        while y0 < oh {
            let rows = Swift.min(tile, oh - y0)
            let s0 = src + y0 &* stepY, d0 = dst + y0 &* dstStride
            for x in 0..<ow {
                let s = s0 + x &* stepX, d = d0 + x &* bpp
                for k in 0..<rows { copy(s + k &* stepY, d + k &* dstStride) }
            }
            y0 += tile
        }
    }
}
