import Foundation
import FrameFlowTestSupport
import Synchronization
import Testing

@testable import FrameFlowHTTP

/// Snapshots and MJPEG streams of a real fleet (the hand clip, 320×568, played in real time).
@Suite struct LiveViewTests {
    static let fleet = """
        defaults { graph: "pass.pbtxt" reconnect { initial_seconds: 0.1 max_seconds: 0.2 } }
        camera { name: "door" source: "\(handClip)" }
        camera { name: "dark" source: "/nonexistent/clip.mp4" }

        """

    @Test func snapshotIsTheLatestFrameAsJPEG() throws {
        let f = try ServedFleet(Self.fleet)
        defer { f.stop() }
        #expect(try eventually(within: 20) { try f.framesIn("door") > 0 })
        let full = try TestClient.json(port: f.port, "/api/cameras/door/snapshot.jpg")
        #expect(full.status == 200)
        #expect(full.headers["content-type"] == "image/jpeg")
        #expect(try #require(Self.jpegSize(full.body)) == (320, 568))
        let small = try TestClient.json(port: f.port, "/api/cameras/door/snapshot.jpg?width=160")
        #expect(try #require(Self.jpegSize(small.body)) == (160, 284))
        // A camera without a frame yet, and one that does not exist.
        #expect(try TestClient.json(port: f.port, "/api/cameras/dark/snapshot.jpg").status == 503)
        #expect(try TestClient.json(port: f.port, "/api/cameras/attic/snapshot.jpg").status == 404)
        #expect(try TestClient.json(port: f.port, "/api/cameras/attic/mjpeg").status == 404)
    }

    @Test func badParametersAreRefusedByName() throws {
        let f = try ServedFleet(Self.fleet)
        defer { f.stop() }
        for w in ["0", "-1", "4097", "abc", "1e308", "nan", ""] {
            for route in ["snapshot.jpg", "mjpeg"] {
                let r = try TestClient.json(port: f.port, "/api/cameras/door/\(route)?width=\(w)")
                #expect(r.status == 400, "width=\(w) on \(route)")
                #expect(r.text.contains("width"))
            }
        }
        for rate in ["0", "0.09", "31", "nan", "inf", "-5", "1e308", "x"] {
            let r = try TestClient.json(port: f.port, "/api/cameras/door/mjpeg?fps=\(rate)")
            #expect(r.status == 400, "fps=\(rate)")
            #expect(r.text.contains("fps"))
        }
    }

