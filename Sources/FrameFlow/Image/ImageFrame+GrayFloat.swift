import CFrameFlowKernels

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
        let out = try pool.makeImage(width: newWidth, height: newHeight, format: .grayFloat32)
        // Per column: the two source columns (the second clamped to the edge, where its weight
        // is 0) and their weights.
        let xs = Self.linearTaps(source: width, destination: newWidth)
        let ys = Self.linearTaps(source: height, destination: newHeight)
        let columns = UnsafeMutablePointer<Int>.allocate(capacity: 2 * newWidth)
        let weights = UnsafeMutablePointer<Float>.allocate(capacity: 4 * newWidth)
        defer {
            columns.deallocate()
            weights.deallocate()
        }
        for (dx, t) in xs.enumerated() {
            columns[2 * dx] = t.index
            columns[2 * dx + 1] = min(t.index + 1, width - 1)
            weights[2 * dx] = t.w0
            weights[2 * dx + 1] = t.w1
        }
        // Two rows interpolated along x (OpenCV's horizontal pass), reused while dy stays
        // between the same source rows.
        var top = weights + 2 * newWidth, bottom = top + newWidth
        var rowInTop = -1, rowInBottom = -1
        let src = planes[0], dst = out.planes[0]
        func horizontal(_ sy: Int, _ row: UnsafeMutablePointer<Float>) {
            let s = (src.baseAddress + sy * src.bytesPerRow).assumingMemoryBound(to: Float.self)
            ff_linear_horizontal_f32(s, columns, weights, newWidth, row)
        }
        for dy in 0..<newHeight {
            let t = ys[dy]
            let y0 = t.index, y1 = min(t.index + 1, height - 1)
            if rowInTop != y0 {
                if rowInBottom == y0 { swap(&top, &bottom) } else { horizontal(y0, top) }
                (rowInTop, rowInBottom) = (y0, rowInBottom == y0 ? -1 : rowInBottom)
            }
            if rowInBottom != y1 {
                horizontal(y1, bottom)
                rowInBottom = y1
            }
            let d = (dst.baseAddress + dy * dst.bytesPerRow).assumingMemoryBound(to: Float.self)
            let (b0, b1) = (t.w0, t.w1)
            ff_linear_vertical_f32(top, bottom, b0, b1, newWidth, d)
        }
        return out.freeze()
    }

    /// OpenCV's linear taps for one axis: the first source index and the two weights for each
    /// destination index (on the last source pixel, or before the first, the second weight is 0).
    static func linearTaps(source: Int, destination: Int) -> [(index: Int, w0: Float, w1: Float)] {
        let scale = 1.0 / (Double(destination) / Double(source))
        return (0..<destination).map { d in
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            var i = Int(saturating: f.rounded(.down))
            f -= Float(i)
            if i < 0 { (i, f) = (0, 0) }
            if i >= source - 1 { (i, f) = (source - 1, 0) }
            return (i, 1 - f, f)
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
                    row[x] = UInt8(saturating: v.rounded())
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
