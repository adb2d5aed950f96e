import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// Writes single images as PNG (lossless) or JPEG, through FFmpeg's encoders.
public enum ImageFileWriter {
    /// Writes `image` to `path`; the format follows the extension (`.png`, `.jpg`).
    public static func write(_ image: ImageFrame, to path: String) throws {
        let sink = try VideoFileSink(path: path)
        try sink.write(image, at: 0)
        try sink.finish()
    }
}
