import FrameFlow
import Foundation

/// Images for tests: synthetic patterns with chosen strides, and PNM files.
public enum TestImages {
    /// An image whose channel `c` of pixel (x, y) is `value(x, y, c)`, with rows padded by
    /// `extraStride` bytes (to test strides wider than the row). 8-bit packed formats.
    public static func make(
        width: Int, height: Int, format: PixelFormat, extraStride: Int = 0, value: (Int, Int, Int) -> UInt8
    ) throws -> ImageFrame {
        let bpp = format.bytesPerPixel()
        let stride = width * bpp + extraStride
        let buffer = ImageBuffer(byteCount: stride * height)
        let base = buffer.baseAddress.assumingMemoryBound(to: UInt8.self)
        base.initialize(repeating: 0xEE, count: stride * height)  // padding is garbage on purpose
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bpp { base[y * stride + x * bpp + c] = value(x, y, c) }
            }
        }
        return try ImageFrame(
            width: width, height: height, format: format,
            planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: stride, rows: height)])
    }

    /// Deterministic pseudo-random pixels (a 64-bit LCG seeded by `seed`).
    public static func random(width: Int, height: Int, format: PixelFormat, extraStride: Int = 0, seed: UInt64 = 1) throws -> ImageFrame {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var bytes = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel())
        for i in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let bpp = format.bytesPerPixel()
        return try make(width: width, height: height, format: format, extraStride: extraStride) { x, y, c in
            bytes[(y * width + x) * bpp + c]
        }
    }

    /// Reads a binary PGM (P5) or PPM (P6) file as gray8 or rgb8; `rgba: true` makes a
    /// PPM rgba8 with alpha 255.
    public static func readPNM(_ path: String, rgba: Bool = false) throws -> ImageFrame {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageError.invalidLayout("cannot read \(path)")
        }
        let bytes = [UInt8](data)
        var pos = 0
        func token() throws -> String {
            while pos < bytes.count {
                if bytes[pos] == UInt8(ascii: "#") {
                    while pos < bytes.count && bytes[pos] != 10 { pos += 1 }
                } else if bytes[pos] == 32 || bytes[pos] == 10 || bytes[pos] == 13 || bytes[pos] == 9 {
                    pos += 1
                } else {
                    break
                }
            }
            var s = ""
            while pos < bytes.count, !(bytes[pos] == 32 || bytes[pos] == 10 || bytes[pos] == 13 || bytes[pos] == 9) {
                s.append(Character(UnicodeScalar(bytes[pos])))
                pos += 1
            }
            return s
        }
        let magic = try token()
        guard magic == "P5" || magic == "P6", let w = Int(try token()), let h = Int(try token()), let maxv = Int(try token()),
            maxv == 255, w > 0, h > 0
        else { throw ImageError.invalidLayout("\(path): not an 8-bit binary PGM/PPM") }
        pos += 1
        let ch = magic == "P5" ? 1 : 3
        guard bytes.count - pos >= w * h * ch else { throw ImageError.invalidLayout("\(path): truncated") }
        let start = pos
        if ch == 3 && rgba {
            return try make(width: w, height: h, format: .rgba8) { x, y, c in
                c == 3 ? 255 : bytes[start + (y * w + x) * 3 + c]
            }
        }
        return try make(width: w, height: h, format: ch == 1 ? .gray8 : .rgb8) { x, y, c in
            bytes[start + (y * w + x) * ch + c]
        }
    }

    /// Writes gray8 as PGM, rgb8/rgba8/bgra8 as PPM (alpha dropped).
    public static func writePNM(_ image: ImageFrame, to path: String) throws {
        var out = [UInt8]()
        let gray = image.format == .gray8
        out += Array("\(gray ? "P5" : "P6")\n\(image.width) \(image.height)\n255\n".utf8)
        for y in 0..<image.height {
            let row = image.row(y)
            for x in 0..<image.width {
                switch image.format {
                case .gray8: out.append(row[x])
                case .rgb8: out += [row[3 * x], row[3 * x + 1], row[3 * x + 2]]
                case .rgba8: out += [row[4 * x], row[4 * x + 1], row[4 * x + 2]]
                case .bgra8: out += [row[4 * x + 2], row[4 * x + 1], row[4 * x]]
                default: throw ImageError.unsupportedFormat(image.format, "writePNM")
                }
            }
        }
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    /// The largest absolute difference between two images' pixel bytes (same size and
    /// format required; strides may differ).
    public static func maxDifference(_ a: ImageFrame, _ b: ImageFrame) -> Int {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        var m = 0
        for p in 0..<a.format.planeCount {
            let (_, ph) = a.format.planeSize(p, width: a.width, height: a.height)
            for y in 0..<ph {
                let ra = a.row(y, plane: p), rb = b.row(y, plane: p)
                for i in 0..<ra.count { m = max(m, abs(Int(ra[i]) - Int(rb[i]))) }
            }
        }
        return m
    }
}
