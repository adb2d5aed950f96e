/// One plane of an image: rows of bytes inside an `ImageBuffer`.
public struct ImagePlane: Sendable {
    /// The memory the plane lives in (shared by the image's other planes).
    public let buffer: ImageBuffer
    /// Byte offset of row 0 inside `buffer`.
    public let offset: Int
    /// Distance between the starts of two rows, in bytes (≥ the row's pixel bytes).
    public let bytesPerRow: Int
    /// Number of rows.
    public let rows: Int

    /// A plane of `rows` rows `bytesPerRow` apart, starting `offset` bytes into `buffer`.
    public init(buffer: ImageBuffer, offset: Int, bytesPerRow: Int, rows: Int) {
        self.buffer = buffer
        self.offset = offset
        self.bytesPerRow = bytesPerRow
        self.rows = rows
    }

    /// The address of row 0.
    @inlinable public var baseAddress: UnsafeMutableRawPointer { buffer.baseAddress + offset }
}

/// An immutable image: width, height, pixel format and planes with row strides.
///
/// Images are built as a `MutableImageFrame` (from an `ImagePool`, so a running graph
/// recycles pixel memory) and frozen before they are sent; from then on every reader
/// sees the same pixels. Copying an `ImageFrame` copies references, not pixels.
///
/// ```swift
/// var m = try ImagePool.shared.makeImage(width: 2, height: 2, format: .gray8)
/// m.withMutableRow(0) { $0[1] = 255 }
/// let image = m.freeze()
/// print(image[1, 0])   // Prints "[255]"
/// ```
public struct ImageFrame: Sendable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// How the pixels are laid out.
    public let format: PixelFormat
    /// The planes, as many as `format.planeCount`.
    public let planes: [ImagePlane]

    /// An image over existing planes; the planes must fit `format` and the size.
    public init(width: Int, height: Int, format: PixelFormat, planes: [ImagePlane]) throws {
        guard width > 0, height > 0 else { throw ImageError.invalidSize(width: width, height: height) }
        guard planes.count == format.planeCount else {
            throw ImageError.invalidLayout("\(format) needs \(format.planeCount) planes, got \(planes.count)")
        }
        for (i, p) in planes.enumerated() {
            let (pw, ph) = format.planeSize(i, width: width, height: height)
            let rowBytes = pw * format.bytesPerPixel(plane: i)
            guard p.bytesPerRow >= rowBytes, p.rows >= ph, p.offset >= 0,
                p.offset + p.bytesPerRow * (ph - 1) + rowBytes <= p.buffer.byteCount
            else {
                throw ImageError.invalidLayout("plane \(i) (\(pw)×\(ph), stride \(p.bytesPerRow)) does not fit its buffer")
            }
        }
        self.init(uncheckedWidth: width, height: height, format: format, planes: planes)
    }

    init(uncheckedWidth width: Int, height: Int, format: PixelFormat, planes: [ImagePlane]) {
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
    }

    /// A row of plane `plane` as bytes (only the pixel bytes, not the padding).
    @inlinable public func row(_ y: Int, plane: Int = 0) -> UnsafeBufferPointer<UInt8> {
        let p = planes[plane]
        let (pw, _) = format.planeSize(plane, width: width, height: height)
        let start = (p.baseAddress + y * p.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: start, count: pw * format.bytesPerPixel(plane: plane))
    }

    /// The channel values of pixel (`x`, `y`) of an 8-bit packed format (the Y, U, V
    /// samples for planar YUV).
    public subscript(x: Int, y: Int) -> [UInt8] {
        switch format {
        case .nv12:
            let uv = row(y / 2, plane: 1)
            return [row(y)[x], uv[(x / 2) * 2], uv[(x / 2) * 2 + 1]]
        case .i420:
            return [row(y)[x], row(y / 2, plane: 1)[x / 2], row(y / 2, plane: 2)[x / 2]]
        case .grayFloat32, .rgbaFloat32:
            let n = format.bytesPerPixel()
            return Array(row(y)[x * n..<(x + 1) * n])
        default:
            let n = format.bytesPerPixel()
            return Array(row(y)[x * n..<(x + 1) * n])
        }
    }

    /// The pixel bytes of every plane, rows packed without padding (for tests and files).
    public func packedBytes() -> [UInt8] {
        var out: [UInt8] = []
        for plane in 0..<planes.count {
            let (_, ph) = format.planeSize(plane, width: width, height: height)
            for y in 0..<ph { out.append(contentsOf: row(y, plane: plane)) }
        }
        return out
    }

    /// A mutable copy with fresh memory from `pool`.
    public func mutableCopy(pool: ImagePool = .shared) throws -> MutableImageFrame {
        var m = try pool.makeImage(width: width, height: height, format: format)
        for plane in 0..<planes.count {
            let (_, ph) = format.planeSize(plane, width: width, height: height)
            for y in 0..<ph {
                let src = row(y, plane: plane)
                m.withMutableRow(y, plane: plane) { dst in
                    dst.baseAddress!.update(from: src.baseAddress!, count: src.count)
                }
            }
        }
        return m
    }

    public var description: String { "ImageFrame(\(width)×\(height) \(format))" }
}

/// An image being built: its pixels may be written until `freeze()` makes it an
/// `ImageFrame`. Not `Sendable`, so it cannot escape to another thread half-written.
public struct MutableImageFrame {
    private var frame: ImageFrame

    init(frame: ImageFrame) { self.frame = frame }

    /// Width in pixels.
    public var width: Int { frame.width }
    /// Height in pixels.
    public var height: Int { frame.height }
    /// How the pixels are laid out.
    public var format: PixelFormat { frame.format }
    /// The planes, as many as `format.planeCount`.
    public var planes: [ImagePlane] { frame.planes }

    /// Writes row `y` of plane `plane` (pixel bytes only).
    @inlinable public mutating func withMutableRow<R>(
        _ y: Int, plane: Int = 0, _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        let p = planes[plane]
        let (pw, _) = format.planeSize(plane, width: width, height: height)
        let start = (p.baseAddress + y * p.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        return try body(UnsafeMutableBufferPointer(start: start, count: pw * format.bytesPerPixel(plane: plane)))
    }

    /// Fills every byte of every plane with `value`.
    public mutating func fill(_ value: UInt8) {
        for (i, p) in planes.enumerated() {
            let (_, ph) = format.planeSize(i, width: width, height: height)
            p.baseAddress.initializeMemory(as: UInt8.self, repeating: value, count: p.bytesPerRow * ph)
        }
    }

    /// The finished image.
    public consuming func freeze() -> ImageFrame { frame }
}
