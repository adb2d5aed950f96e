import Foundation
import FrameFlowTestSupport
import Synchronization
import Testing

@testable import FrameFlowHTTP

/// The server alone: routing, limits and hostile clients, on loopback with a free port.
@Suite struct HTTPServerTests {
    /// A started server with an echo route, a streaming route and `options`' limits.
    static func server(_ configure: (inout HTTPServer.Options) -> Void = { _ in }) throws -> HTTPServer {
        var o = HTTPServer.Options()
        configure(&o)
        let s = HTTPServer(options: o)
        s.route("GET", "/things/{name}/parts/{part}") { r in
            .json(["name": r.parameters["name"] ?? "", "part": r.parameters["part"] ?? "", "q": r.query["q"] ?? "-", "h": r.header("X-Test") ?? "-"])
        }
        s.route("POST", "/echo") { r in HTTPResponse(status: 200, body: .data(r.body)) }
        try s.start()
        return s
    }

    @Test func routesGiveParametersQueryAndHeadersAsLibmicrohttpdDecodedThem() throws {
        let s = try Self.server()
        defer { s.stop() }
        #expect(s.port > 0)
        let r = try TestClient.request(port: s.port, "GET", "/things/caf%C3%A9/parts/x%20y?q=a%26b", headers: ["X-Test": "yes"])
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "application/json")
        #expect(r.object["name"] as? String == "café")
        #expect(r.object["part"] as? String == "x y")
        #expect(r.object["q"] as? String == "a&b")
        #expect(r.object["h"] as? String == "yes")
        #expect(r.headers["access-control-allow-origin"] == nil)  // CORS off
        let body = Data((0..<5000).map { UInt8($0 % 251) })
        let echo = try TestClient.request(port: s.port, "POST", "/echo", body: body)
        #expect(echo.status == 200 && echo.body == body)
    }

    @Test func unknownPathsAre404AndOtherMethods405WithAllow() throws {
        let s = try Self.server()
        defer { s.stop() }
        let missing = try TestClient.request(port: s.port, "GET", "/things/a")
        #expect(missing.status == 404)
        #expect(missing.object["error"] is String)
        let traversal = try TestClient.request(port: s.port, "GET", "/things/..%2F..%2Fetc%2Fpasswd/parts/x")
        #expect(traversal.status == 404)
        #expect(!traversal.text.contains("root:"))
        #expect(try TestClient.request(port: s.port, "GET", "/things/a/parts/b/").status == 404)
        #expect(try TestClient.request(port: s.port, "GET", "/things//parts/b").status == 404)
        let wrong = try TestClient.request(port: s.port, "DELETE", "/echo")
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "POST")
    }

    /// A body over the limit is 413 whether its length is declared or it comes chunked.
    @Test func oversizedBodiesAre413() throws {
        let s = try Self.server { $0.maxBodyBytes = 1000 }
        defer { s.stop() }
        let declared = try TestClient.request(port: s.port, "POST", "/echo", body: Data(count: 1001))
        #expect(declared.status == 413)
        #expect((declared.object["error"] as? String)?.contains("1000 bytes") == true)
        let fits = try TestClient.request(port: s.port, "POST", "/echo", body: Data(count: 1000))
        #expect(fits.status == 200 && fits.body.count == 1000)
        var chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<3 { chunked += "1f4\r\n" + String(repeating: "a", count: 500) + "\r\n" }
        chunked += "0\r\n\r\n"
        let r = try TestClient.parse(try TestClient.exchange(port: s.port, Data(chunked.utf8)))
        #expect(r.status == 413)
    }

    /// 1 MB of headers is refused by libmicrohttpd (431 or a closed connection), and the
    /// server goes on serving.
    @Test func hugeHeadersAreRefused() throws {
        let s = try Self.server()
        defer { s.stop() }
        let request = "GET /things/a/parts/b HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n"
        let raw = try TestClient.exchange(port: s.port, Data(request.utf8), timeout: 10)
        if !raw.isEmpty { #expect(try TestClient.parse(raw).status == 431) }
        #expect(try TestClient.request(port: s.port, "GET", "/things/a/parts/b").status == 200)
    }

    /// A client that sends half its headers and then nothing is cut off after the idle
    /// timeout, while others are served meanwhile.
    @Test func slowlorisIsCutOffAndOthersAreServed() throws {
        let s = try Self.server {
            $0.idleTimeoutSeconds = 1
            $0.maxConnections = 8
            $0.maxConnectionsPerClient = 8
        }
        defer { s.stop() }
        var lazy: [Int32] = []
        for _ in 0..<4 {
            let fd = try TestClient.connect(port: s.port, timeout: 10)
            _ = "GET /things/a/parts/b HTTP/1.1\r\nHost: x\r\n".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            lazy.append(fd)
        }
        defer { lazy.forEach { close($0) } }
        #expect(try TestClient.request(port: s.port, "GET", "/things/a/parts/b").status == 200)
        let start = Date()
        let got = TestClient.readAll(lazy[0])  // the server closes it: EOF, no response
        #expect(got.isEmpty)
        #expect(Date().timeIntervalSince(start) < 8)
    }

    @Test func clientsOverTheirRateGet429() throws {
        let s = try Self.server {
            $0.requestsPerSecond = 0.5
            $0.burst = 3
        }
        defer { s.stop() }
        let statuses = try (0..<5).map { _ in try TestClient.request(port: s.port, "GET", "/things/a/parts/b").status }
        #expect(statuses == [200, 200, 200, 429, 429])
        #expect(RateLimiter(rate: 1, burst: 1).take("a"))
    }

    /// Requests from one address read the clock before they take the limiter's lock, so a
    /// bucket can see an older time after a newer one: that adds no token (and does not trap,
    /// as the unsigned interval did under frameflow-bench http's load).
    @Test func anOlderClockReadingAddsNoToken() {
        let limiter = RateLimiter(rate: 1, burst: 2)
        let t = UInt64(10_000_000_000)
        #expect(limiter.take("a", at: t))
        #expect(limiter.take("a", at: t - 5_000_000_000))  // older: the second token of the burst
        #expect(!limiter.take("a", at: t - 1_000_000_000))  // older still: nothing refilled
        #expect(limiter.take("a", at: t + 1_000_000_000))  // a second after the newest: one token
        #expect(!limiter.take("a", at: t + 1_000_000_000))
    }

    /// A streamed body arrives in order, and `onClose` runs once the connection ends.
    @Test func streamsDeliverChunksAndCloseOnce() throws {
        let s = try Self.server()
        defer { s.stop() }
        let closed = Atomic<Int>(0)
        s.route("GET", "/count") { _ in
            let n = Atomic<Int>(0)
            let stream = HTTPStream(
                next: { _ in
                    let i = n.add(1, ordering: .relaxed).newValue
                    return i <= 5 ? Data("part \(i)\n".utf8) : nil
                }, onClose: { closed.add(1, ordering: .relaxed) })
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .stream(stream))
        }
        let r = try TestClient.request(port: s.port, "GET", "/count")
        #expect(r.status == 200)
        #expect(r.text == (1...5).map { "part \($0)\n" }.joined())
        #expect(eventually(within: 5) { closed.load(ordering: .relaxed) == 1 })
    }

    @Test func addressesAndOptionsAreChecked() throws {
        #expect(try HTTPAddress(parsing: "127.0.0.1:8080") == HTTPAddress(host: "127.0.0.1", port: 8080))
        #expect(try HTTPAddress(parsing: "localhost:0") == HTTPAddress(host: "127.0.0.1", port: 0))
        #expect(try HTTPAddress(parsing: "0.0.0.0:65535").port == 65535)
        for bad in ["", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "300.0.0.1:80", "host:80", "127.0.0.1:8o", ":80"] {
            #expect(throws: HTTPServerError.self, "\(bad)") { try HTTPAddress(parsing: bad) }
        }
        let e = #expect(throws: HTTPServerError.self) { try HTTPAddress(parsing: "nowhere:1") }
        #expect(e?.description.contains("'nowhere:1'") == true)
        for configure: (inout HTTPServer.Options) -> Void in [
            { $0.maxBodyBytes = 0 }, { $0.maxHeaderBytes = 1 << 30 }, { $0.idleTimeoutSeconds = 0 }, { $0.maxConnections = -1 },
            { $0.requestsPerSecond = .nan }, { $0.requestsPerSecond = .infinity }, { $0.burst = 1e308 }, { $0.maxConnectionsPerClient = 0 },
        ] {
            var o = HTTPServer.Options()
            configure(&o)
            #expect(throws: HTTPServerError.self) { try HTTPServer(options: o).start() }
        }
    }

    /// Two servers cannot share a port: the second names the address.
    @Test func aTakenPortIsAClearError() throws {
        let s = try Self.server()
        defer { s.stop() }
        var o = HTTPServer.Options()
        o.address = HTTPAddress(host: "127.0.0.1", port: s.port)
        let e = #expect(throws: HTTPServerError.self) { try HTTPServer(options: o).start() }
        #expect(e?.description.contains("127.0.0.1:\(s.port)") == true)
    }
}
