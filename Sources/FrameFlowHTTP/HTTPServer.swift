import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: routes by method and path pattern, with limits on
/// bodies, headers, connections, idle time and each client's request rate.
///
/// libmicrohttpd parses every request; FrameFlow only reads the method, path, query, headers
/// and body through its API. The server runs a thread per connection (a slow client, or a
/// stream such as MJPEG, holds only its own thread), at most `maxConnections` of them.
///
/// ```swift
/// let server = HTTPServer(options: .init())          // 127.0.0.1, a free port
/// server.route("GET", "/api/cameras/{name}") { request in
///     .json(["name": request.parameters["name"] ?? ""])
/// }
/// try server.start()
/// print(server.port)      // the bound port
/// server.stop()
/// ```
///
/// Answers of its own: 404 (no route has the path), 405 (a route has the path but not the
/// method), 413 (a body over `maxBodyBytes`), 429 (a client over its request rate), 431 or a
/// closed connection from libmicrohttpd (headers over `maxHeaderBytes`), all as
/// `{"error": "…"}` but the last. No CORS headers are sent.
public final class HTTPServer: @unchecked Sendable {
    /// How the server listens and what it accepts.
    public struct Options: Sendable {
        /// Where it listens; 127.0.0.1 unless told otherwise; port 0: a free port.
        public var address = HTTPAddress(host: "127.0.0.1", port: 0)
        /// The largest request body, in bytes (1 to 64 MiB); larger ones get 413.
        public var maxBodyBytes = 64 * 1024
        /// The memory each connection may use for its request line and headers (4 KiB to
        /// 1 MiB; libmicrohttpd's connection memory limit); larger headers are refused.
        public var maxHeaderBytes = 32 * 1024
        /// A connection idle this long is closed (1 to 3600 s; against slowloris).
        public var idleTimeoutSeconds = 15
        /// Connections open at once, all clients together (1 to 10000).
        public var maxConnections = 64
        /// Connections open at once from one IP address (1 to `maxConnections`).
        public var maxConnectionsPerClient = 32
        /// Requests each client (IP address) may make per second, on average (0.1 to 1e6).
        public var requestsPerSecond = 50.0
        /// Requests a client may make at once after being idle (1 to 1e6).
        public var burst = 100.0
        /// The default settings.
        public init() {}
    }

