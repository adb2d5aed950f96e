import Foundation
import FrameFlow
import FrameFlowSinks

/// Opens the sink a destination names: `null`, a `.jsonl` file, an image/video file, an HLS
/// playlist (`.m3u8`) or a network URL (`udp://`, `rtp://`, `rtmp://`, `srt://`, `rtsp://`).
public func makeSink(_ destination: String, stream: String, encode: EncodeOptions = EncodeOptions()) throws -> any PacketSink {
    if destination == "null" { return NullSink() }
    if destination == "window" {
        throw MediaError(.noDisplay, destination, "the window output needs FrameFlowDisplay (not built yet); write to a file instead")
    }
    if destination.lowercased().hasSuffix(".jsonl") { return try JSONLinesSink(path: destination, stream: stream) }
    return ImageStreamSink(try VideoFileSink(path: destination, options: encode), stream: stream)
}

/// Adapts `VideoFileSink` to image packets. Float masks (`grayFloat32`) are written as 8-bit
/// grey, value × 255 clamped and rounded (`ImageFrame.grayFloatToGray8`); a PNG of one is a
/// one-channel grey PNG.
final class ImageStreamSink: PacketSink {
    let file: VideoFileSink
    let stream: String
    init(_ file: VideoFileSink, stream: String) {
        self.file = file
        self.stream = stream
    }
    func write(_ packet: Packet) throws {
        var image = try packet.get(ImageFrame.self, stream: stream)
        if image.format == .grayFloat32 { image = try image.grayFloatToGray8() }
        try file.write(image, at: packet.timestamp)
    }
    func prepare() throws { try file.prepare() }
    func finish() throws { try file.finish() }
    func discard() { file.discard() }
}
