import FrameFlow

/// Why reading or writing media failed. Every case names the file, URL or stream.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case fileNotFound, notMedia, noVideoStream, unsupportedCodec, cannotWrite, unsupportedOutput
        case ffmpeg, invalidArgument, noDisplay
        /// Over `ResourceLimits` (an image too large to decode).
        case tooLarge
        /// No data within the time-out.
        case timedOut
        /// Stopped by Ctrl-C or SIGTERM.
        case interrupted
    }
    public var kind: Kind
    /// The file, URL or device concerned.
    public var source: String
    public var message: String
    /// FFmpeg's error code, for `.ffmpeg`.
    public var code: Int32?

    public init(_ kind: Kind, _ source: String, _ message: String, code: Int32? = nil) {
        self.kind = kind
        self.source = source
        self.message = message
        self.code = code
    }

    public var description: String { "\(source): \(message)" }
}
