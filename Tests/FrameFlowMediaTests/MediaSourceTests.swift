import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import FrameFlowTesting
import Foundation
import Testing

@Suite struct MediaSourceTests {
    @Test func decodesFramesTimestampsAndPixels() throws {
        let path = try MediaFixtures.clip()
        let source = try MediaSource(path)
        var frames: [MediaSource.Frame] = []
        while let f = try source.read() { frames.append(f) }
        #expect(frames.count == 50)
        #expect(frames.map(\.timestamp) == (0..<50).map { Timestamp(Int64($0) * 40_000) })
        #expect(source.frameRate == 25)
        #expect(source.warnings.isEmpty)
        // Pixels against the ffmpeg tool's own RGBA decode.
        let raw = [UInt8](try MediaFixtures.rgbaFrames(path))
        #expect(raw.count == 50 * 160 * 120 * 4)
        var maxDiff = 0
        for (i, f) in frames.enumerated() {
            #expect(f.image.width == 160 && f.image.height == 120 && f.image.format == .rgba8)
            let ours = f.image.packedBytes()
            for k in stride(from: 0, to: ours.count, by: 1) { maxDiff = max(maxDiff, abs(Int(ours[k]) - Int(raw[i * ours.count + k]))) }
        }
        #expect(maxDiff <= 2, "same decoder and converter: differences only from conversion rounding; saw \(maxDiff)")
    }