    /// A route's handler: called on the connection's thread, so it may block briefly.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private struct Route {
        let method: String
        let segments: [Segment]
        let handler: Handler
    }
    private enum Segment: Equatable {
        case literal(String)
        case parameter(String)
    }

    /// The options it was made with.
    public let options: Options
    private let routes = Mutex<[Route]>([])
    /// The running daemon's address (0: none); an integer because pointers are not `Sendable`.
    private let daemon = Mutex<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let limiter: RateLimiter
    private let boundPort = Atomic<Int>(0)

    /// A server with `options`, not yet listening (add routes, then `start()`).
    public init(options: Options = Options()) {
        self.options = options
        limiter = RateLimiter(rate: options.requestsPerSecond, burst: options.burst)
    }

    deinit { stop() }

    /// Answers `method` requests whose path matches `pattern`: literal segments and `{name}`
    /// segments, which match any one non-empty segment and reach the handler as
    /// `request.parameters[name]` (`/api/cameras/{name}/restart`). Routes are tried in the
    /// order added.
    public func route(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = Self.segments(pattern).map { s -> Segment in
            s.hasPrefix("{") && s.hasSuffix("}") && s.count > 2 ? .parameter(String(s.dropFirst().dropLast())) : .literal(String(s))
        }
        routes.withLock { $0.append(Route(method: method.uppercased(), segments: segments, handler: handler)) }
    }

    /// The port it listens on (the one chosen when `options.address.port` is 0); 0 before `start()`.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// True once `stop()` was called.
    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Starts listening; throws `HTTPServerError` naming a bad option, or the address when it
    /// cannot be bound.
    public func start() throws {
        try Self.check(options)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(options.address.port).bigEndian)
        guard inet_pton(AF_INET, options.address.host, &addr.sin_addr) == 1 else {
            throw HTTPServerError("http: '\(options.address.host)' is not an IPv4 address")
        }
        let flags =
            UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_AUTO.rawValue)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = withUnsafeMutablePointer(to: &addr) { a in
            var items: [MHD_OptionItem] = [
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(a)),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: options.maxHeaderBytes, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: options.maxConnections, ptr_value: nil),
                MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: options.maxConnectionsPerClient, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: options.idleTimeoutSeconds, ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: me),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return items.withUnsafeMutableBufferPointer { frameflow_mhd_start(flags, 0, accessHandler, me, $0.baseAddress) }
        }
        guard let started else {
            throw HTTPServerError("http: cannot listen on \(options.address) (\(String(cString: strerror(errno))))")
        }
        daemon.withLock { $0 = Int(bitPattern: started) }
        boundPort.store(Int(frameflow_mhd_bound_port(started)), ordering: .relaxed)
    }

    /// Stops listening, ends every connection (streams are told by `isStopping`) and waits for
    /// their threads. Safe to call again.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        let d = daemon.withLock { d -> Int in
            defer { d = 0 }
            return d
        }
        if let p = OpaquePointer(bitPattern: d) { MHD_stop_daemon(p) }
    }

    private static func check(_ o: Options) throws {
        func need(_ ok: Bool, _ what: String) throws { if !ok { throw HTTPServerError("http: \(what)") } }
        try need((1...64 << 20).contains(o.maxBodyBytes), "max body bytes must be 1 to 67108864 (is \(o.maxBodyBytes))")
        try need((4096...1 << 20).contains(o.maxHeaderBytes), "max header bytes must be 4096 to 1048576 (is \(o.maxHeaderBytes))")
        try need((1...3600).contains(o.idleTimeoutSeconds), "idle timeout must be 1 to 3600 seconds (is \(o.idleTimeoutSeconds))")
        try need((1...10000).contains(o.maxConnections), "max connections must be 1 to 10000 (is \(o.maxConnections))")
        try need(
            (1...o.maxConnections).contains(o.maxConnectionsPerClient),
            "max connections per client must be 1 to max connections (is \(o.maxConnectionsPerClient))")
        try need(
            o.requestsPerSecond.isFinite && (0.1...1e6).contains(o.requestsPerSecond),
            "requests per second must be 0.1 to 1000000 (is \(o.requestsPerSecond))")
        try need(o.burst.isFinite && (1...1e6).contains(o.burst), "burst must be 1 to 1000000 (is \(o.burst))")
    }

    // MARK: - Serving (called by libmicrohttpd's connection threads)

    /// The route for `method` and `path`: its handler and parameters, or the error response.
    func resolve(method: String, path: String) -> (Handler, [String: String])? {
        let parts = Self.segments(path)
        return routes.withLock { routes in
            for r in routes where r.method == method {
                if let p = Self.match(r.segments, parts) { return (r.handler, p) }
            }
            return nil
        }
    }

    /// Whether a route of any method has `path` (404 or 405).
    func anyRoute(path: String) -> [String] {
        let parts = Self.segments(path)
        return routes.withLock { $0.filter { Self.match($0.segments, parts) != nil }.map(\.method) }
    }

    /// The segments of a path after its leading "/", empty ones kept: `/a//b/` is
    /// ["a", "", "b", ""], which no route of non-empty segments matches.
    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    private static func match(_ segments: [Segment], _ parts: [String]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var found: [String: String] = [:]
        for (s, p) in zip(segments, parts) {
            switch s {
            case .literal(let l): if l != p { return nil }
            case .parameter(let n):
                guard !p.isEmpty else { return nil }
                found[n] = p
            }
        }
        return found
    }

    /// The response to a complete request.
    func respond(to request: HTTPRequest, bodyTooLarge: Bool) -> HTTPResponse {
        if bodyTooLarge { return .error(413, "the request body is larger than \(options.maxBodyBytes) bytes") }
        guard let found = resolve(method: request.method, path: request.path) else {
            let methods = anyRoute(path: request.path)
            if methods.isEmpty { return .error(404, "no such resource") }
            var r = HTTPResponse.error(405, "method \(request.method) is not allowed here")
            r.headers.append(("Allow", methods.joined(separator: ", ")))
            return r
        }
        var r = request
        r.parameters = found.1
        return found.0(r)
    }

    /// Whether the client at `address` may make another request now.
    func admit(_ address: String) -> Bool { limiter.take(address) }
}

/// Why the server cannot start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, naming the option or address.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Where a server listens: an IPv4 address and a port.
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    /// The IPv4 address (`127.0.0.1`, `0.0.0.0` for every interface).
    public var host: String
    /// The port; 0: a free one.
    public var port: Int

    /// `host` and `port` as given.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT` (`127.0.0.1:8080`, `0.0.0.0:0`; `localhost` is 127.0.0.1); throws
    /// `HTTPServerError` naming the text otherwise.
    public init(parsing text: String) throws {
        let bad = HTTPServerError("'\(text)' is not an address HOST:PORT (an IPv4 address and a port 0 to 65535, e.g. 127.0.0.1:8080)")
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var host = String(text[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), portText.count <= 5,
            let port = Int(portText), (0...65535).contains(port)
        else { throw bad }
        var a = in_addr()
        guard host.allSatisfy({ $0.isASCII }), inet_pton(AF_INET, host, &a) == 1 else { throw bad }
        self.init(host: host, port: port)
    }

    public var description: String { "\(host):\(port)" }
}

