/// One-channel float images (`grayFloat32`): how segmentation masks are made, resized,
/// summarized and written out.
///
/// A mask holds one `Float` a pixel, 0 (background) to 1 (foreground), as MediaPipe's
/// `ImageFormat::VEC32F1` masks do.
extension ImageFrame {
    /// A `grayFloat32` image of `width` × `height` from `values`, row by row.
    public static func grayFloat(width: Int, height: Int, values: [Float], pool: ImagePool = .shared) throws -> ImageFrame {
        guard values.count == width * height else {
            throw ImageError.invalidLayout("\(values.count) values for a \(width)×\(height) float image")
        }
        var out = try pool.makeImage(width: width, height: height, format: .grayFloat32)
        values.withUnsafeBufferPointer { v in
            for y in 0..<height {
                out.withMutableRow(y) { row in
                    let d = UnsafeMutableRawPointer(row.baseAddress!).assumingMemoryBound(to: Float.self)
                    for x in 0..<width { d[x] = v[y * width + x] }
                }
            }
        }
        return out.freeze()
    }

    /// The values of a `grayFloat32` image, row by row.
    public func grayFloatValues() throws -> [Float] {
        guard format == .grayFloat32 else { throw ImageError.unsupportedFormat(format, "grayFloatValues") }
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let s = (planes[0].baseAddress + y * planes[0].bytesPerRow).assumingMemoryBound(to: Float.self)
            for x in 0..<width { out[y * width + x] = s[x] }
        }
        return out
    }

    /// This `grayFloat32` image resized to `width` × `height` by bilinear interpolation,
    /// exactly as OpenCV's `cv::resize` with `INTER_LINEAR` (which MediaPipe's CPU
    /// calculators call): pixel centres aligned, source coordinate `(d + 0.5) · s/d − 0.5`
    /// clamped to the edge pixels, weights in single precision, a row pass then a column pass.
    /// The same size gives the image itself.
    public func resizedBilinear(width newWidth: Int, height newHeight: Int, pool: ImagePool = .shared) throws -> ImageFrame {
        guard format == .grayFloat32 else { throw ImageError.unsupportedFormat(format, "resizedBilinear") }
        if newWidth == width && newHeight == height { return self }
        var out = try pool.makeImage(width: newWidth, height: newHeight, format: .grayFloat32)
        let xs = Self.linearTaps(source: width, destination: newWidth)
        let ys = Self.linearTaps(source: height, destination: newHeight)
        var top = [Float](repeating: 0, count: newWidth), bottom = top
        var rowsInTop = -1, rowsInBottom = -1
        let plane = planes[0]
        // One source row interpolated along x (OpenCV's horizontal pass).
        func horizontal(_ sy: Int, into buffer: inout [Float]) {
            let s = (plane.baseAddress + sy * plane.bytesPerRow).assumingMemoryBound(to: Float.self)
            for dx in 0..<newWidth {
                let t = xs[dx]
                buffer[dx] = t.last ? s[t.index] * t.w0 : s[t.index] * t.w0 + s[t.index + 1] * t.w1
            }
        }
        for dy in 0..<newHeight {
            let t = ys[dy]
            let y0 = t.index, y1 = min(t.index + 1, height - 1)
            if rowsInTop != y0 {
                if rowsInBottom == y0 { swap(&top, &bottom) } else { horizontal(y0, into: &top) }
                rowsInTop = y0
            }
            if rowsInBottom != y1 {
                horizontal(y1, into: &bottom)
                rowsInBottom = y1
            }
            out.withMutableRow(dy) { row in
                let d = UnsafeMutableRawPointer(row.baseAddress!).assumingMemoryBound(to: Float.self)
                for dx in 0..<newWidth { d[dx] = top[dx] * t.w0 + bottom[dx] * t.w1 }
            }
        }
        return out.freeze()
    }

    /// OpenCV's linear taps for one axis: the first source index and its two weights for each
    /// destination index; `last` when the tap sits on the last source pixel (weight 1 alone).
    static func linearTaps(source: Int, destination: Int) -> [(index: Int, w0: Float, w1: Float, last: Bool)] {
        let scale = 1.0 / (Double(destination) / Double(source))
        return (0..<destination).map { d in
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            var i = Int(f.rounded(.down))
            f -= Float(i)
            if i < 0 { (i, f) = (0, 0) }
            var last = false
            if i >= source - 1 { (i, f, last) = (source - 1, 0, true) }
            return (i, 1 - f, f, last)
        }
    }

    /// A `gray8` image of this `grayFloat32` mask: each value × 255, clamped to 0…255 and
    /// rounded to nearest (NaN gives 0). How masks are written to image and video files.
    public func grayFloatToGray8(pool: ImagePool = .shared) throws -> ImageFrame {
        guard format == .grayFloat32 else { throw ImageError.unsupportedFormat(format, "grayFloatToGray8") }
        var out = try pool.makeImage(width: width, height: height, format: .gray8)
        let plane = planes[0]
        for y in 0..<height {
            let s = (plane.baseAddress + y * plane.bytesPerRow).assumingMemoryBound(to: Float.self)
            out.withMutableRow(y) { row in
                for x in 0..<width {
                    let v = s[x] * 255
                    row[x] = v.isNaN ? 0 : UInt8(min(max(v, 0), 255).rounded())
                }
            }
        }
        return out.freeze()
    }

    /// The mean value of a `grayFloat32` mask and the fraction of its pixels at or above 0.5
    /// (the share counted as foreground), or `nil` for other formats.
    public var maskSummary: (mean: Double, foregroundFraction: Double)? {
        guard format == .grayFloat32 else { return nil }
        var sum = 0.0
        var foreground = 0
        for y in 0..<height {
            let s = (planes[0].baseAddress + y * planes[0].bytesPerRow).assumingMemoryBound(to: Float.self)
            var rowSum = 0.0
            for x in 0..<width {
                rowSum += Double(s[x])
                if s[x] >= 0.5 { foreground += 1 }
            }
            sum += rowSum
        }
        let n = Double(width * height)
        return (sum / n, Double(foreground) / n)
    }
}

extension ImageFrame: JSONLinesRepresentable {
    /// `width`, `height` and `format` (its command-line name); a `grayFloat32` mask adds `mean`
    /// (its mean value) and `foreground_fraction` (the fraction of pixels ≥ 0.5).
    public var jsonObject: [String: Any] {
        var members: [String: Any] = ["width": width, "height": height, "format": format.name]
        if let s = maskSummary {
            members["mean"] = s.mean
            members["foreground_fraction"] = s.foregroundFraction
        }
        return members
    }
}
