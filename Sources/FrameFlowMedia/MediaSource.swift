import CFFmpeg
import Foundation
import Synchronization
import FrameFlow
import FrameFlowSinks

/// Where frames come from: a video file, a network stream, a camera, still images or a
/// synthetic test pattern, decoded by FFmpeg into `ImageFrame`s.
///
/// Sources are written as on the command line:
///
/// | spec | source |
/// |---|---|
/// | `clip.mp4`, `movie.mkv`, … | any container/codec FFmpeg reads |
/// | `rtsp://…`, `http://…`, `udp://…` | network streams (always real time) |
/// | `/dev/video0` | a V4L2 camera (size, frame rate and pixel format from the options) |
/// | `photo.png`, `frames/%04d.png` | still images and numbered image sequences |
/// | `testsrc`, `testsrc:1280x720@30` | FFmpeg's synthetic test pattern (10 s unless `frames` is set) |
///
/// ```swift
/// let source = try MediaSource("clip.mp4", options: .init(pixelFormat: .nv12(.full)))
/// while let frame = try source.read() { … frame.image, frame.timestamp … }
/// ```
///
/// Timestamps are the stream's presentation times in microseconds, always strictly
/// increasing (missing ones are interpolated from the frame rate, repeated ones nudged).
/// Not thread-safe: read from one thread.
public final class MediaSource {
    /// How to open and convert a source.
    public struct Options: Sendable {
        /// The format frames are delivered in (converted by swscale, or wrapped without a
        /// copy when the decoder already produces it).
        public var pixelFormat: PixelFormat = .rgba8
        /// Requested capture size and rate (cameras, `testsrc`).
        public var width: Int?
        public var height: Int?
        public var frameRate: Double?
        /// Camera pixel format to ask the device for (`mjpeg`, `yuyv422`, …).
        public var inputPixelFormat: String?
        /// Clockwise rotation applied to every frame: 0, 90, 180 or 270.
        public var rotation = 0
        /// Mirror horizontally (after rotation), as a front camera preview.
        public var mirrored = false
        /// Seconds an open or a read may wait for data (network streams, RTSP's handshake
        /// included, cameras, files) before it fails instead of hanging.
        public var timeout: Double = 10
        /// Set from another thread (Ctrl-C, SIGTERM) to end a blocked open or read at once.
        public var interrupt: InterruptFlag?
        /// Frames `testsrc` makes: nil for 10 seconds' worth (300 at 30 fps).
        public var testFrames: Int?
        /// The pixel budget of one decoded frame (a graph's `GraphEnvironment.limits`).
        public var limits = ResourceLimits()
        public init(pixelFormat: PixelFormat = .rgba8) { self.pixelFormat = pixelFormat }
    }

    /// A decoded frame.
    public struct Frame: Sendable {
        public var image: ImageFrame
        public var timestamp: Timestamp
    }

    /// The spec the source was opened with.
    public let spec: String
    /// Whether the source produces frames in real time (camera, network, `testsrc` live).
    public let isLive: Bool
    /// Frames per second the stream declares, if any.
    public private(set) var frameRate: Double?
    /// Frames the container declares, if known.
    public private(set) var declaredFrameCount: Int?
    /// Things worth telling the user (e.g. input ended early), without failing.
    public private(set) var warnings: [String] = []
    /// Frames delivered so far.
    public private(set) var framesRead = 0
    /// Called with every encoded packet of the video stream as it is read, before it is
    /// decoded (event clips, recordings); nil (the default) costs nothing and copies nothing.
    public var packetTap: ((EncodedPacket) -> Void)?

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let options: Options
    private let scaler = Scaler()
    private let pool: ImagePool
    private var lastTimestamp: Int64 = Int64.min
    private var flushed = false
    private var finished = false
    private let io: IOInterrupt
    private var decodeErrors = 0
    /// The I/O for a FIFO or device input; released after `format` is closed.
    private var pipe: PipeInput?