/// A token bucket per client address: `rate` tokens a second up to `burst`; a request takes one.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: UInt64
    }
    private let rate: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept at most; full ones are forgotten first when there are more.
    private static let maxClients = 4096

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    func take(_ client: String) -> Bool { take(client, at: DispatchTime.now().uptimeNanoseconds) }

    /// `take` at `now` (nanoseconds of uptime). Clock readings of concurrent requests reach
    /// the lock in any order: one older than a bucket's last adds nothing (not a negative
    /// interval, which overflowed).
    func take(_ client: String, at now: UInt64) -> Bool {
        func since(_ t: UInt64) -> Double { now > t ? Double(now - t) / 1e9 : 0 }
        return buckets.withLock { all in
            var b = all[client] ?? Bucket(tokens: burst, at: now)
            b.tokens = min(burst, b.tokens + since(b.at) * rate)
            b.at = max(b.at, now)
            let ok = b.tokens >= 1
            if ok { b.tokens -= 1 }
            all[client] = b
            if all.count > Self.maxClients {
                // Forget the clients whose bucket has refilled: they lose nothing.
                all = all.filter { min(burst, $0.value.tokens + since($0.value.at) * rate) < burst }
                if all.count > Self.maxClients { all = [client: b] }
            }
            return ok
        }
    }
}

// MARK: - libmicrohttpd callbacks

/// What one request has collected between libmicrohttpd's calls: its body so far.
private final class RequestState {
    var body = Data()
    var tooLarge = false
}

/// The state of a streamed body: the producer and the bytes it made that did not fit yet.
private final class StreamState {
    let stream: HTTPStream
    let control: HTTPStreamControl
    var pending = Data()
    init(_ stream: HTTPStream, server: HTTPServer) {
        self.stream = stream
        control = HTTPStreamControl(server: server)
    }
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let raw = state.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(raw).release()
    state.pointee = nil
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
    guard let cls, let connection, let state, let uploadSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let current = state.pointee else {
        // The headers are in: refuse at once what will be refused anyway (rate, declared size).
        let address = clientAddress(connection)
        if !server.admit(address) {
            return queue(.error(429, "too many requests from \(address); slow down"), on: connection, server: server)
        }
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let n = UInt64(String(cString: length)), n > UInt64(server.options.maxBodyBytes)
        {
            return queue(.error(413, "the request body is larger than \(server.options.maxBodyBytes) bytes"), on: connection, server: server)
        }
        state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
        return .YES
    }
    let request = Unmanaged<RequestState>.fromOpaque(current).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if let uploadData, !request.tooLarge {
            if request.body.count + uploadSize.pointee > server.options.maxBodyBytes {
                request.tooLarge = true
                request.body = Data()
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                    request.body.append($0, count: uploadSize.pointee)
                }
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    let path = url.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? "/"
    let full = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "", path: path, query: values(connection, .GET_ARGUMENT_KIND),
        headers: values(connection, .HEADER_KIND), body: request.body, remoteAddress: clientAddress(connection))
    return queue(server.respond(to: full, bodyTooLarge: request.tooLarge), on: connection, server: server)
}

/// The key/value pairs of one kind (headers, query arguments), decoded by libmicrohttpd.
private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    final class Box { var pairs: [String: String] = [:] }
    let box = Box()
    let lowercase = kind == .HEADER_KIND
    withExtendedLifetime(box) {
        _ = MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let b = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
                let k = String(decoding: UnsafeRawBufferPointer(start: key, count: strlen(key)), as: UTF8.self)
                let v = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
                b.pairs[k] = v
                return .YES
            }, Unmanaged.passUnretained(box).toOpaque())
    }
    if lowercase { return Dictionary(box.pairs.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, b in b }) }
    return box.pairs
}

/// The client's IP address as text ("?" if unknown).
private func clientAddress(_ connection: OpaquePointer) -> String {
    guard let sa = frameflow_mhd_client_address(connection) else { return "?" }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    switch Int32(sa.pointee.sa_family) {
    case AF_INET:
        var a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
    case AF_INET6:
        var a = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
    default: return "?"
    }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Hands `response` to libmicrohttpd for `connection`.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, server: HTTPServer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .data(let data):
        made = data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) }
            return MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: base), .RESPMEM_MUST_COPY)
        }
    case .stream(let stream):
        let state = Unmanaged.passRetained(StreamState(stream, server: server)).toOpaque()
        made = MHD_create_response_from_callback(
            UInt64.max, 64 * 1024,
            { cls, _, buffer, max in
                guard let cls, let buffer else { return -2 }
                let s = Unmanaged<StreamState>.fromOpaque(cls).takeUnretainedValue()
                if s.pending.isEmpty {
                    if s.control.isStopping { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
                    guard let chunk = s.stream.next(s.control) else { return -1 }
                    s.pending = chunk
                    if chunk.isEmpty { return 0 }
                }
                let n = min(max, s.pending.count)
                s.pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: n) }
                s.pending.removeFirst(n)
                return n
            }, state,
            { cls in
                guard let cls else { return }
                let s = Unmanaged<StreamState>.fromOpaque(cls).takeRetainedValue()
                s.stream.onClose()
            })
        if made == nil { Unmanaged<StreamState>.fromOpaque(state).release() }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers where !name.contains(where: { $0 == "\r" || $0 == "\n" }) {
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else { continue }
        _ = MHD_add_response_header(made, name, value)
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}
