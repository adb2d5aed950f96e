import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Foundation
import Testing

/// Network and HLS outputs on loopback: the edge graph on 60 frames of a 320×240 test source,
/// sent to a receiver that is not FrameFlow (Debian's `ffmpeg` as an RTMP, RTSP or SRT server;
/// the test's own socket for UDP and RTP), then decoded by `ffprobe`: the frame count and size
/// must be what was sent. Every spawned process is killed at the end, and every wait is bounded.
@Suite(.serialized) struct NetworkOutputTests {
    static let frames = 60

    /// Runs the edge graph on `frames` frames of testsrc at 320×240 into `output`.
    @discardableResult
    static func run(
        _ output: String, frames: Int = frames, input: String = "testsrc:320x240@30", realtime: Bool = false,
        configure: (inout EncodeOptions) -> Void = { _ in }
    ) throws -> GraphRunner.Summary {
        var o = GraphRunner.Options()
        o.inputs = [(nil, input)]
        o.frames = frames
        o.output = output
        o.realtime = realtime
        configure(&o.encode)
        return try GraphRunner(graph: try edgeGraph(), options: o).run()
    }

    /// `ffprobe`'s decoded frame count and size of `path`, which must be what the graph sent.
    static func expectReceived(_ path: String, frames: Int = frames, _ what: String, log: Listener? = nil) throws {
        let p = try MediaFixtures.probe(path)
        #expect(p.frames == frames, "\(what): ffprobe decoded \(p.frames) of \(frames) frames; \(log?.output ?? "")")
        #expect(p.width == 320 && p.height == 240, "\(what): \(p.width)×\(p.height)")
    }

    // MARK: - Receivers

    /// An `ffmpeg` process serving one stream; killed (SIGKILL) by `stop()` if still running.
    final class Listener {
        let process = Process()
        let logPath: String

        init(_ args: [String], name: String) throws {
            logPath = MediaFixtures.path("\(name).log")
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + args
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: logPath)
            try process.run()
        }

        /// Waits up to `seconds` for the process to end on its own (the stream ended).
        func waitForExit(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            return !process.isRunning
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        /// What ffmpeg printed, for a failure's message.
        var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    }

    /// Whether something listens on (TCP) or has bound (UDP) 127.0.0.1/::`port`, read from
    /// /proc/net (a connection to test it would be taken as the one client by `-listen 1`).
    static func isBound(_ port: Int, udp: Bool) -> Bool {
        let hex = String(format: ":%04X", port)
        for table in udp ? ["udp", "udp6"] : ["tcp", "tcp6"] {
            guard let text = try? String(contentsOfFile: "/proc/net/\(table)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let cols = line.split(separator: " ")
                guard cols.count > 3, cols[1].hasSuffix(hex) else { continue }
                if udp || cols[3] == "0A" { return true }  // 0A: LISTEN
            }
        }
        return false
    }