    /// Opens `spec` (see the table above).
    public init(_ spec: String, options: Options = Options(), pool: ImagePool = .shared) throws {
        self.spec = spec
        self.options = options
        self.pool = pool
        guard [0, 90, 180, 270].contains(options.rotation) else {
            throw MediaError(.invalidArgument, spec, "rotation must be 0, 90, 180 or 270, not \(options.rotation)")
        }
        _ = FFmpegLibrary.ready
        io = IOInterrupt(flag: options.interrupt, timeout: options.timeout)
        var url = spec
        var inputFormat: UnsafePointer<AVInputFormat>?
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        var live = false
        if spec == "testsrc" || spec.hasPrefix("testsrc:") {
            var size = "\(options.width ?? 640)x\(options.height ?? 480)"
            var rate = options.frameRate ?? 30
            let rest = spec.dropFirst("testsrc".count).drop { $0 == ":" }
            if !rest.isEmpty {
                let parts = rest.split(separator: "@")
                guard let s = parts.first, s.split(separator: "x").count == 2,
                    s.split(separator: "x").allSatisfy({ Int($0).map { $0 > 0 } == true })
                else { throw MediaError(.invalidArgument, spec, "expected testsrc:WIDTHxHEIGHT@FPS, e.g. testsrc:1280x720@30") }
                size = String(s)
                if parts.count > 1 {
                    guard let r = Double(parts[1]), r > 0, r <= 1000 else {
                        throw MediaError(.invalidArgument, spec, "the frame rate must be a number above 0, up to 1000")
                    }
                    rate = r
                }
            }
            let seconds = options.testFrames.map { Double(max(1, $0) + 1) / rate } ?? 10
            url = "testsrc=size=\(size):rate=\(rate):duration=\(seconds)"
            inputFormat = av_find_input_format("lavfi")
        } else if spec.hasPrefix("/dev/video") {
            inputFormat = av_find_input_format("video4linux2")
            live = true
            if let w = options.width, let h = options.height { av_dict_set(&dict, "video_size", "\(w)x\(h)", 0) }
            if let r = options.frameRate { av_dict_set(&dict, "framerate", "\(r)", 0) }
            if let f = options.inputPixelFormat { av_dict_set(&dict, "input_format", f, 0) }
        } else if let scheme = URL(string: spec)?.scheme, ["rtsp", "rtmp", "http", "https", "udp", "tcp", "srt"].contains(scheme) {
            live = !(spec.hasSuffix(".mp4") || spec.hasSuffix(".mkv"))
            // Socket-level time-outs too; the interrupt callback below bounds everything else.
            av_dict_set(&dict, "rw_timeout", "\(Int64(saturating: options.timeout * 1e6))", 0)
            if scheme == "rtsp" { av_dict_set(&dict, "rtsp_transport", "tcp", 0) }
        } else {
            if !spec.contains("%") {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: spec, isDirectory: &isDir) else {
                    throw MediaError(.fileNotFound, spec, "no such file")
                }
                guard !isDir.boolValue else {
                    throw MediaError(
                        .invalidArgument, spec, "is a directory, not a media file (for numbered images use a pattern such as frames/%04d.png)")
                }
            }
        }
        isLive = live