    /// Widths whose RGB rows end inside a converter's SIMD block (360 × 3 bytes padded to 1088,
    /// written as 368 pixels): the last row used to run past the image's memory.
    @Test(arguments: [360, 200, 344])
    func rgbRowsOfAnyWidthStayInTheirImage(width: Int) throws {
        let path = try MediaFixtures.make(
            "w\(width).mp4",
            [
                "-f", "lavfi", "-i", "testsrc=size=\(width)x64:rate=10:duration=0.5", "-pix_fmt", "yuv420p", "-c:v", "libx264",
            ])
        let source = try MediaSource(path, options: .init(pixelFormat: .rgb8))
        let raw = [UInt8](try runCommand(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        var k = 0, maxDiff = 0
        while let f = try source.read() {
            let ours = f.image.packedBytes()
            #expect(ours.count == width * 64 * 3)
            for (i, v) in ours.enumerated() where k + i < raw.count { maxDiff = max(maxDiff, abs(Int(v) - Int(raw[k + i]))) }
            k += ours.count
        }
        #expect(k == raw.count && k > 0)
        #expect(maxDiff <= 2, "saw \(maxDiff)")
    }

    @Test func realClipFromAPackage() throws {
        let path = try MediaFixtures.carphone()
        let source = try MediaSource(path, options: .init(pixelFormat: .nv12(.video)))
        var count = 0
        var last = Timestamp.unset
        while let f = try source.read() {
            #expect(f.timestamp > last)
            last = f.timestamp
            #expect(f.image.format == .nv12(.video) && f.image.width == 176 && f.image.height == 144)
            count += 1
        }
        #expect(count == 120)
        #expect(abs(last.seconds - 119.0 * 1001 / 30000) < 0.002)
    }

    @Test func planarOutputWithoutCopy() throws {
        // The decoder's yuv420p (video range) is what i420_video asks for: wrapped, not converted.
        let path = try MediaFixtures.clip()
        let source = try MediaSource(path, options: .init(pixelFormat: .i420(.video)))
        let f = try #require(try source.read())
        #expect(f.image.format == .i420(.video) && f.image.planes.count == 3)
        let y = [UInt8](
            try runCommand(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
        var same = true
        for row in 0..<120 where Array(f.image.row(row)) != Array(y[row * 160..<(row + 1) * 160]) { same = false }
        #expect(same, "Y plane must equal the decoder's")
    }

    @Test func testPatternSourceAndSpecErrors() throws {
        let source = try MediaSource("testsrc:64x48@10")
        let f = try #require(try source.read())
        #expect(f.image.width == 64 && f.image.height == 48)
        #expect(try source.read()?.timestamp == Timestamp(100_000))
        for bad in ["testsrc:64", "testsrc:axb@1", "testsrc:64x48@zero"] {
            let e = #expect(throws: MediaError.self) { try MediaSource(bad) }
            #expect(e?.kind == .invalidArgument)
        }
    }

    @Test func imagesAndSequences() throws {
        _ = try MediaFixtures.make("seq_%03d.png", ["-f", "lavfi", "-i", "testsrc=size=32x24:rate=5:duration=1"])
        let seq = try MediaSource(MediaFixtures.path("seq_%03d.png"))
        var n = 0
        while try seq.read() != nil { n += 1 }
        #expect(n == 5)
        let still = try MediaSource(MediaFixtures.path("seq_001.png"))
        #expect(try still.read()?.image.width == 32)
        #expect(try still.read() == nil)
    }

    @Test func orientationRotatesThenMirrors() throws {
        let img = try TestImages.make(width: 3, height: 2, format: .gray8) { x, y, _ in UInt8(10 * y + x) }
        let r90 = try Orientation.apply(img, rotation: 90, mirrored: false)
        #expect(r90.width == 2 && r90.height == 3)
        #expect(r90.packedBytes() == [10, 0, 11, 1, 12, 2])
        let r180 = try Orientation.apply(img, rotation: 180, mirrored: false)
        #expect(r180.packedBytes() == [12, 11, 10, 2, 1, 0])
        let m = try Orientation.apply(img, rotation: 0, mirrored: true)
        #expect(m.packedBytes() == [2, 1, 0, 12, 11, 10])
        let r270m = try Orientation.apply(img, rotation: 270, mirrored: true)
        // 270° clockwise: rows are the source columns from the right, top to bottom; then mirrored.
        #expect(r270m.packedBytes() == [12, 2, 11, 1, 10, 0])
    }

    // MARK: Bad input

    @Test func missingFile() {
        let e = #expect(throws: MediaError.self) { try MediaSource("/nonexistent/clip.mp4") }
        #expect(e?.kind == .fileNotFound)
        #expect(e?.description == "/nonexistent/clip.mp4: no such file")
    }

    @Test func notMedia() throws {
        let p = MediaFixtures.path("notes.mp4")
        try Data("this is not a video\n".utf8).write(to: URL(fileURLWithPath: p))
        let e = #expect(throws: MediaError.self) { try MediaSource(p) }
        #expect(e?.kind == .notMedia || e?.kind == .ffmpeg)
        #expect(e?.description.hasPrefix(p) == true)
    }

    @Test func audioOnlyHasNoVideoStream() throws {
        let p = try MediaFixtures.make("tone.wav", ["-f", "lavfi", "-i", "sine=duration=0.2"])
        let e = #expect(throws: MediaError.self) { try MediaSource(p) }
        #expect(e?.kind == .noVideoStream)
    }

    @Test func truncatedMP4KeepsTheFramesBeforeTheCut() throws {
        let full = try MediaFixtures.clip()
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        let cut = MediaFixtures.path("cut.mp4")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let source = try MediaSource(cut)
        var n = 0
        while try source.read() != nil { n += 1 }
        #expect(n > 5 && n < 50, "frames before the cut: \(n)")
        #expect(!source.warnings.isEmpty, "a warning must say the input ended early")
        #expect(source.warnings.joined().contains("ended early"), "\(source.warnings)")
        // A damaged frame at the cut does not end decoding: the decoder is drained, and every
        // frame FFmpeg itself decodes from the cut file is delivered.
        let md5 = String(decoding: try runCommand(["ffmpeg", "-v", "error", "-i", cut, "-f", "framemd5", "-"]), as: UTF8.self)
        let ffmpegFrames = md5.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(n == ffmpegFrames, "FrameFlow read \(n) frames, FFmpeg decodes \(ffmpegFrames)")
    }

    @Test func directoryIsNamedAsSuch() {
        let e = #expect(throws: MediaError.self) { try MediaSource(MediaFixtures.directory) }
        #expect(e?.description.contains("is a directory") == true, "\(String(describing: e))")
    }

    @Test func imagesOverThePixelBudgetAreNotDecoded() throws {
        // A 249 KB PNG of 16000 × 16000 (1 GB as RGBA): the decoder may not allocate it.
        let large = RepositoryFiles.root.appendingPathComponent("Tests/Fixtures/media/large-16000.png").path
        let source = try MediaSource(large)
        #expect(try source.read() == nil)
        // A header claiming 60000 × 60000 with a few bytes of data.
        let huge = RepositoryFiles.root.appendingPathComponent("Tests/Fixtures/media/huge-header.png").path
        #expect(try MediaSource(huge).read() == nil)
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        // A loopback socket that completes TCP handshakes (the kernel does, from the backlog)
        // but never answers: RTSP's open must give up after the time-out instead of hanging.
        let server = try SilentServer()
        var options = MediaSource.Options()
        options.timeout = 1
        let t0 = Date()
        let e = #expect(throws: MediaError.self) { try MediaSource("rtsp://127.0.0.1:\(server.port)/live", options: options) }
        #expect(e?.kind == .timedOut, "\(String(describing: e))")
        #expect(Date().timeIntervalSince(t0) < 5)
        // And an interrupt ends the wait at once, whatever the time-out.
        options.timeout = 60
        let flag = InterruptFlag()
        options.interrupt = flag
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flag.set() }
        let t1 = Date()
        let i = #expect(throws: MediaError.self) { try MediaSource("rtsp://127.0.0.1:\(server.port)/live", options: options) }
        #expect(i?.kind == .interrupted, "\(String(describing: i))")
        #expect(Date().timeIntervalSince(t1) < 3)
    }

    @Test func sizeChangeMidStream() throws {
        let a = try MediaFixtures.make("a.ts", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-c:v", "mpeg2video"])
        let b = try MediaFixtures.make(
            "b.ts", ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=1", "-c:v", "mpeg2video", "-output_ts_offset", "1"])
        var joined = try Data(contentsOf: URL(fileURLWithPath: a))
        joined.append(try Data(contentsOf: URL(fileURLWithPath: b)))
        let p = MediaFixtures.path("switch.ts")
        try joined.write(to: URL(fileURLWithPath: p))
        let source = try MediaSource(p)
        var sizes = Set<Int>()
        var n = 0
        var last = Timestamp.unset
        while let f = try source.read() {
            sizes.insert(f.image.width)
            #expect(f.timestamp > last)
            last = f.timestamp
            n += 1
        }
        #expect(sizes == [64, 96])
        #expect(n >= 18)
    }
}

@Suite struct MediaSourceMoreTests {
    @Test func unknownCodecIsNamed() throws {
        // An AVI whose video fourcc no decoder knows.
        let known = try MediaFixtures.make("known.avi", ["-f", "lavfi", "-i", "testsrc=size=32x24:duration=0.2", "-c:v", "mpeg4"])
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: known)))
        let from = Array("FMP4".utf8), to = Array("ZQXW".utf8)
        var replaced = 0
        for i in 0..<(data.count - 4) where Array(data[i..<i + 4]) == from {
            data.replaceSubrange(i..<i + 4, with: to)
            replaced += 1
        }
        #expect(replaced > 0)
        let p = MediaFixtures.path("unknown.avi")
        try Data(data).write(to: URL(fileURLWithPath: p))
        let e = #expect(throws: MediaError.self) { try MediaSource(p) }
        #expect(e?.kind == .unsupportedCodec)
        #expect(e?.description.contains("codec tag 'ZQXW'") == true, "\(String(describing: e))")
    }

    @Test func httpStreamFromLoopback() throws {
        // A file served over HTTP by Python's http.server on 127.0.0.1.
        let clip = try MediaFixtures.clip()
        let port = 18_000 + Int(getpid() % 1000)
        let server = try MediaFixtures.httpServer(port: port)
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var source: MediaSource?
        for _ in 0..<50 where source == nil {  // wait up to 5 s for the server
            source = try? MediaSource("http://127.0.0.1:\(port)/\((clip as NSString).lastPathComponent)")
            if source == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        let s = try #require(source)
        var n = 0
        while try s.read() != nil { n += 1 }
        #expect(n == 50)
    }

    @Test func unseekableHTTPMP4IsNotASuccess() throws {
        // An MP4 with its index at the end, from a server that answers one request, with no
        // length and no range support: nothing can be decoded, and the run says why instead
        // of reporting success.
        // Larger than what FFmpeg buffers while probing (426 KB), or it would seek in its buffer.
        let late = try MediaFixtures.make(
            "moov-at-end.mp4",
            [
                "-f", "lavfi", "-i", "testsrc=size=640x480:rate=25:duration=4", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-crf", "0", "-preset",
                "ultrafast",
            ])
        let port = 19_000 + Int(getpid() % 1000)
        let script = """
            import socket, sys
            data = open(sys.argv[1], "rb").read()
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", int(sys.argv[2])))
            s.listen(1)
            print("ready", flush=True)
            c, _ = s.accept()
            s.close()
            c.recv(65536)
            c.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Type: video/mp4\\r\\n\\r\\n" + data)
            c.close()
            """
        let out = Pipe()
        let server = try MediaFixtures.python(["-c", script, late, "\(port)"], stdout: out)
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        _ = out.fileHandleForReading.availableData  // "ready"
        let (r, text) = try MediaFixtures.runReadingStderr(
            CommandLineTests.binary,
            ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "http://127.0.0.1:\(port)/clip.mp4", "--output", "null", "--timeout", "3"])
        #expect(r.terminationStatus == 4, "\(r.terminationStatus): \(text)")
        #expect(text.contains("cannot be seeked"), "\(text)")
    }
}

extension MediaFixtures {
    /// Python's http.server on 127.0.0.1:`port` serving the fixture folder (no range requests).
    static func httpServer(port: Int) throws -> Process {
        try python(["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", MediaFixtures.directory])
    }

    /// Starts the Python interpreter with `arguments`.
    static func python(_ arguments: [String], stdout: Pipe? = nil) throws -> Process {
        // SIGKILL, not `terminate()`: the test runner starts children with SIGTERM blocked
        // (inherited signal mask), so terminated servers outlived every test run. The
        // interpreter is started itself, not through `env`, so that the kill reaches it.
        let which = Process()
        which.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        which.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        let pipe = Pipe()
        which.standardOutput = pipe
        try which.run()
        which.waitUntilExit()
        let python = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = arguments
        server.standardOutput = stdout ?? FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        return server
    }
}

/// A TCP socket on 127.0.0.1 that listens and never accepts or answers.
final class SilentServer {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else {
            close(fd)
            throw MediaFixtures.FixtureError(description: "cannot listen on 127.0.0.1")
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }
}
