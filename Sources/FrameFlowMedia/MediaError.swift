import CFFmpeg
import FrameFlow
import FrameFlowSinks

/// FFmpeg's text for an error code.
func ffmpegMessage(_ code: Int32) -> String {
    var buf = [CChar](repeating: 0, count: 256)
    _ = ff_error_string(code, &buf, buf.count)
    return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Turns FFmpeg's negative return codes into `MediaError`s carrying FFmpeg's message.
@discardableResult
func check(_ code: Int32, _ source: @autoclosure () -> String, _ what: @autoclosure () -> String) throws -> Int32 {
    guard code < 0 else { return code }
    throw MediaError(.ffmpeg, source(), "\(what()): \(ffmpegMessage(code))", code: code)
}

extension PixelFormat {
    /// FFmpeg's pixel format with the same memory layout.
    var avPixelFormat: AVPixelFormat {
        switch self {
        case .gray8: return AV_PIX_FMT_GRAY8
        case .rgb8: return AV_PIX_FMT_RGB24
        case .rgba8: return AV_PIX_FMT_RGBA
        case .bgra8: return AV_PIX_FMT_BGRA
        case .nv12: return AV_PIX_FMT_NV12
        case .i420: return AV_PIX_FMT_YUV420P
        case .grayFloat32: return AV_PIX_FMT_GRAYF32LE
        case .rgbaFloat32: return AV_PIX_FMT_NONE  // not in FFmpeg 5
        }
    }
}

/// One-time FFmpeg set-up: devices registered, library logging limited to errors (FrameFlow
/// reports problems itself).
enum FFmpegLibrary {
    static let ready: Bool = {
        avdevice_register_all()
        av_log_set_level(AV_LOG_ERROR)
        return true
    }()
}
