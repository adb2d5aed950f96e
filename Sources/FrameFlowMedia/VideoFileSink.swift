import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// Encoding settings for file outputs.
public struct EncodeOptions: Sendable {
    /// Constant quality (x264/VP9 CRF); default 23 for H.264, 32 for VP9.
    public var crf: Int?
    /// Target bit rate in bits per second; overrides `crf`.
    public var bitrate: Int?
    /// The frame rate written into the file when timestamps are irregular; default 30.
    public var frameRate: Double = 30
    /// x264 preset (`ultrafast` … `veryslow`); when nil, FFmpeg's default (`medium`) for
    /// files and `veryfast` for network outputs (which must keep up with the input).
    public var preset: String?
    /// FFmpeg muxer and protocol options (`--output-option KEY=VALUE`: `hls_time=4`,
    /// `pkt_size=1316`, `movflags=+faststart`), set after FrameFlow's own defaults; a key that
    /// neither the protocol nor the muxer takes is an error naming it.
    public var muxerOptions: [(key: String, value: String)] = []
    /// Seconds a network output may take to connect, or to take one packet, before the run
    /// fails (a positive `rw_timeout` in `muxerOptions`, in µs as FFmpeg reads it, overrides it).
    public var networkTimeout: Double = 5
    public init() {}
}

/// Writes an image stream to a video file, to images, to an HLS playlist or to a network URL,
/// encoding with FFmpeg. The container and codec follow the extension:
///
/// | extension | container | codec |
/// |---|---|---|
/// | `.mp4`, `.mov`, `.mkv` | MP4 / QuickTime / Matroska | H.264 (libx264), yuv420p |
/// | `.ts`, `.flv` | MPEG-TS / FLV | H.264 (libx264), yuv420p |
/// | `.m3u8` | HLS: the playlist and its MPEG-TS segments (`NAME0.ts`, …) beside it | H.264 (libx264) |
/// | `.webm` | WebM | VP9 (libvpx-vp9) |
/// | `.avi` | AVI | MPEG-4 part 2 |
/// | `.png`, `.jpg` | image (`%04d` in the name: one file per frame; otherwise the newest frame) | PNG / JPEG |
///
/// The output is written to a hidden temporary file beside `path` (made when the sink is
/// made, so an unwritable folder fails before any decoding starts). `prepare()` flushes the
/// encoder, writes the trailer, closes and syncs the file, checking every step; `finish()`
/// then renames it into place. Any error, `discard()`, or a sink dropped unfinished removes the
/// temporaries and leaves whatever is at `path` as it was; an output without a frame replaces
/// nothing. Destinations that are not regular files (devices, FIFOs) and extensions FrameFlow
/// does not encode are refused when the sink is made.
///
/// An HLS output is written into a hidden temporary folder beside the playlist (`hls` muxer,
/// 2 s segments, a VOD playlist listing them all unless `hls_list_size` or
/// `hls_playlist_type` is given); `finish()` moves the segments, then the playlist, into place,
/// and a failure removes the folder, so a failed run leaves the playlist's folder as it was.
///
/// A URL (`udp://`, `rtp://`, `rtmp://`, `srt://`, `rtsp://`; see `OutputURL`) is H.264 with
/// x264's `zerolatency` tuning and a key frame every second, so a reader that joins late
/// decodes within a second. The connection is made when the sink is made (for RTSP, at the
/// first frame), so a refused one fails before any decoding; every FFmpeg call on it is bounded
/// by `EncodeOptions.networkTimeout`. Nothing is renamed: what was sent is gone.
public final class VideoFileSink {
    public let path: String
    /// Where frames go until `finish()` renames them to `path` (a pattern for sequences; the
    /// hidden folder of an HLS output; the URL itself for a network output).
    private let temporaryPath: String
    /// Where the encoded stream goes.
    private enum Target {
        /// A file, or a sequence of image files.
        case file
        /// An HLS playlist and its segments, in the temporary folder.
        case hls
        /// A network URL.
        case network(OutputURL)
    }
    private let target: Target
    /// Seconds a network call may block (`EncodeOptions.networkTimeout`, or `rw_timeout`).
    private let timeout: Double
    /// Ends a blocked network call after `timeout` seconds.
    private let interrupt: IOInterrupt
    /// Set once the muxer has its header: a network output then has a connection to close.
    private var headerWritten = false
    /// Options for `avformat_write_header`: FrameFlow's defaults for the container, then the
    /// user's (those a network protocol took out already).
    private var headerOptions: [(key: String, value: String)] = []
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let options: EncodeOptions
    private let scaler = Scaler()
    private var lastPts: Int64 = Int64.min
    /// Set by `prepare()` (or a failure): nothing more is written.
    private var closed = false
    /// Set by `finish()` and `discard()`: the temporaries are gone, renamed or removed.
    private var finished = false
    /// Packets handed to the muxer: for a sequence, the number of frame files it made.
    private var packetsMuxed = 0
    private let isImage: Bool
    private let isSequence: Bool
    private let ext: String
    /// Frames written.
    public private(set) var framesWritten = 0

