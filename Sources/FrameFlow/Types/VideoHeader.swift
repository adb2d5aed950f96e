/// MediaPipe's `VideoHeader`: what a video stream is (its frame size and rate), sent once at
/// `Timestamp.preStream` on streams such as `LabelsToRenderDataCalculator`'s
/// `VIDEO_PRESTREAM`.
public struct VideoHeader: Sendable, Hashable, Codable {
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// Frames per second, 0 when unknown.
    public var frameRate: Double
    /// Seconds, 0 when unknown.
    public var duration: Double

    /// A header for `width` × `height` frames.
    public init(width: Int, height: Int, frameRate: Double = 0, duration: Double = 0) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.duration = duration
    }

    enum CodingKeys: String, CodingKey { case width, height, frameRate = "frame_rate", duration }
}
