import Foundation

/// One HTTP request as libmicrohttpd parsed it: FrameFlow reads its parts through the
/// library's API and never parses HTTP itself.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, … as the client sent it.
    public var method: String
    /// The path without the query, percent-decoded by libmicrohttpd.
    public var path: String
    /// The values of the route pattern's `{name}` segments.
    public var parameters: [String: String]
    /// The query's arguments, decoded (an argument without `=` has the value "").
    public var query: [String: String]
    /// The request's headers, names lowercased (a repeated header keeps its last value).
    public var headers: [String: String]
    /// The body (at most the server's `maxBodyBytes`).
    public var body: Data
    /// The client's IP address, as text.
    public var remoteAddress: String

    /// A request, for handlers' tests.
    public init(
        method: String, path: String, parameters: [String: String] = [:], query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.parameters = parameters
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, b in b })
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The header `name` (any case), if sent.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What a route answers: a status, headers and a body given at once or produced over time.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers besides those libmicrohttpd adds (Date, Content-Length or chunked encoding).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// A body as bytes, or a stream of chunks.
    public enum Body: Sendable {
        /// The whole body.
        case data(Data)
        /// A body produced over time (MJPEG's `multipart/x-mixed-replace`, …): see `HTTPStream`.
        case stream(HTTPStream)
    }

    /// A response of `status` with `body`.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .data(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as JSON (snake_case keys come from the type's `CodingKeys`).
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{\"error\":\"the response could not be encoded\"}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: .data(data))
    }

    /// `{"error": message}` with `status`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }

    /// Plain text (UTF-8) with `contentType`.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .data(Data(text.utf8)))
    }
}

/// A response body produced over time, on the connection's own thread (the server runs a
/// thread per connection, so a slow or stalled client blocks only itself).
///
/// `next` is called whenever the connection can take more: it returns the next bytes (any
/// size), empty `Data` for "nothing yet, ask again" (after waiting a little itself, so as not
/// to spin), or nil to end the body. It must return within a second or so and end (nil) once
/// `control.isStopping` is true, or the server's `stop()` waits for it. `onClose` runs once
/// when the connection ends, however it ends (the client left, the body ended, the server
/// stopped): where a producer stops encoding for that watcher.
public struct HTTPStream: Sendable {
    /// Makes the next chunk; see the type's description.
    public var next: @Sendable (_ control: HTTPStreamControl) -> Data?
    /// Runs once when the connection ends.
    public var onClose: @Sendable () -> Void

    /// A stream of the chunks `next` makes.
    public init(next: @escaping @Sendable (_ control: HTTPStreamControl) -> Data?, onClose: @escaping @Sendable () -> Void = {}) {
        self.next = next
        self.onClose = onClose
    }
}

/// What a stream's producer can ask of its server.
public struct HTTPStreamControl: Sendable {
    let server: HTTPServer?
    /// True once the server is stopping: the producer should end the body (return nil).
    public var isStopping: Bool { server?.isStopping ?? false }
    /// The server's idle timeout: a stream that sends nothing for this long is closed, so a
    /// producer with nothing new sends something sooner.
    public var idleTimeoutSeconds: Int { server?.options.idleTimeoutSeconds ?? HTTPServer.Options().idleTimeoutSeconds }
}