        // The interrupt callback ends a blocked open or read: time-out, Ctrl-C or SIGTERM.
        var ctx: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        ctx?.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in Unmanaged<IOInterrupt>.fromOpaque(opaque!).takeUnretainedValue().shouldStop() },
            opaque: Unmanaged.passUnretained(io).toOpaque())
        if inputFormat == nil, !spec.contains("%"), PipeInput.applies(to: spec) {
            let p = try PipeInput(path: spec, io: io)
            ctx?.pointee.pb = p.context
            ctx?.pointee.flags |= ff_fmt_flag_custom_io()
            pipe = p
        }
        io.arm()
        let openResult = avformat_open_input(&ctx, url, inputFormat, &dict)
        io.disarm()
        if openResult < 0 {
            if let e = io.error(spec, "opening") { throw e }
            let m = ffmpegMessage(openResult)
            let kind: MediaError.Kind = openResult == ff_averror_invaliddata() ? .notMedia : .ffmpeg
            throw MediaError(kind, spec, kind == .notMedia ? "not a media file FFmpeg can read (\(m))" : "cannot open: \(m)", code: openResult)
        }
        format = ctx
        do {
            // Decoders probing the streams may not allocate images over the pixel budget.
            let limit = options.limits.maxImagePixels
            let streams = Int(ctx!.pointee.nb_streams)
            var probeOptions = [OpaquePointer?](repeating: nil, count: max(1, streams))
            for i in 0..<streams { av_dict_set(&probeOptions[i], "max_pixels", "\(limit)", 0) }
            defer { for i in probeOptions.indices { av_dict_free(&probeOptions[i]) } }
            io.arm()
            let probed = avformat_find_stream_info(ctx, &probeOptions)
            io.disarm()
            if probed < 0, let e = io.error(spec, "reading stream information") { throw e }
            try check(probed, spec, "cannot read stream information")
            var decoder: UnsafePointer<AVCodec>? = nil
            let index = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
            if index == ff_averror(Int32(ENOENT)) || index == AVERROR_STREAM_NOT_FOUND_VALUE {
                throw MediaError(.noVideoStream, spec, "has no video stream")
            }
            if index < 0 {
                var what = "?"
                for i in 0..<Int(ctx!.pointee.nb_streams) {
                    guard let par = ctx!.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
                    what = String(cString: avcodec_get_name(par.pointee.codec_id))
                    let tag = par.pointee.codec_tag
                    if tag != 0 {
                        let chars = (0..<4).map { Character(UnicodeScalar(UInt8((tag >> (8 * $0)) & 0xFF))) }
                        what += ", codec tag '\(String(chars))'"
                    }
                }
                throw MediaError(.unsupportedCodec, spec, "no decoder for its video codec (\(what))", code: index)
            }
            streamIndex = index
            let stream = ctx!.pointee.streams[Int(index)]!
            timeBase = stream.pointee.time_base
            let (w, h) = (Int(stream.pointee.codecpar.pointee.width), Int(stream.pointee.codecpar.pointee.height))
            guard options.limits.allowsImage(width: w, height: h) else {
                throw MediaError(
                    .tooLarge, spec,
                    "its frames are \(w)×\(h), over the limit of \(limit) pixels per image (ResourceLimits.maxImagePixels, --max-image-pixels)")
            }
            guard w <= ImagePool.maxSide, h <= ImagePool.maxSide else {
                throw MediaError(.tooLarge, spec, "its frames are \(w)×\(h); an image may have at most \(ImagePool.maxSide) pixels on a side")
            }
            guard let decoder else { throw MediaError(.unsupportedCodec, spec, "no decoder for its video codec") }
            codec = avcodec_alloc_context3(decoder)
            try check(avcodec_parameters_to_context(codec, stream.pointee.codecpar), spec, "cannot set up the decoder")
            codec!.pointee.thread_count = 0  // FFmpeg picks
            codec!.pointee.max_pixels = Int64(limit)  // frames that grow mid-stream too
            try check(avcodec_open2(codec, decoder, nil), spec, "cannot open the \(String(cString: decoder.pointee.name)) decoder")
            let r = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            if r.num > 0 && r.den > 0 { frameRate = Double(r.num) / Double(r.den) }
            if stream.pointee.nb_frames > 0 { declaredFrameCount = Int(stream.pointee.nb_frames) }
        } catch {
            avcodec_free_context(&codec)
            avformat_close_input(&format)
            throw error
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
    }

    /// The video stream's codec parameters and time base, for writing its packets again
    /// without re-encoding (`ClipRecorder`).
    public func encodedStreamInfo() throws -> EncodedStreamInfo {
        guard let stream = format?.pointee.streams[Int(streamIndex)] else {
            throw MediaError(.ffmpeg, spec, "the source is closed")
        }
        return try EncodedStreamInfo(copying: stream.pointee.codecpar, timeBase: timeBase, frameRate: frameRate)
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The next frame, or nil at the end of the input. Damaged frames are skipped and a read
    /// error in the middle of a file (truncation, corruption) ends the input, each with a
    /// warning rather than an error, and the decoder is drained, so that every frame FFmpeg
    /// can decode is kept.
    public func read() throws -> Frame? {
        while !finished {
            let r = avcodec_receive_frame(codec, frame)
            if r == 0 {
                decodeErrors = 0
                defer { av_frame_unref(frame) }
                do { return try convert() } catch let e as ImageError {
                    throw MediaError(.tooLarge, spec, "frame \(framesRead + 1): \(e)")
                }
            }
            if r == ff_averror_eof() {
                finished = true
                break
            }
            if r != ff_averror_eagain() {
                decodeErrors += 1
                warnings.append("skipped a frame that could not be decoded after frame \(framesRead): \(ffmpegMessage(r))")
                if decodeErrors > 100 {  // a decoder that only fails: give up instead of spinning
                    warnings.append("decoding stopped after \(framesRead) frames")
                    finished = true
                }
                continue
            }
            if flushed {
                finished = true
                break
            }
            io.arm()
            let rr = av_read_frame(format, packet)
            io.disarm()
            if rr < 0 {
                if let e = io.error(spec, "reading") {
                    if io.wasInterrupted { finished = true; return nil }
                    warnings.append("input ended after \(framesRead) frames: \(e.message)")
                } else if rr != ff_averror_eof() {
                    warnings.append("input ended early after \(framesRead) frames (\(ffmpegMessage(rr)))")
                }
                avcodec_send_packet(codec, nil)
                flushed = true
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            if let packetTap { packetTap(EncodedPacket(packet, timeBase: timeBase)) }
            let s = avcodec_send_packet(codec, packet)
            if s < 0 && s != ff_averror_eagain() {
                let pos = packet.pointee.pos
                warnings.append("skipped a damaged packet at byte \(pos): \(ffmpegMessage(s))")
            }
        }
        if framesRead == 0, let pb = format?.pointee.pb, pb.pointee.seekable == 0,
            String(cString: format!.pointee.iformat.pointee.name).contains("mp4")
        {
            warnings.append(
                "no frame: the stream cannot be seeked (the server does not accept range requests) and an MP4 whose index (moov) is at its end needs seeking; serve it from a server that does, or remux it with -movflags +faststart"
            )
        }
        if let declaredFrameCount, framesRead < declaredFrameCount, !isLive,
            !warnings.contains(where: { $0.contains("ended early") })
        {
            warnings.append("input ended early: \(framesRead) of the \(declaredFrameCount) frames the file declares (truncated?)")
        }
        return nil
    }

    private func nextTimestamp() -> Timestamp {
        var pts = frame.pointee.best_effort_timestamp
        if pts == ff_nopts_value() { pts = frame.pointee.pts }
        var us: Int64
        if pts != ff_nopts_value() {
            us = av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1_000_000))
        } else if lastTimestamp != Int64.min {
            us = lastTimestamp + Int64(1_000_000 / (frameRate ?? 30))
        } else {
            us = 0
        }
        if us <= lastTimestamp { us = lastTimestamp + 1 }
        lastTimestamp = us
        return Timestamp(us)
    }

    private func convert() throws -> Frame {
        let ts = nextTimestamp()
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        let srcFormat = AVPixelFormat(rawValue: frame.pointee.format)
        let target = options.pixelFormat
        let srcFull =
            frame.pointee.color_range == AVCOL_RANGE_JPEG || srcFormat == AV_PIX_FMT_YUVJ420P
            || srcFormat == AV_PIX_FMT_YUVJ422P || srcFormat == AV_PIX_FMT_YUVJ444P
        var image: ImageFrame
        if options.rotation == 0 && !options.mirrored, let wrapped = wrapWithoutCopy(w, h, srcFormat, srcFull) {
            image = wrapped
        } else {
            let m = try pool.makeImage(width: w, height: h, format: target)
            let dstFull = target.yuvRange.map { $0 == .full } ?? true
            try withUnsafePointer(to: &frame.pointee.data) { dataTuple in
                try dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                    try withUnsafePointer(to: &frame.pointee.linesize) { lsTuple in
                        try lsTuple.withMemoryRebound(to: Int32.self, capacity: 8) { srcStrides in
                            try m.withFFmpegPlanes { dst, dstStrides in
                                try scaler.convert(
                                    src: src, srcStrides: srcStrides, srcWidth: Int32(w), srcHeight: Int32(h), srcFormat: srcFormat,
                                    srcFullRange: srcFull, dst: dst, dstStrides: dstStrides, dstWidth: Int32(w), dstHeight: Int32(h),
                                    dstFormat: target.avPixelFormat, dstFullRange: dstFull, source: spec)
                            }
                        }
                    }
                }
            }
            image = m.freeze()
            if options.rotation != 0 || options.mirrored {
                image = try Orientation.apply(image, rotation: options.rotation, mirrored: options.mirrored, pool: pool)
            }
        }
        framesRead += 1
        return Frame(image: image, timestamp: ts)
    }

    /// The decoder's own planes as an `ImageFrame`, when they already are in the format
    /// asked for: no copy, the frame is released when the last image using it goes away.
    private func wrapWithoutCopy(_ w: Int, _ h: Int, _ src: AVPixelFormat, _ srcFull: Bool) -> ImageFrame? {
        let target = options.pixelFormat
        let matches: Bool
        switch target {
        case .nv12(let r): matches = src == AV_PIX_FMT_NV12 && (r == .full) == srcFull
        case .i420(let r): matches = (src == AV_PIX_FMT_YUV420P || src == AV_PIX_FMT_YUVJ420P) && (r == .full) == srcFull
        default: matches = src == target.avPixelFormat
        }
        guard matches, let clone = av_frame_clone(frame) else { return nil }
        let holder = FrameHolder(clone)
        var planes: [ImagePlane] = []
        for i in 0..<target.planeCount {
            let (_, ph) = target.planeSize(i, width: w, height: h)
            let stride = Int(withUnsafePointer(to: &clone.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[i] } })
            let data = withUnsafePointer(to: &clone.pointee.data) {
                $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[i] }
            }
            guard stride > 0, let data else { return nil }
            let buffer = ImageBuffer(wrapping: UnsafeMutableRawPointer(data), byteCount: stride * ph) { _, _ in holder.touch() }
            planes.append(ImagePlane(buffer: buffer, offset: 0, bytesPerRow: stride, rows: ph))
        }
        return try? ImageFrame(width: w, height: h, format: target, planes: planes)
    }
}

