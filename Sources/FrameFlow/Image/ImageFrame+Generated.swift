/// Images made from a formula: generated frames for examples, tests and test patterns.
extension ImageFrame {
    /// A packed 8-bit image (`rgba8`, `rgb8`, `bgra8`, `gray8`, …) whose channel `channel` of
    /// pixel (`x`, `y`) is `value(x, y, channel)`.
    ///
    /// ```swift
    /// let frame = try ImageFrame(width: 64, height: 48) { x, y, c in c == 3 ? 255 : UInt8(x * 4) }
    /// ```
    public init(
        width: Int, height: Int, format: PixelFormat = .rgba8, value: (_ x: Int, _ y: Int, _ channel: Int) -> UInt8
    ) throws {
        guard width > 0, height > 0 else { throw ImageError.invalidSize(width: width, height: height) }
        guard format.planeCount == 1 else { throw ImageError.invalidLayout("\(format) is planar; a generated image is packed") }
        let bpp = format.bytesPerPixel()
        let (rowBytes, overflow) = width.multipliedReportingOverflow(by: bpp)
        let (total, overflow2) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow, !overflow2 else { throw ImageError.invalidSize(width: width, height: height) }
        let buffer = ImageBuffer(byteCount: total)
        let base = buffer.baseAddress.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bpp { base[y * rowBytes + x * bpp + c] = value(x, y, c) }
            }
        }
        try self.init(
            width: width, height: height, format: format, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: rowBytes, rows: height)])
    }
}
