import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// Encodes images to JPEG in memory (FFmpeg's `mjpeg` encoder), optionally scaled to a width
/// (the height follows the aspect ratio). One encoder keeps its codec and scaler between calls
/// while the output size stays the same; it is not thread-safe (one caller at a time).
///
/// ```swift
/// let encoder = JPEGEncoder()
/// let bytes = try encoder.encode(frame, width: 640)   // a complete JPEG file
/// ```
public final class JPEGEncoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let scaler = Scaler()
    private var size: (width: Int32, height: Int32)?
    private var pts: Int64 = 0

    /// A new encoder (the codec opens on the first image).
    public init() {}

    deinit { close() }

    /// `image` as a JPEG file; `width` (nil: the image's) scales it, keeping the aspect ratio.
    /// Sizes are rounded down to even numbers (4:2:0), at least 2.
    public func encode(_ image: ImageFrame, width: Int? = nil) throws -> Data {
        guard image.format.avPixelFormat != AV_PIX_FMT_NONE else {
            throw MediaError(.unsupportedOutput, "jpeg", "\(image.format) images cannot be encoded; convert them to rgba8 or gray8 first")
        }
        let w = width ?? image.width
        let h = max(1, Int(saturating: (Double(image.height) * Double(w) / Double(max(1, image.width))).rounded()))
        let outW = Int32(max(2, w & ~1))
        let outH = Int32(max(2, h & ~1))
        if size == nil || size! != (outW, outH) { try open(width: outW, height: outH) }
        guard let c = codec, let f = frame, let p = packet else { throw MediaError(.ffmpeg, "jpeg", "the encoder is not open") }
        _ = try check(av_frame_make_writable(f), "jpeg", "encoder frame")
        try scaler.convert(image, into: f, width: outW, height: outH, format: AV_PIX_FMT_YUVJ420P, fullRange: true, source: "jpeg")
        pts += 1
        f.pointee.pts = pts
        _ = try check(avcodec_send_frame(c, f), "jpeg", "encoding failed")
        _ = try check(avcodec_receive_packet(c, p), "jpeg", "encoding failed")
        defer { av_packet_unref(p) }
        return Data(bytes: p.pointee.data, count: Int(p.pointee.size))
    }

    private func open(width: Int32, height: Int32) throws {
        close()
        guard let encoder = avcodec_find_encoder_by_name("mjpeg") else {
            throw MediaError(.unsupportedCodec, "jpeg", "FFmpeg has no mjpeg encoder")
        }
        codec = avcodec_alloc_context3(encoder)
        guard let c = codec else { throw MediaError(.ffmpeg, "jpeg", "cannot allocate the encoder") }
        c.pointee.width = width
        c.pointee.height = height
        c.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        c.pointee.color_range = AVCOL_RANGE_JPEG
        c.pointee.time_base = AVRational(num: 1, den: 25)
        // Fixed quality (qscale 4 of 2…31): good for a live view at a fraction of PNG's size.
        c.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        c.pointee.global_quality = 4 * Int32(FF_QP2LAMBDA)
        _ = try check(avcodec_open2(c, encoder, nil), "jpeg", "cannot open the mjpeg encoder")
        frame = av_frame_alloc()
        frame!.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        frame!.pointee.width = width
        frame!.pointee.height = height
        _ = try check(av_frame_get_buffer(frame, 0), "jpeg", "cannot allocate an encoder frame")
        packet = av_packet_alloc()
        size = (width, height)
    }

    private func close() {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        size = nil
    }
}