    /// Waits up to 10 s for `listener` to bind `port`; false if it did not (or exited).
    static func waitUntilBound(_ port: Int, udp: Bool, _ listener: Listener) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && listener.process.isRunning {
            if isBound(port, udp: udp) { return true }
            usleep(20_000)
        }
        return false
    }

    /// A UDP socket on 127.0.0.1 that keeps every datagram it gets, read on its own thread
    /// until `stop()`.
    final class DatagramRecorder: @unchecked Sendable {  // `datagrams` is read after the thread ends
        let port: Int
        private let fd: Int32
        private var datagrams: [Data] = []
        private let done = DispatchSemaphore(value: 0)
        private let stopping = NSLock()
        private var stopRequested = false

        init() throws {
            var bound: (Int32, Int)?
            for _ in 0..<5 where bound == nil {
                let port = try LoopbackPort.free()
                let s = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                var addr = sockaddr_in()
                addr.sin_family = sa_family_t(AF_INET)
                addr.sin_addr.s_addr = inet_addr("127.0.0.1")
                addr.sin_port = UInt16(port).bigEndian
                let ok = withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                }
                if ok { bound = (s, port) } else { close(s) }
            }
            guard let (s, port) = bound else { throw POSIXError(.EADDRINUSE) }
            (fd, self.port) = (s, port)
            Thread.detachNewThread { [self] in
                var buf = [UInt8](repeating: 0, count: 65536)
                while true {
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&p, 1, 50) > 0 {
                        let n = recv(fd, &buf, buf.count, 0)
                        if n > 0 { datagrams.append(Data(buf[0..<n])) }
                        continue
                    }
                    stopping.lock()
                    let stop = stopRequested
                    stopping.unlock()
                    if stop { break }  // only once the socket is drained
                }
                done.signal()
            }
        }

        /// Stops reading (after what is queued) and returns every datagram, in order.
        func stop() -> [Data] {
            stopping.lock()
            stopRequested = true
            stopping.unlock()
            done.wait()
            close(fd)
            return datagrams
        }
    }

    // MARK: - Outputs

    @Test func udpSendsMPEGTSThatDecodesWhole() throws {
        let recorder = try DatagramRecorder()
        let summary = try Self.run("udp://127.0.0.1:\(recorder.port)")
        let datagrams = recorder.stop()
        #expect(summary.framesOut == Self.frames)
        // MPEG-TS in 1316-byte datagrams: seven 188-byte packets, each starting with 0x47.
        #expect(!datagrams.isEmpty && datagrams.allSatisfy { $0.count % 188 == 0 && $0.count <= 1316 && $0.first == 0x47 })
        let ts = MediaFixtures.path("udp-received.ts")
        try datagrams.reduce(Data(), +).write(to: URL(fileURLWithPath: ts))
        try Self.expectReceived(ts, "udp")
    }

    @Test func rtpSendsMPEGTSInRTPPackets() throws {
        let recorder = try DatagramRecorder()
        try Self.run("rtp://127.0.0.1:\(recorder.port)")
        let packets = recorder.stop()
        // RFC 3550 header: version 2, no padding, extension or CSRCs (12 bytes); payload type
        // 33 (MP2T, RFC 3551); sequence numbers consecutive.
        #expect(!packets.isEmpty)
        #expect(packets.allSatisfy { $0.count > 12 && $0[0] == 0x80 && $0[1] & 0x7F == 33 })
        let sequence = packets.map { UInt16($0[2]) << 8 | UInt16($0[3]) }
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        let ts = MediaFixtures.path("rtp-received.ts")
        try packets.map { $0.dropFirst(12) }.reduce(Data(), +).write(to: URL(fileURLWithPath: ts))
        try Self.expectReceived(ts, "rtp")
    }

    @Test func rtmpPublishesToAServer() throws {
        let port = try LoopbackPort.free()
        let out = MediaFixtures.path("rtmp-received.flv")
        let server = try Listener(
            ["-listen", "1", "-timeout", "15", "-i", "rtmp://127.0.0.1:\(port)/live/test", "-c", "copy", out], name: "rtmp-server")
        defer { server.stop() }
        try #require(Self.waitUntilBound(port, udp: false, server), "ffmpeg did not listen: \(server.output)")
        try Self.run("rtmp://127.0.0.1:\(port)/live/test")
        #expect(server.waitForExit(seconds: 10), "the server did not see the stream end")
        try Self.expectReceived(out, "rtmp", log: server)
    }

    @Test func rtspRecordsToAServer() throws {
        // FFmpeg's RTSP demuxer in listen mode takes one publisher (ANNOUNCE/RECORD).
        let port = try LoopbackPort.free()
        let out = MediaFixtures.path("rtsp-received.mkv")
        let server = try Listener(
            ["-rtsp_flags", "listen", "-listen_timeout", "15", "-i", "rtsp://127.0.0.1:\(port)/live", "-c", "copy", out], name: "rtsp-server")
        defer { server.stop() }
        try #require(Self.waitUntilBound(port, udp: false, server), "ffmpeg did not listen: \(server.output)")
        try Self.run("rtsp://127.0.0.1:\(port)/live")
        #expect(server.waitForExit(seconds: 10), "the server did not see the stream end")
        try Self.expectReceived(out, "rtsp", log: server)
    }

    @Test func srtToAListenerOrAClearError() throws {
        let port = try LoopbackPort.free()
        let url = "srt://127.0.0.1:\(port)"
        do {
            _ = try OutputURL(url)
        } catch let e as MediaError {
            // This FFmpeg has no SRT: the error says so, naming the URL.
            #expect(e.source == url && e.message.contains("without SRT"), "\(e)")
            return
        }
        let out = MediaFixtures.path("srt-received.ts")
        let listener = try Listener(
            ["-i", "srt://127.0.0.1:\(port)?mode=listener&listen_timeout=15000000", "-c", "copy", out], name: "srt-listener")
        defer { listener.stop() }
        try #require(Self.waitUntilBound(port, udp: true, listener), "ffmpeg did not listen: \(listener.output)")
        // SRT's live mode drops what arrives later than its latency (120 ms): paced, as a camera.
        try Self.run(url, frames: 30, realtime: true)
        #expect(listener.waitForExit(seconds: 10), "the listener did not see the stream end")
        try Self.expectReceived(out, frames: 30, "srt", log: listener)
    }

    @Test func hlsWritesAPlaylistAndSegmentsBesideIt() throws {
        let dir = MediaFixtures.path("hls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let playlist = (dir as NSString).appendingPathComponent("live.m3u8")
        // 3 s at 30 fps with 1 s segments: three segments.
        try Self.run(playlist, frames: 90) { $0.muxerOptions = [("hls_time", "1")] }
        try Self.expectReceived(playlist, frames: 90, "hls")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(names == ["live.m3u8", "live0.ts", "live1.ts", "live2.ts"], "no hidden folder is left: \(names)")
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.contains("#EXT-X-ENDLIST"), "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("live") } == ["live0.ts", "live1.ts", "live2.ts"])
    }

    @Test func aFailedHLSRunLeavesTheFolderAsItWas() throws {
        let dir = MediaFixtures.path("hls-failed-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let playlist = (dir as NSString).appendingPathComponent("out.m3u8")
        try "#EXTM3U\n# the previous run's\n".write(toFile: playlist, atomically: true, encoding: .utf8)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir)
        // An input that does not exist fails after the output was made; an option no muxer
        // takes fails at the first frame, after the header.
        #expect(throws: MediaError.self) { try Self.run(playlist, input: (dir as NSString).appendingPathComponent("missing.mp4")) }
        let error = #expect(throws: MediaError.self) { try Self.run(playlist) { $0.muxerOptions = [("no_such_option", "1")] } }
        #expect(error?.source == playlist && error?.message.contains("no_such_option") == true, "\(String(describing: error))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == before)
        #expect(try String(contentsOfFile: playlist, encoding: .utf8) == "#EXTM3U\n# the previous run's\n")
    }

    /// The hidden folder of a run that was killed (its process is gone) is removed, with its
    /// segments, by the next run to the same playlist.
    @Test func aKilledRunsHLSFolderIsRemovedByTheNextRun() throws {
        let dir = MediaFixtures.path("hls-stale-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        // OutputFile's temporary name: `.NAME.frameflow-HOST-PID-N.EXT`, HOST sanitized.
        var buf = [CChar](repeating: 0, count: 256)
        gethostname(&buf, buf.count - 1)
        let host = String(
            String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).map { $0.isLetter || $0.isNumber ? $0 : "_" }
                .prefix(32))
        let stale = (dir as NSString).appendingPathComponent(".live.m3u8.frameflow-\(host)-\(dead.processIdentifier)-1.m3u8")
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
        try Data("segment".utf8).write(to: URL(fileURLWithPath: (stale as NSString).appendingPathComponent("live0.ts")))
        try Self.run((dir as NSString).appendingPathComponent("live.m3u8"), frames: 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["live.m3u8", "live0.ts"])
    }

    @Test(arguments: [("ts", "mpegts"), ("flv", "flv")])
    func transportStreamAndFLVFiles(ext: String, format: String) throws {
        let path = MediaFixtures.path("edges.\(ext)")
        try Self.run(path)
        try Self.expectReceived(path, ext)
        let name = try runCommand(["ffprobe", "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", path])
        #expect(String(decoding: name, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == format)
    }

    // MARK: - Errors

    @Test func refusedConnectionFailsAtOnceNamingTheURL() throws {
        let port = try LoopbackPort.free()  // no one listens
        let url = "rtmp://127.0.0.1:\(port)/live/test"
        let started = Date()
        let error = #expect(throws: MediaError.self) { try Self.run(url) }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(error?.source == url && error?.message.contains("Connection refused") == true, "\(String(describing: error))")
    }

    /// A socket that listens but never accepts: the TCP connection opens (the kernel's
    /// backlog), the RTMP handshake never gets an answer. The deadline is 1 s, set in Swift or
    /// as FFmpeg's `rw_timeout` (µs) from `--output-option`.
    @Test(arguments: [false, true])
    func aServerThatNeverAnswersTimesOut(asMuxerOption: Bool) throws {
        let port = try LoopbackPort.free()
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(bound && listen(s, 4) == 0)
        let started = Date()
        let error = #expect(throws: MediaError.self) {
            try Self.run("rtmp://127.0.0.1:\(port)/live/test") {
                if asMuxerOption { $0.muxerOptions = [("rw_timeout", "1000000")] } else { $0.networkTimeout = 1 }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds >= 0.9 && seconds < 4, "gave up after \(seconds) s")
        #expect(error?.kind == .timedOut && error?.message.contains("no answer for 1 s") == true, "\(String(describing: error))")
    }

    @Test func unknownHostIsNamed() throws {
        let error = #expect(throws: MediaError.self) { try Self.run("rtmp://no-such-host.invalid/live/test") }
        #expect(error?.message.contains("unknown host 'no-such-host.invalid'") == true, "\(String(describing: error))")
    }

    @Test func unknownSchemeListsWhatIsSupported() throws {
        let error = #expect(throws: MediaError.self) { _ = try makeSink("gopher://example.com/x", stream: "out") }
        for form in ["udp://HOST:PORT", "rtp://HOST:PORT", "rtmp://HOST", "srt://HOST:PORT", "rtsp://HOST", ".m3u8", ".mp4"] {
            #expect(error?.message.contains(form) == true, "\(form) missing from: \(String(describing: error))")
        }
        #expect(error?.source == "gopher://example.com/x")
    }

    /// Broken URLs: each a `MediaError` naming the URL and what is wrong, before anything opens.
    @Test(arguments: [
        ("udp://127.0.0.1:0", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1:-1", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1:1e308", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1:65536", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1:99999999999999999999", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1:", "port must be a whole number from 1 to 65535"),
        ("udp://127.0.0.1", "no port; expected udp://HOST:PORT"),
        ("rtp://:5000", "no host"),
        ("srt://[::1:5000", "no closing ']'"),
        ("rtmp://bad host/live", "spaces or control characters"),
        ("rtmp://bad\u{1}host/live", "spaces or control characters"),
        ("rtsp://a$b/x", "is not a host name or address"),
    ])
    func brokenURLs(url: String, says: String) throws {
        let error = #expect(throws: MediaError.self) { _ = try OutputURL(url) }
        #expect(error?.source == url && error?.message.contains(says) == true, "\(String(describing: error))")
    }

    @Test func urlsParse() throws {
        let rtmp = try #require(try OutputURL("RTMP://user:pw@example.com/live/key"))
        #expect(rtmp.scheme == "rtmp" && rtmp.host == "example.com" && rtmp.port == nil && rtmp.muxer == "flv")
        let udp = try #require(try OutputURL("udp://[::1]:5000?pkt_size=1316"))
        #expect(udp.host == "::1" && udp.port == 5000 && udp.muxer == "mpegts")
        #expect(try OutputURL("rtp://239.0.0.1:5004")?.muxer == "rtp_mpegts")
        #expect(try OutputURL("rtsp://127.0.0.1:8554/cam")?.muxer == "rtsp")
        // Not URLs: files.
        #expect(try OutputURL("out.mp4") == nil)
        #expect(try OutputURL("dir/a://b.mp4") == nil)
    }
}
