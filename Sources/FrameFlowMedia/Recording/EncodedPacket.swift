import CFFmpeg
import Foundation
import FrameFlow

/// A stream's time base: a packet's `pts` × `numerator` ÷ `denominator` is seconds.
public struct EncodedTimeBase: Sendable, Hashable {
    public var numerator: Int32
    public var denominator: Int32
    public init(numerator: Int32, denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }
    /// `value` ticks in seconds.
    public func seconds(_ value: Int64) -> Double { Double(value) * Double(numerator) / Double(denominator) }
    var av: AVRational { AVRational(num: numerator, den: denominator) }
}

/// One encoded video packet as the demuxer read it: the compressed bytes, untouched, with
/// their times in the stream's time base. `MediaSource.packetTap` hands them out.
public struct EncodedPacket: Sendable {
    /// The compressed bytes, exactly as read from the container.
    public var data: Data
    /// Presentation and decoding times in `timeBase` ticks (nil when the container has none).
    public var pts: Int64?
    public var dts: Int64?
    /// Duration in `timeBase` ticks (0 when unknown).
    public var duration: Int64
    /// Whether a decoder can start here (FFmpeg's `AV_PKT_FLAG_KEY`).
    public var isKeyframe: Bool
    public var timeBase: EncodedTimeBase

    public init(data: Data, pts: Int64?, dts: Int64?, duration: Int64, isKeyframe: Bool, timeBase: EncodedTimeBase) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.timeBase = timeBase
    }

    /// The presentation time in seconds (the decoding time when there is none).
    public var seconds: Double { timeBase.seconds(pts ?? dts ?? 0) }
    /// The decoding time in seconds (the presentation time when there is none).
    public var decodeSeconds: Double { timeBase.seconds(dts ?? pts ?? 0) }

    /// Copies FFmpeg's packet (the only copy the tap makes).
    init(_ p: UnsafePointer<AVPacket>, timeBase: AVRational) {
        let size = Int(p.pointee.size)
        data = size > 0 && p.pointee.data != nil ? Data(bytes: p.pointee.data, count: size) : Data()
        pts = p.pointee.pts == ff_nopts_value() ? nil : p.pointee.pts
        dts = p.pointee.dts == ff_nopts_value() ? nil : p.pointee.dts
        duration = p.pointee.duration
        isKeyframe = (p.pointee.flags & AV_PKT_FLAG_KEY) != 0
        self.timeBase = EncodedTimeBase(numerator: timeBase.num, denominator: timeBase.den)
    }
}

/// The codec parameters of an encoded video stream (codec, size, extradata, …), what a muxer
/// needs to write its packets again without re-encoding. FFmpeg's struct stays inside.
///
/// `@unchecked Sendable`: the parameters are copied once at creation and never written again.
public final class EncodedStreamInfo: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    /// The stream's time base.
    public let timeBase: EncodedTimeBase
    /// FFmpeg's codec name (`h264`, `hevc`, `mpeg4`, …).
    public let codecName: String
    public let width: Int
    public let height: Int
    /// Frames per second the stream declares, if any.
    public let frameRate: Double?

    init(copying source: UnsafePointer<AVCodecParameters>, timeBase: AVRational, frameRate: Double?) throws {
        guard let p = avcodec_parameters_alloc() else { throw MediaError(.ffmpeg, "packet tap", "out of memory copying codec parameters") }
        let r = avcodec_parameters_copy(p, source)
        if r < 0 {
            var q: UnsafeMutablePointer<AVCodecParameters>? = p
            avcodec_parameters_free(&q)
            throw MediaError(.ffmpeg, "packet tap", "cannot copy codec parameters: \(ffmpegMessage(r))", code: r)
        }
        parameters = p
        self.timeBase = EncodedTimeBase(numerator: timeBase.num, denominator: timeBase.den)
        codecName = String(cString: avcodec_get_name(p.pointee.codec_id))
        width = Int(p.pointee.width)
        height = Int(p.pointee.height)
        self.frameRate = frameRate
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&p)
    }
}
