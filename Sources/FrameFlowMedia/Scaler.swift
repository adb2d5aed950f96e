import CFFmpeg
import FrameFlow
import FrameFlowSinks

/// An owned `SwsContext`, rebuilt when the source size or format changes (a camera that
/// switches modes, a stream that changes resolution).
final class Scaler {
    private var context: OpaquePointer?
    private struct Key: Equatable {
        var srcWidth, srcHeight, srcFormat, dstWidth, dstHeight, dstFormat: Int32
        var srcFull, dstFull: Bool
    }
    private var key: Key?

    deinit { sws_freeContext(context) }

    /// Converts `src` (FFmpeg planes) into `dst` planes of `dstFormat`.
    func convert(
        src: UnsafePointer<UnsafePointer<UInt8>?>, srcStrides: UnsafePointer<Int32>, srcWidth: Int32, srcHeight: Int32,
        srcFormat: AVPixelFormat, srcFullRange: Bool,
        dst: UnsafePointer<UnsafeMutablePointer<UInt8>?>, dstStrides: UnsafePointer<Int32>, dstWidth: Int32,
        dstHeight: Int32, dstFormat: AVPixelFormat, dstFullRange: Bool, source: String
    ) throws {
        let k = Key(
            srcWidth: srcWidth, srcHeight: srcHeight, srcFormat: srcFormat.rawValue, dstWidth: dstWidth,
            dstHeight: dstHeight, dstFormat: dstFormat.rawValue, srcFull: srcFullRange, dstFull: dstFullRange)
        if context == nil || k != key {
            // swscale asserts (aborting the process) on formats it does not take.
            guard sws_isSupportedInput(srcFormat) != 0, sws_isSupportedOutput(dstFormat) != 0 else {
                throw MediaError(
                    .unsupportedCodec, source, "cannot convert \(Self.name(srcFormat)) \(srcWidth)×\(srcHeight) to \(Self.name(dstFormat))")
            }
            sws_freeContext(context)
            context = sws_getContext(
                srcWidth, srcHeight, srcFormat, dstWidth, dstHeight, dstFormat, Int32(SWS_BILINEAR), nil, nil, nil)
            guard let context else {
                throw MediaError(
                    .unsupportedCodec, source, "cannot convert \(Self.name(srcFormat)) \(srcWidth)×\(srcHeight) to \(Self.name(dstFormat))")
            }
            // Colour ranges (full for JPEG-style and RGB, video for broadcast YUV), BT.601.
            let coeffs = sws_getCoefficients(SWS_CS_ITU601)
            sws_setColorspaceDetails(context, coeffs, srcFullRange ? 1 : 0, coeffs, dstFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
            key = k
        }
        let r = sws_scale(context, src, srcStrides, 0, srcHeight, dst, dstStrides)
        guard r > 0 else { throw MediaError(.ffmpeg, source, "pixel conversion failed", code: r) }
    }

    static func name(_ f: AVPixelFormat) -> String {
        guard let n = av_get_pix_fmt_name(f) else { return "format \(f.rawValue)" }
        return String(cString: n)
    }
}

extension Scaler {
    /// Scales and converts `image` into `frame`'s planes (`width` × `height`, `format`), as an
    /// encoder's input; `source` names the output in errors.
    func convert(
        _ image: ImageFrame, into frame: UnsafeMutablePointer<AVFrame>, width: Int32, height: Int32, format: AVPixelFormat,
        fullRange: Bool, source: String
    ) throws {
        let srcFull = image.format.yuvRange.map { $0 == .full } ?? true
        try image.withFFmpegPlanes { src, srcStrides in
            try withUnsafePointer(to: &frame.pointee.data) { d in
                try d.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
                    try withUnsafePointer(to: &frame.pointee.linesize) { l in
                        try l.withMemoryRebound(to: Int32.self, capacity: 8) { dstStrides in
                            try convert(
                                src: src, srcStrides: srcStrides, srcWidth: Int32(image.width), srcHeight: Int32(image.height),
                                srcFormat: image.format.avPixelFormat, srcFullRange: srcFull, dst: dst, dstStrides: dstStrides,
                                dstWidth: width, dstHeight: height, dstFormat: format, dstFullRange: fullRange, source: source)
                        }
                    }
                }
            }
        }
    }
}

extension ImageFrame {
    /// Plane pointers and strides as FFmpeg wants them.
    func withFFmpegPlanes<R>(_ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>) throws -> R) rethrows -> R {
        var ptrs: [UnsafePointer<UInt8>?] = Array(repeating: nil, count: 4)
        var strides: [Int32] = Array(repeating: 0, count: 4)
        for (i, p) in planes.enumerated() {
            ptrs[i] = UnsafePointer(p.baseAddress.assumingMemoryBound(to: UInt8.self))
            strides[i] = Int32(p.bytesPerRow)
        }
        return try body(ptrs, strides)
    }
}

extension MutableImageFrame {
    /// Writable plane pointers and strides as FFmpeg wants them.
    func withFFmpegPlanes<R>(_ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) throws -> R) rethrows -> R {
        var ptrs: [UnsafeMutablePointer<UInt8>?] = Array(repeating: nil, count: 4)
        var strides: [Int32] = Array(repeating: 0, count: 4)
        for (i, p) in planes.enumerated() {
            ptrs[i] = p.baseAddress.assumingMemoryBound(to: UInt8.self)
            strides[i] = Int32(p.bytesPerRow)
        }
        return try body(ptrs, strides)
    }
}
