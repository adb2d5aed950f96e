import Foundation
import FrameFlowTestSupport

/// A response as the tests' client read it.
struct Reply {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: Any? { try? JSONSerialization.jsonObject(with: body) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
}

/// A blocking HTTP/1.1 client on a raw socket, for tests: sends one request with
/// `Connection: close`, reads to the end, and splits status, headers and body (undoing chunked
/// encoding). Raw, so tests can also send what no well-behaved client sends.
enum TestClient {
    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data(), timeout: Double = 20
    ) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let raw = try exchange(port: port, Data(head.utf8) + body, timeout: timeout)
        return try parse(raw)
    }

    static func json(port: Int, _ path: String) throws -> Reply { try request(port: port, "GET", path) }

    /// Connects, sends `bytes`, reads until the server closes (or `timeout`).
    static func exchange(port: Int, _ bytes: Data, timeout: Double = 20) throws -> Data {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return readAll(fd)
    }

    /// A connected socket with receive and send timeouts.
    static func connect(port: Int, timeout: Double = 20) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Everything until the peer closes, an error or the receive timeout.
    static func readAll(_ fd: Int32) -> Data {
        var out = Data()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    struct Malformed: Error {}

    static func parse(_ raw: Data) throws -> Reply {
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { throw Malformed() }
        let head = String(decoding: raw[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Malformed() }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(raw[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var out = Data()
            var rest = body[...]
            while let eol = rest.range(of: Data("\r\n".utf8)) {
                guard let n = Int(String(decoding: rest[..<eol.lowerBound], as: UTF8.self), radix: 16), n > 0 else { break }
                let start = eol.upperBound
                guard rest.distance(from: start, to: rest.endIndex) >= n else { break }
                let end = rest.index(start, offsetBy: n)
                out += rest[start..<end]
                rest = rest[rest.index(end, offsetBy: min(2, rest.distance(from: end, to: rest.endIndex)))...]
            }
            body = out
        }
        return Reply(status: status, headers: headers, body: body)
    }
}

/// The hand clip (180 frames of 320x568 at 30 fps), a real video.
var handClip: String { RepositoryFiles.fixture("mediapipe/hand_clip.mp4") }