/// A flag another thread sets to end a source's blocked open or read (Ctrl-C, SIGTERM).
public final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)
    public init() {}
    public func set() { value.store(true, ordering: .relaxed) }
    public var isSet: Bool { value.load(ordering: .relaxed) }
}

/// FFmpeg's interrupt callback for one source: stops a blocking call when the interrupt flag
/// is set or the current call has run past its time-out.
final class IOInterrupt: Sendable {
    private let flag: InterruptFlag?
    private let timeout: Double
    private let deadline = Atomic<UInt64>(0)  // monotonic ns, 0 when no call is timed
    private let timedOut = Atomic<Bool>(false)

    init(flag: InterruptFlag?, timeout: Double) {
        self.flag = flag
        self.timeout = timeout
    }

    /// Starts timing a call.
    func arm() {
        timedOut.store(false, ordering: .relaxed)
        deadline.store(monotonicNanoseconds(after: timeout), ordering: .relaxed)
    }

    func disarm() { deadline.store(0, ordering: .relaxed) }

    var wasInterrupted: Bool { flag?.isSet == true }

    /// 1 to make FFmpeg give up the current call.
    func shouldStop() -> Int32 {
        if wasInterrupted { return 1 }
        let d = deadline.load(ordering: .relaxed)
        if d != 0 && monotonicNanoseconds() > d {
            timedOut.store(true, ordering: .relaxed)
            return 1
        }
        return 0
    }

    /// The error for a call this callback ended, nil when it ended for another reason.
    func error(_ spec: String, _ what: String) -> MediaError? {
        if wasInterrupted { return MediaError(.interrupted, spec, "interrupted while \(what)") }
        if timedOut.load(ordering: .relaxed) {
            return MediaError(.timedOut, spec, "no answer for \(String(format: "%g", timeout)) s while \(what)")
        }
        return nil
    }
}

/// Keeps a cloned `AVFrame` alive while images wrap its planes; frees it after the last.
///
/// `@unchecked Sendable`: the frame is never written after cloning; freeing happens once,
/// in `deinit`.
final class FrameHolder: @unchecked Sendable {
    private var frame: UnsafeMutablePointer<AVFrame>?
    init(_ frame: UnsafeMutablePointer<AVFrame>) { self.frame = frame }
    func touch() {}
    deinit { av_frame_free(&frame) }
}

let AVERROR_STREAM_NOT_FOUND_VALUE: Int32 = {
    // FFERRTAG(0xF8,'S','T','R')
    let tag = Int32(0xF8) | (Int32(UInt8(ascii: "S")) << 8) | (Int32(UInt8(ascii: "T")) << 16) | (Int32(UInt8(ascii: "R")) << 24)
    return -tag
}()