    /// Opens the output `path` names (a file, an `.m3u8` playlist or a URL; see the table
    /// above); throws for one FrameFlow cannot write, a folder it cannot write in, or a
    /// connection that fails.
    public init(path: String, options: EncodeOptions = EncodeOptions()) throws {
        self.path = path
        self.options = options
        let userTimeout = options.muxerOptions.last { $0.key == "rw_timeout" }.flatMap { Double($0.value) }.map { $0 / 1e6 }
        timeout = userTimeout.flatMap { $0 > 0 ? $0 : nil } ?? options.networkTimeout
        interrupt = IOInterrupt(flag: nil, timeout: timeout)
        _ = FFmpegLibrary.ready
        if let url = try OutputURL(path) {
            (target, ext, isImage, isSequence, temporaryPath) = (.network(url), "", false, false, path)
            try openNetwork(url)
            return
        }
        ext = (path as NSString).pathExtension.lowercased()
        isImage = ["png", "jpg", "jpeg"].contains(ext)
        isSequence = isImage && path.contains("%")
        guard Self.extensions.contains(ext) else {
            let named = ext.isEmpty ? "has no extension" : "has the extension '.\(ext)', which FrameFlow does not write"
            throw MediaError(
                .unsupportedOutput, path,
                "\(named); use .mp4, .mov, .mkv, .webm, .avi, .ts, .flv, .png or .jpg, an .m3u8 playlist (HLS), a URL (udp://, rtp://, rtmp://, srt://, rtsp://), or .jsonl for other streams"
            )
        }
        try OutputFile.checkDestination(isSequence ? "" : path)
        OutputFile.removeStaleTemporaries(for: path)
        temporaryPath = OutputFile.temporaryName(for: path)
        if ext == "m3u8" {
            target = .hls
            try openPlaylist()
            return
        }
        target = .file
        headerOptions = options.muxerOptions
        let formatName: String? = isImage ? "image2" : nil
        guard let fmt = av_guess_format(formatName, path, nil) else {
            throw MediaError(.unsupportedOutput, path, "FFmpeg has no muxer for '.\(ext)'")
        }
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, fmt, nil, temporaryPath), path, "cannot create the output")
        format = ctx
        if !isImage && ff_fmt_nofile(fmt) == 0 {
            let r = avio_open(&ctx!.pointee.pb, temporaryPath, ff_avio_flag_write())
            if r < 0 {
                avformat_free_context(ctx)
                format = nil
                throw MediaError(.cannotWrite, path, "cannot write: \(ffmpegMessage(r))", code: r)
            }
        } else if isImage {
            // The image muxer opens files itself; check the folder now.
            let dir = (path as NSString).deletingLastPathComponent
            let folder = dir.isEmpty ? "." : dir
            guard FileManager.default.isWritableFile(atPath: folder) else {
                avformat_free_context(ctx)
                format = nil
                throw MediaError(.cannotWrite, path, "cannot write: folder '\(folder)' is not writable or does not exist")
            }
        }
    }

    /// The extensions FrameFlow encodes (the table above).
    static let extensions: Set<String> = ["mp4", "mov", "mkv", "webm", "avi", "ts", "flv", "m3u8", "png", "jpg", "jpeg"]

    /// Sets `format` up for `url` and, unless the muxer connects itself (RTSP), connects.
    private func openNetwork(_ url: OutputURL) throws {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, url.muxer, url.url), path, "cannot create the output")
        format = ctx
        guard let ctx else { throw MediaError(.ffmpeg, path, "cannot create the output") }
        ctx.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in Unmanaged<IOInterrupt>.fromOpaque(opaque!).takeUnretainedValue().shouldStop() },
            opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        try url.resolve()
        // `rw_timeout` is the deadline above; RTSP's muxer, opening its own sockets, has no such key.
        var user = options.muxerOptions.filter { !url.muxerConnects || $0.key != "rw_timeout" }
        if !url.muxerConnects {
            var dict = Self.dictionary(url.protocolDefaults(timeout: timeout) + user)
            defer { av_dict_free(&dict) }
            interrupt.arm()
            let r = avio_open2(&ctx.pointee.pb, url.url, ff_avio_flag_write(), &ctx.pointee.interrupt_callback, &dict)
            interrupt.disarm()
            if r < 0 { throw networkError(r, "cannot connect") }
            user = Self.entries(dict)  // what the protocol did not take goes to the muxer
        }
        headerOptions = url.muxerDefaults(timeout: timeout) + user
    }

    /// Makes the hidden folder an HLS output is written into, and the `hls` muxer writing there.
    private func openPlaylist() throws {
        guard mkdir(temporaryPath, 0o755) == 0 else {
            throw MediaError(.cannotWrite, path, "cannot write: \(String(cString: strerror(errno))) (making the folder for its segments)")
        }
        let playlist = (temporaryPath as NSString).appendingPathComponent((path as NSString).lastPathComponent)
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let r = avformat_alloc_output_context2(&ctx, nil, "hls", playlist)
        guard r >= 0, ctx != nil else {
            rmdir(temporaryPath)
            throw MediaError(.unsupportedOutput, path, "this FFmpeg has no HLS muxer: \(ffmpegMessage(r))")
        }
        format = ctx
        let user = options.muxerOptions
        var defaults: [(key: String, value: String)] = [("hls_time", "2")]
        if !user.contains(where: { $0.key == "hls_list_size" || $0.key == "hls_playlist_type" }) {
            defaults += [("hls_list_size", "0"), ("hls_playlist_type", "vod")]
        }
        headerOptions = defaults + user
    }

    /// An FFmpeg dictionary of `entries` (later ones replace earlier ones of the same key).
    private static func dictionary(_ entries: [(key: String, value: String)]) -> OpaquePointer? {
        var dict: OpaquePointer?
        for (k, v) in entries { av_dict_set(&dict, k, v, 0) }
        return dict
    }

    /// The entries of an FFmpeg dictionary, in order.
    private static func entries(_ dict: OpaquePointer?) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var e: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dict, "", e, AV_DICT_IGNORE_SUFFIX) {
            result.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            e = next
        }
        return result
    }

    /// The error for a failed write: "cannot write" to a file, "cannot send" to a URL.
    private func writeError(_ code: Int32, _ when: String = "") -> MediaError {
        if isNetwork { return networkError(code, "cannot send\(when)") }
        return MediaError(.cannotWrite, path, "cannot write\(when): \(ffmpegMessage(code))", code: code)
    }

    /// The error for a failed call on a network output: a time-out when the deadline ended it.
    private func networkError(_ code: Int32, _ what: String) -> MediaError {
        if let e = interrupt.error(path, what) { return e }
        let hint = if case .network(let url) = target { url.hint(code) } else { "" }
        return MediaError(.cannotWrite, path, "\(what): \(ffmpegMessage(code))\(hint)", code: code)
    }

    private var isNetwork: Bool {
        if case .network = target { return true }
        return false
    }

    /// The file name of frame `number` of a `%d` pattern, as FFmpeg's image muxer forms it.
    private static func frameName(_ pattern: String, _ number: Int) -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        guard av_get_frame_filename2(&buf, Int32(buf.count), pattern, Int32(number), 0) == 0 else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The temporary files written so far and where each goes (one per frame for a sequence;
    /// the image muxer numbers frames from 1).
    private func files() -> [(from: String, to: String)] {
        switch target {
        case .network: return []
        case .hls:
            // Segments first, the playlist last: a reader never finds a playlist whose segments
            // are not there yet.
            let playlist = (path as NSString).lastPathComponent
            let dir = (path as NSString).deletingLastPathComponent
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: temporaryPath)) ?? []).sorted {
                ($0 == playlist ? 1 : 0, $0) < ($1 == playlist ? 1 : 0, $1)
            }
            return names.map {
                ((temporaryPath as NSString).appendingPathComponent($0), dir.isEmpty ? $0 : (dir as NSString).appendingPathComponent($0))
            }
        case .file: break
        }
        guard isSequence else { return [(temporaryPath, path)] }
        return (0..<packetsMuxed + 1).compactMap { i in
            Self.frameName(temporaryPath, i + 1).flatMap { t in Self.frameName(path, i + 1).map { (t, $0) } }
        }
    }

    /// Deletes what was written to the temporary name(s) (an HLS output's folder); `path` is
    /// never touched.
    private func removeTemporary() {
        for (t, _) in files() { unlink(t) }
        if case .hls = target { rmdir(temporaryPath) }
    }

    deinit {
        discard()
        var f = frame
        av_frame_free(&f)
        var p = packet
        av_packet_free(&p)
        avcodec_free_context(&codec)
        if let format {
            if format.pointee.pb != nil && !isImage { avio_closep(&format.pointee.pb) }
            avformat_free_context(format)
        }
    }

    /// `gray`: the first image is gray8, so a PNG is written as one-channel grey (masks).
    private func openEncoder(width: Int, height: Int, gray: Bool = false) throws {
        let (codecName, pixFmt): (String, AVPixelFormat)
        switch ext {
        case "webm": (codecName, pixFmt) = ("libvpx-vp9", AV_PIX_FMT_YUV420P)
        case "avi": (codecName, pixFmt) = ("mpeg4", AV_PIX_FMT_YUV420P)
        case "png": (codecName, pixFmt) = ("png", gray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_RGB24)
        case "jpg", "jpeg": (codecName, pixFmt) = ("mjpeg", AV_PIX_FMT_YUVJ420P)
        default: (codecName, pixFmt) = ("libx264", AV_PIX_FMT_YUV420P)
        }
        guard let encoder = avcodec_find_encoder_by_name(codecName) else {
            throw MediaError(.unsupportedCodec, path, "FFmpeg has no \(codecName) encoder")
        }
        codec = avcodec_alloc_context3(encoder)
        guard let c = codec else { throw MediaError(.ffmpeg, path, "cannot allocate the encoder") }
        // 4:2:0 needs even sizes.
        let even = pixFmt != AV_PIX_FMT_RGB24 && pixFmt != AV_PIX_FMT_GRAY8
        c.pointee.width = Int32(even ? max(2, width & ~1) : width)
        c.pointee.height = Int32(even ? max(2, height & ~1) : height)
        c.pointee.pix_fmt = pixFmt
        let fps = max(1, Int32(saturating: options.frameRate.rounded()))
        c.pointee.time_base = ext == "avi" || isImage ? AVRational(num: 1, den: fps) : AVRational(num: 1, den: 90_000)
        c.pointee.framerate = AVRational(num: fps, den: 1)
        // Network and HLS: a key frame every second, so a late reader (or a segment) starts soon.
        if case .file = target { c.pointee.gop_size = 2 * fps } else { c.pointee.gop_size = fps }
        if pixFmt == AV_PIX_FMT_YUVJ420P { c.pointee.color_range = AVCOL_RANGE_JPEG }
        if let bitrate = options.bitrate {
            c.pointee.bit_rate = Int64(bitrate)
        } else if codecName == "libx264" || codecName == "libvpx-vp9" {
            av_opt_set(c.pointee.priv_data, "crf", "\(options.crf ?? (codecName == "libx264" ? 23 : 32))", 0)
            if codecName == "libvpx-vp9" {
                c.pointee.bit_rate = 0; av_opt_set(c.pointee.priv_data, "deadline", "realtime", 0);
                av_opt_set(c.pointee.priv_data, "cpu-used", "8", 0)
            }
        } else if codecName == "mpeg4" {
            c.pointee.bit_rate = 4_000_000
        }
        if codecName == "libx264", let preset = options.preset ?? (isNetwork ? "veryfast" : nil) {
            av_opt_set(c.pointee.priv_data, "preset", preset, 0)
        }
        // No look-ahead or B-frames: each frame leaves as soon as it is encoded.
        if codecName == "libx264" && isNetwork { av_opt_set(c.pointee.priv_data, "tune", "zerolatency", 0) }
        if ff_fmt_globalheader(format!.pointee.oformat) != 0 { ff_set_global_header(c) }
        try check(avcodec_open2(c, encoder, nil), path, "cannot open the \(codecName) encoder")
        guard let st = avformat_new_stream(format, nil) else { throw MediaError(.ffmpeg, path, "cannot add a stream") }
        stream = st
        try check(avcodec_parameters_from_context(st.pointee.codecpar, c), path, "cannot set stream parameters")
        st.pointee.time_base = c.pointee.time_base
        st.pointee.avg_frame_rate = c.pointee.framerate
        var dict = Self.dictionary(headerOptions)
        if isImage && !isSequence { av_dict_set(&dict, "update", "1", 0) }
        defer { av_dict_free(&dict) }
        interrupt.arm()
        let h = avformat_write_header(format, &dict)
        interrupt.disarm()
        if h < 0 {
            if case .network(let url) = target { throw networkError(h, url.muxerConnects ? "cannot connect" : "cannot send the stream header") }
            try check(h, path, "cannot write the file header")
        }
        headerWritten = true
        let unused = Self.entries(dict).map(\.key)
        guard unused.isEmpty else {
            let name = String(cString: format!.pointee.oformat.pointee.name)
            throw MediaError(
                .invalidArgument, path,
                "--output-option \(unused.joined(separator: ", ")): neither the '\(name)' muxer nor the protocol has \(unused.count == 1 ? "this option" : "these options")"
            )
        }
        frame = av_frame_alloc()
        frame!.pointee.format = pixFmt.rawValue
        frame!.pointee.width = c.pointee.width
        frame!.pointee.height = c.pointee.height
        try check(av_frame_get_buffer(frame, 0), path, "cannot allocate an encoder frame")
        packet = av_packet_alloc()
    }

    /// Encodes `image` at `timestamp`. Images of another size than the first are scaled to it.
    public func write(_ image: ImageFrame, at timestamp: Timestamp) throws {
        guard !closed else { throw MediaError(.cannotWrite, path, "the output is already finished") }
        guard image.format.avPixelFormat != AV_PIX_FMT_NONE else {
            throw MediaError(.unsupportedOutput, path, "\(image.format) images cannot be encoded; convert them to rgba8 or gray8 first")
        }
        if codec == nil { try openEncoder(width: image.width, height: image.height, gray: image.format == .gray8) }
        guard let c = codec, let f = frame else { return }
        try check(av_frame_make_writable(f), path, "encoder frame")
        if c.pointee.pix_fmt == AV_PIX_FMT_YUV420P, VideoRangeYUV.converts(image, width: Int(c.pointee.width), height: Int(c.pointee.height)),
            let y = f.pointee.data.0, let u = f.pointee.data.1, let v = f.pointee.data.2
        {
            // RGBA, BGRA or grey of the encoder's size: one pass, without swscale.
            VideoRangeYUV.convert(
                image, y: y, yStride: Int(f.pointee.linesize.0), u: u, v: v, uvStride: Int(f.pointee.linesize.1))
        } else {
            try scaler.convert(
                image, into: f, width: c.pointee.width, height: c.pointee.height, format: c.pointee.pix_fmt,
                fullRange: c.pointee.pix_fmt == AV_PIX_FMT_YUVJ420P || c.pointee.pix_fmt == AV_PIX_FMT_RGB24, source: path)
        }
        var pts = av_rescale_q(timestamp.microseconds, AVRational(num: 1, den: 1_000_000), c.pointee.time_base)
        if pts <= lastPts { pts = lastPts + 1 }
        lastPts = pts
        f.pointee.pts = pts
        try check(avcodec_send_frame(c, f), path, "encoding failed")
        try drain()
        framesWritten += 1
    }

    private func drain() throws {
        guard let c = codec, let p = packet else { return }
        while true {
            let r = avcodec_receive_packet(c, p)
            if r == ff_averror_eagain() || r == ff_averror_eof() { return }
            try check(r, path, "encoding failed")
            av_packet_rescale_ts(p, c.pointee.time_base, stream!.pointee.time_base)
            p.pointee.stream_index = stream!.pointee.index
            interrupt.arm()
            let w = av_interleaved_write_frame(format, p)
            interrupt.disarm()
            packetsMuxed += 1
            if w < 0 { throw writeError(w) }
            // Buffered I/O reports a failed write (disk full, file-size limit) in the context.
            if let pb = format?.pointee.pb, pb.pointee.error < 0 { throw writeError(pb.pointee.error) }
        }
    }

    /// Abandons the output: closes and removes the temporary file(s); `path` is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        closed = true
        closeFile()
        removeTemporary()
    }

    /// Completes the output without making it visible: flushes the encoder, writes the
    /// trailer, closes the file and syncs it to disk, checking each step. On an error the
    /// temporaries are removed and `finish()` will not replace `path`. Safe to call twice.
    public func prepare() throws {
        guard !closed else { return }
        closed = true
        guard let c = codec else { return }  // nothing written: `finish` replaces nothing
        do {
            avcodec_send_frame(c, nil)
            try drain()
            interrupt.arm()
            let t = av_write_trailer(format)
            interrupt.disarm()
            headerWritten = false
            if t < 0 { throw writeError(t, " (finishing the \(isNetwork ? "stream" : "file"))") }
            if let format, let pb = format.pointee.pb, !isImage, pb.pointee.error < 0 { throw writeError(pb.pointee.error) }
            if let format, format.pointee.pb != nil, !isImage {
                interrupt.arm()
                let r = avio_closep(&format.pointee.pb)
                interrupt.disarm()
                if r < 0 { throw writeError(r, " (closing the \(isNetwork ? "connection" : "file"))") }
            }
            for (t, _) in files() where !isSequence || access(t, F_OK) == 0 {
                try OutputFile.sync(t, reportingAs: path)
            }
        } catch {
            discard()
            throw error
        }
    }

    /// `prepare()`, then renames the output into place (every frame of a sequence). An output
    /// without a frame replaces nothing. Safe to call twice.
    public func finish() throws {
        guard !finished else { return }
        try prepare()
        finished = true
        guard codec != nil else {
            removeTemporary()
            return
        }
        var pairs = files()
        if isSequence { pairs = pairs.filter { access($0.from, F_OK) == 0 } }
        // An HLS output's folder goes once its files are moved (or removed, on a failure).
        defer { if case .hls = target { removeTemporary() } }
        try OutputFile.moveIntoPlace(pairs)
    }

    private func closeFile() {
        // RTSP's muxer holds its own connection, closed (TEARDOWN) only by its trailer.
        if case .network(let url) = target, url.muxerConnects, headerWritten, let format {
            headerWritten = false
            interrupt.arm()
            av_write_trailer(format)
            interrupt.disarm()
        }
        if let format, format.pointee.pb != nil, !isImage { avio_closep(&format.pointee.pb) }
    }
}
