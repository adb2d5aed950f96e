import CFFmpeg
import Foundation
import FrameFlow

/// Encoding settings for file outputs.
public struct EncodeOptions: Sendable {
    /// Constant quality (x264/VP9 CRF); default 23 for H.264, 32 for VP9.
    public var crf: Int?
    /// Target bit rate in bits per second; overrides `crf`.
    public var bitrate: Int?
    /// The frame rate written into the file when timestamps are irregular; default 30.
    public var frameRate: Double = 30
    /// x264 preset (`ultrafast` … `veryslow`); FFmpeg's default (`medium`) when nil.
    public var preset: String?
    public init() {}
}

/// Writes an image stream to a video file or to images, encoding with FFmpeg. The
/// container and codec follow the extension:
///
/// | extension | container | codec |
/// |---|---|---|
/// | `.mp4`, `.mov`, `.mkv` | MP4 / QuickTime / Matroska | H.264 (libx264), yuv420p |
/// | `.webm` | WebM | VP9 (libvpx-vp9) |
/// | `.avi` | AVI | MPEG-4 part 2 |
/// | `.png`, `.jpg` | image (`%04d` in the name: one file per frame; otherwise the newest frame) | PNG / JPEG |
///
/// The output is written to a hidden temporary file beside `path` (made when the sink is
/// made, so an unwritable folder fails before any decoding starts) and renamed into place by
/// `finish()`, which flushes the encoder and writes the trailer: the file is playable even when
/// the run stopped early, and an existing file at `path` is replaced only by a finished output
/// with at least one frame. A sink dropped without a frame, or whose output failed (disk
/// full), leaves an existing file at `path` as it was.
public final class VideoFileSink {
    public let path: String
    /// Where frames go until `finish()` renames them to `path` (a pattern for sequences).
    private let temporaryPath: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let options: EncodeOptions
    private let scaler = Scaler()
    private var lastPts: Int64 = Int64.min
    private var finished = false
    private let isImage: Bool
    private let isSequence: Bool
    private let ext: String
    /// Frames written.
    public private(set) var framesWritten = 0

