/// The range of luma/chroma codes in a YUV image.
public enum YUVRange: String, Sendable, Hashable, Codable {
    /// 0…255 for Y, U and V (JPEG, the iOS camera's "full range" formats).
    case full
    /// 16…235 for Y and 16…240 for U and V (broadcast video).
    case video
}

/// How the pixels of an `ImageFrame` are laid out.
///
/// Packed formats have one plane; `nv12` has a Y plane and an interleaved UV plane at half
/// resolution in both directions; `i420` has Y, U and V planes, U and V at half resolution.
public enum PixelFormat: Sendable, Hashable, CustomStringConvertible {
    /// One byte a pixel: luminance.
    case gray8
    /// Three bytes a pixel: red, green, blue.
    case rgb8
    /// Four bytes a pixel: red, green, blue, alpha.
    case rgba8
    /// Four bytes a pixel: blue, green, red, alpha.
    case bgra8
    /// A Y plane and an interleaved UV plane at half resolution, in the given range.
    case nv12(YUVRange)
    /// Y, U and V planes, U and V at half resolution, in the given range.
    case i420(YUVRange)
    /// One `Float` a pixel.
    case grayFloat32
    /// Four `Float`s a pixel, R G B A.
    case rgbaFloat32

    /// How many planes the format has.
    public var planeCount: Int {
        switch self {
        case .nv12: return 2
        case .i420: return 3
        default: return 1
        }
    }

    /// Bytes per pixel of a packed format's plane, or of a planar format's given plane
    /// (per sample pair for nv12's UV plane).
    public func bytesPerPixel(plane: Int = 0) -> Int {
        switch self {
        case .gray8: return 1
        case .rgb8: return 3
        case .rgba8, .bgra8: return 4
        case .grayFloat32: return 4
        case .rgbaFloat32: return 16
        case .nv12: return plane == 0 ? 1 : 2
        case .i420: return 1
        }
    }

    /// Number of channels of a packed format (planar YUV formats answer 3).
    public var channels: Int {
        switch self {
        case .gray8, .grayFloat32: return 1
        case .rgb8, .nv12, .i420: return 3
        case .rgba8, .bgra8, .rgbaFloat32: return 4
        }
    }

    /// The size of plane `plane` for an image of `width`×`height` pixels.
    public func planeSize(_ plane: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        if plane == 0 { return (width, height) }
        return ((width + 1) / 2, (height + 1) / 2)
    }

    /// The YUV range, for YUV formats.
    public var yuvRange: YUVRange? {
        switch self {
        case let .nv12(r), let .i420(r): return r
        default: return nil
        }
    }

    /// The name used in graph options and on the command line (`nv12`, `nv12_video`, …).
    public var name: String {
        switch self {
        case .gray8: return "gray8"
        case .rgb8: return "rgb8"
        case .rgba8: return "rgba8"
        case .bgra8: return "bgra8"
        case let .nv12(r): return r == .full ? "nv12" : "nv12_video"
        case let .i420(r): return r == .full ? "i420" : "i420_video"
        case .grayFloat32: return "gray_f32"
        case .rgbaFloat32: return "rgba_f32"
        }
    }

    /// The format named `name` (see `name`), or `nil`.
    public init?(name: String) {
        let all: [PixelFormat] = [
            .gray8, .rgb8, .rgba8, .bgra8, .nv12(.full), .nv12(.video), .i420(.full), .i420(.video),
            .grayFloat32, .rgbaFloat32,
        ]
        guard let f = all.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = f
    }

    public var description: String { name }
}
