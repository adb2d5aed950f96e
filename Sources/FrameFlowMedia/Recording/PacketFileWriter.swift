import CFFmpeg
import Foundation
import FrameFlowSinks

/// Writes encoded packets into an MP4 file without re-encoding: the stream's own codec
/// parameters and packet bytes, times shifted so the file starts at 0. The file is written
/// under a hidden temporary name and renamed into place by `finish()`; `discard()` (and
/// `deinit` without `finish()`) removes it, so a half file is never left behind.
final class PacketFileWriter {
    /// The destination.
    let path: String
    /// The hidden name written to until `finish()`.
    let temporaryPath: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let sourceTimeBase: AVRational
    /// The decoding time the file's times count from (the first packet's).
    private var origin: Int64?
    private var lastDts = Int64.min
    private var done = false
    /// Packets written so far, and the first and last packet's presentation times (seconds
    /// in the source's clock).
    private(set) var packetCount = 0
    private(set) var firstSeconds: Double?
    private(set) var lastSeconds: Double?

    /// Opens `path`'s temporary for `info`'s stream; throws naming `path` when the folder cannot
    /// be written or the codec cannot go into MP4.
    init(path: String, info: EncodedStreamInfo) throws {
        self.path = path
        _ = FFmpegLibrary.ready
        try OutputFile.checkDestination(path)
        temporaryPath = OutputFile.temporaryName(for: path)
        sourceTimeBase = info.timeBase.av
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, "mp4", temporaryPath), path, "cannot create the MP4 muxer")
        format = ctx
        guard let ctx, let s = avformat_new_stream(ctx, nil) else { throw MediaError(.ffmpeg, path, "cannot add a stream") }
        stream = s
        try check(avcodec_parameters_copy(s.pointee.codecpar, info.parameters), path, "cannot copy the codec parameters")
        s.pointee.codecpar.pointee.codec_tag = 0  // let the MP4 muxer pick its own tag for the codec
        s.pointee.time_base = sourceTimeBase
        let r = avio_open(&ctx.pointee.pb, temporaryPath, ff_avio_flag_write())
        if r < 0 { throw MediaError(.cannotWrite, path, "cannot write: \(ffmpegMessage(r))", code: r) }
        var dict: OpaquePointer?
        av_dict_set(&dict, "movflags", "+faststart", 0)
        defer { av_dict_free(&dict) }
        let h = avformat_write_header(ctx, &dict)
        if h < 0 {
            discard()
            throw MediaError(
                .unsupportedOutput, path, "cannot write \(info.codecName) into MP4 without re-encoding: \(ffmpegMessage(h))", code: h)
        }
        packet = av_packet_alloc()
    }

    /// Appends `p` (packets in decoding order, the first a keyframe).
    func write(_ p: EncodedPacket) throws {
        guard !done, let format, let stream, let packet else { throw MediaError(.cannotWrite, path, "the clip is already closed") }
        let dts0 = p.dts ?? p.pts ?? 0
        let origin = self.origin ?? dts0
        self.origin = origin
        guard av_new_packet(packet, Int32(p.data.count)) >= 0 else { throw MediaError(.ffmpeg, path, "out of memory for a packet") }
        defer { av_packet_unref(packet) }
        p.data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { packet.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: raw.count) }
        }
        var dts = dts0 - origin
        if dts <= lastDts { dts = lastDts + 1 }  // the muxer needs strictly increasing times
        lastDts = dts
        packet.pointee.dts = p.dts == nil ? ff_nopts_value() : dts
        packet.pointee.pts = p.pts.map { max($0 - origin, dts) } ?? (p.dts == nil ? ff_nopts_value() : dts)
        packet.pointee.duration = p.duration
        packet.pointee.flags = p.isKeyframe ? AV_PKT_FLAG_KEY : 0
        packet.pointee.stream_index = 0
        av_packet_rescale_ts(packet, sourceTimeBase, stream.pointee.time_base)
        let r = av_write_frame(format, packet)
        if r < 0 { throw MediaError(.cannotWrite, path, "cannot write a packet: \(ffmpegMessage(r))", code: r) }
        packetCount += 1
        firstSeconds = min(firstSeconds ?? p.seconds, p.seconds)
        lastSeconds = max(lastSeconds ?? p.seconds, p.seconds)
    }

    /// Writes the index, syncs and renames the file into place; on failure nothing is left.
    func finish() throws {
        guard !done, let format else { return }
        do {
            guard packetCount > 0 else { throw MediaError(.cannotWrite, path, "no packet to write (the stream had no keyframe yet)") }
            let r = av_write_trailer(format)
            if r < 0 { throw MediaError(.cannotWrite, path, "cannot write the MP4 index: \(ffmpegMessage(r))", code: r) }
            avio_closep(&format.pointee.pb)
            try OutputFile.sync(temporaryPath, reportingAs: path)
            try OutputFile.moveIntoPlace([(temporaryPath, path)])
            close()
        } catch {
            discard()
            throw error
        }
    }

    /// Stops writing and removes the temporary.
    func discard() {
        guard !done else { return }
        if let format, format.pointee.pb != nil { avio_closep(&format.pointee.pb) }
        unlink(temporaryPath)
        close()
    }

    private func close() {
        done = true
        avformat_free_context(format)
        format = nil
        stream = nil
        av_packet_free(&packet)
    }

    deinit { discard() }
}