    public init(path: String, options: EncodeOptions = EncodeOptions()) throws {
        self.path = path
        self.options = options
        ext = (path as NSString).pathExtension.lowercased()
        isImage = ["png", "jpg", "jpeg"].contains(ext)
        isSequence = isImage && path.contains("%")
        temporaryPath = Self.temporaryName(for: path)
        _ = FFmpegLibrary.ready
        let formatName: String? = isImage ? "image2" : nil
        guard let fmt = av_guess_format(formatName, path, nil) else {
            throw MediaError(.unsupportedOutput, path, "unknown output type '.\(ext)' (use .mp4, .mov, .mkv, .webm, .avi, .png or .jpg)")
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

    /// `dir/.name.frameflow-PID-N.ext`: hidden, unique in this process, same folder (so the
    /// final rename is atomic) and same extension (FFmpeg picks the muxer by it).
    private static func temporaryName(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let n = temporaryCounter.add(1)
        let name = ".\(url.lastPathComponent).frameflow-\(getpid())-\(n).\(url.pathExtension)"
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? name : (dir as NSString).appendingPathComponent(name)
    }

    private static let temporaryCounter = AtomicCounter()

    /// The file name of frame `number` of a `%d` pattern, as FFmpeg's image muxer forms it.
    private static func frameName(_ pattern: String, _ number: Int) -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        guard av_get_frame_filename2(&buf, Int32(buf.count), pattern, Int32(number), 0) == 0 else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Moves the finished temporary output to `path` (each frame's file for a sequence).
    private func moveIntoPlace() throws {
        let pairs: [(String, String)]
        if isSequence {
            // The image muxer numbers frames from 1.
            pairs = (1...max(1, framesWritten)).compactMap { i in
                Self.frameName(temporaryPath, i).flatMap { t in Self.frameName(path, i).map { (t, $0) } }
            }
        } else {
            pairs = [(temporaryPath, path)]
        }
        for (from, to) in pairs where rename(from, to) != 0 {
            let why = String(cString: strerror(errno))
            removeTemporary()
            throw MediaError(.cannotWrite, to, "cannot write (moving the finished output into place): \(why)")
        }
    }

    /// Deletes what was written to the temporary name(s); `path` is never touched.
    private func removeTemporary() {
        if isSequence {
            for i in 1...max(1, framesWritten) {
                if let t = Self.frameName(temporaryPath, i) { unlink(t) }
            }
        } else {
            unlink(temporaryPath)
        }
    }

    deinit {
        if !finished { try? finish() }
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
        let fps = max(1, Int32(options.frameRate.rounded()))
        c.pointee.time_base = ext == "avi" || isImage ? AVRational(num: 1, den: fps) : AVRational(num: 1, den: 90_000)
        c.pointee.framerate = AVRational(num: fps, den: 1)
        c.pointee.gop_size = 2 * fps
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
        if codecName == "libx264", let preset = options.preset { av_opt_set(c.pointee.priv_data, "preset", preset, 0) }
        if ff_fmt_globalheader(format!.pointee.oformat) != 0 { ff_set_global_header(c) }
        try check(avcodec_open2(c, encoder, nil), path, "cannot open the \(codecName) encoder")
        guard let st = avformat_new_stream(format, nil) else { throw MediaError(.ffmpeg, path, "cannot add a stream") }
        stream = st
        try check(avcodec_parameters_from_context(st.pointee.codecpar, c), path, "cannot set stream parameters")
        st.pointee.time_base = c.pointee.time_base
        st.pointee.avg_frame_rate = c.pointee.framerate
        var dict: OpaquePointer?
        if isImage && !isSequence { av_dict_set(&dict, "update", "1", 0) }
        defer { av_dict_free(&dict) }
        try check(avformat_write_header(format, &dict), path, "cannot write the file header")
        frame = av_frame_alloc()
        frame!.pointee.format = pixFmt.rawValue
        frame!.pointee.width = c.pointee.width
        frame!.pointee.height = c.pointee.height
        try check(av_frame_get_buffer(frame, 0), path, "cannot allocate an encoder frame")
        packet = av_packet_alloc()
    }

    /// Encodes `image` at `timestamp`. Images of another size than the first are scaled to it.
    public func write(_ image: ImageFrame, at timestamp: Timestamp) throws {
        guard !finished else { throw MediaError(.cannotWrite, path, "the output is already finished") }
        if codec == nil { try openEncoder(width: image.width, height: image.height, gray: image.format == .gray8) }
        guard let c = codec, let f = frame else { return }
        try check(av_frame_make_writable(f), path, "encoder frame")
        let srcFull = image.format.yuvRange.map { $0 == .full } ?? true
        try image.withFFmpegPlanes { src, srcStrides in
            try withUnsafePointer(to: &f.pointee.data) { d in
                try d.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
                    try withUnsafePointer(to: &f.pointee.linesize) { l in
                        try l.withMemoryRebound(to: Int32.self, capacity: 8) { dstStrides in
                            try scaler.convert(
                                src: src, srcStrides: srcStrides, srcWidth: Int32(image.width), srcHeight: Int32(image.height),
                                srcFormat: image.format.avPixelFormat, srcFullRange: srcFull, dst: dst, dstStrides: dstStrides,
                                dstWidth: c.pointee.width, dstHeight: c.pointee.height, dstFormat: c.pointee.pix_fmt,
                                dstFullRange: c.pointee.pix_fmt == AV_PIX_FMT_YUVJ420P || c.pointee.pix_fmt == AV_PIX_FMT_RGB24,
                                source: path)
                        }
                    }
                }
            }
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
            let w = av_interleaved_write_frame(format, p)
            if w < 0 { throw MediaError(.cannotWrite, path, "cannot write: \(ffmpegMessage(w))", code: w) }
            // Buffered I/O reports a failed write (disk full, file-size limit) in the context.
            if let pb = format?.pointee.pb, pb.pointee.error < 0 {
                throw MediaError(.cannotWrite, path, "cannot write: \(ffmpegMessage(pb.pointee.error))", code: pb.pointee.error)
            }
        }
    }

    /// Flushes the encoder, writes the trailer, closes the file and renames it to `path`.
    /// Safe to call twice.
    /// Abandons the output: closes and removes the temporary file(s); `path` is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        if let format, format.pointee.pb != nil, !isImage { avio_closep(&format.pointee.pb) }
        removeTemporary()
    }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        guard let c = codec else {
            // Nothing was written: no empty, unplayable file, and whatever was at `path` stays.
            if let format, format.pointee.pb != nil, !isImage { avio_closep(&format.pointee.pb) }
            removeTemporary()
            return
        }
        do {
            avcodec_send_frame(c, nil)
            try drain()
            let t = av_write_trailer(format)
            if t < 0 { throw MediaError(.cannotWrite, path, "cannot write (finishing the file): \(ffmpegMessage(t))", code: t) }
            if let format, format.pointee.pb != nil, !isImage {
                let r = avio_closep(&format.pointee.pb)
                if r < 0 { throw MediaError(.cannotWrite, path, "cannot write (closing the file): \(ffmpegMessage(r))", code: r) }
            }
        } catch {
            if let format, format.pointee.pb != nil, !isImage { avio_closep(&format.pointee.pb) }
            // A failed output (disk full) never replaces an existing file; as a new file it
            // keeps what was written, which players read up to the failure.
            if isSequence || access(path, F_OK) == 0 || rename(temporaryPath, path) != 0 { removeTemporary() }
            throw error
        }
        try moveIntoPlace()
    }
}