    @Test func streamsChangingFramesToEveryReaderAndStopsWhenNobodyWatches() throws {
        let f = try ServedFleet(Self.fleet)
        defer { f.stop() }
        #expect(try eventually(within: 20) { try f.framesIn("door") > 0 })
        // No viewer yet: nothing encoded for streams.
        #expect(try Self.metric(f, "frameflow_camera_live_frames_encoded_total") == 0)
        // A viewer that never reads, with a tiny receive buffer, beside one that reads.
        let stalled = try TestClient.connect(port: f.port)
        var small: Int32 = 1024
        setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let request = "GET /api/cameras/door/mjpeg?fps=10&width=160 HTTP/1.1\r\nHost: x\r\n\r\n"
        _ = request.withCString { send(stalled, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #expect(try eventually(within: 5) { try Self.metric(f, "frameflow_camera_viewers") == 1 })
        Thread.sleep(forTimeInterval: 1)  // the stalled viewer's socket fills
        let (reply, parts) = try Self.read(port: f.port, "/api/cameras/door/mjpeg?fps=10&width=160", seconds: 1.5)
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "multipart/x-mixed-replace; boundary=\(LiveView.boundary)")
        #expect(parts.count >= 3)
        #expect(Set(parts).count >= 3, "the frames change over time")
        for p in parts { #expect(Self.jpegSize(p).map { $0 == (160, 284) } == true) }
        close(stalled)
        // Both gone: the feed ends and encodes no more.
        #expect(try eventually(within: 5) { try Self.metric(f, "frameflow_camera_viewers") == 0 })
        Thread.sleep(forTimeInterval: 0.7)
        let encoded = try Self.metric(f, "frameflow_camera_live_frames_encoded_total")
        #expect(encoded >= 3)
        Thread.sleep(forTimeInterval: 1)
        #expect(try Self.metric(f, "frameflow_camera_live_frames_encoded_total") == encoded)
    }

    /// A camera that sends no new frame (its clip ended, it waits in backoff) keeps its
    /// viewers: the stream sends its last part again before the server's idle timeout (2 s
    /// here) would close it, and a viewer joining the feed gets the last frame at once.
    @Test func aStalledCameraKeepsItsViewers() throws {
        let f = try ServedFleet(
            """
            defaults { graph: "pass.pbtxt" realtime: false reconnect { initial_seconds: 1000 max_seconds: 1000 } }
            camera { name: "door" source: "\(handClip)" }

            """, idleTimeout: 2)
        defer { f.stop() }
        #expect(try eventually(within: 30) { try f.camera("door").object["state"] as? String == "backoff" })
        let first = Mutex<(Reply, [Data])?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let r = try? Self.read(port: f.port, "/api/cameras/door/mjpeg?width=64", seconds: 5)
            first.withLock { $0 = r }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 1)
        let (_, joined) = try Self.read(port: f.port, "/api/cameras/door/mjpeg?width=64", seconds: 0.4)
        #expect(!joined.isEmpty, "the feed's last frame, without waiting for a new one")
        done.wait()
        let (reply, parts) = try #require(first.withLock { $0 })
        #expect(reply.status == 200)
        // 5 s at one part per 2/3 s, past two idle timeouts: the connection stayed open.
        #expect(parts.count >= 5, "\(parts.count) parts")
        #expect(Set(parts + joined).count == 1, "the same frame again: \(parts.map(\.count)) \(joined.map(\.count))")
        let size = try #require(Self.jpegSize(parts[0]))
        #expect(size.0 == 64, "\(size)")
        #expect(LiveView.heartbeat(idleTimeout: 2) < 2 && LiveView.heartbeat(idleTimeout: 15) == 5)
    }

    /// `name{camera="door"}` from /metrics.
    static func metric(_ f: ServedFleet, _ name: String) throws -> Double {
        let text = try TestClient.json(port: f.port, "/metrics").text
        let prefix = "\(name){camera=\"door\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return -1 }
        return Double(line.dropFirst(prefix.count)) ?? -1
    }

    /// Reads an MJPEG stream for `seconds`, then hangs up; its reply and the parts' JPEGs.
    static func read(port: Int, _ path: String, seconds: Double) throws -> (Reply, [Data]) {
        let fd = try TestClient.connect(port: port, timeout: 1)
        defer { close(fd) }
        let request = "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var raw = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let n = recv(fd, &buf, buf.count, 0)
            if n > 0 { raw.append(contentsOf: buf[0..<n]) } else if n == 0 { break }
        }
        let reply = try TestClient.parse(raw)
        // Each part: boundary, headers with Content-Length, blank line, the JPEG.
        var parts: [Data] = []
        var rest = reply.body[...]
        let marker = Data("Content-Length: ".utf8)
        while let m = rest.range(of: marker), let eol = rest[m.upperBound...].range(of: Data("\r\n\r\n".utf8)) {
            guard let n = Int(String(decoding: rest[m.upperBound..<eol.lowerBound], as: UTF8.self)),
                rest.distance(from: eol.upperBound, to: rest.endIndex) >= n
            else { break }
            let end = rest.index(eol.upperBound, offsetBy: n)
            parts.append(Data(rest[eol.upperBound..<end]))
            rest = rest[end...]
        }
        return (reply, parts)
    }

    /// A JPEG's width and height from its start-of-frame header; nil if it is not a JPEG.
    static func jpegSize(_ d: Data) -> (Int, Int)? {
        let b = [UInt8](d)
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }
}

/// `live_stream` picks the stream shown; one the graph does not have fails the camera, naming it.
@Suite struct LiveStreamTests {
    @Test func liveStreamChoosesTheStreamOrFailsTheCamera() throws {
        let f = try ServedFleet(
            """
            defaults { graph: "pass.pbtxt" }
            camera { name: "door" source: "\(handClip)" live_stream: "input_video" }
            camera { name: "attic" source: "\(handClip)" live_stream: "nowhere" }

            """)
        defer { f.stop() }
        #expect(try eventually(within: 20) { try f.framesIn("door") > 0 })
        let shot = try TestClient.json(port: f.port, "/api/cameras/door/snapshot.jpg?width=32")
        #expect(try #require(LiveViewTests.jpegSize(shot.body)) == (32, 56))
        #expect(try eventually(within: 20) { try f.camera("attic").object["state"] as? String == "failed" })
        let error = try f.camera("attic").object["last_error"] as? String ?? ""
        #expect(error.contains("live_stream 'nowhere'"))
        #expect(try TestClient.json(port: f.port, "/api/cameras/attic/snapshot.jpg").status == 503)
        // Removing a camera ends its streams: the chunked body gets its last chunk.
        let reader = try TestClient.connect(port: f.port, timeout: 10)
        defer { close(reader) }
        let request = "GET /api/cameras/door/mjpeg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(reader, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #expect(try eventually(within: 5) { try LiveViewTests.metric(f, "frameflow_camera_viewers") == 1 })
        #expect(try TestClient.request(port: f.port, "DELETE", "/api/cameras/door", headers: f.auth).status == 200)
        let raw = TestClient.readAll(reader)
        #expect(raw.suffix(5) == Data("0\r\n\r\n".utf8))
    }
}
