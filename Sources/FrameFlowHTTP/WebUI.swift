import Foundation

/// The fleet's web page: a grid of the cameras' live views and health, a page per camera with
/// its recent events, and forms to add, restart and remove cameras, all through `FleetAPI`'s
/// routes.
///
/// | Route | Answer |
/// |---|---|
/// | `GET /` | the page (`Web/index.html`) |
/// | `GET /ui/app.css`, `GET /ui/app.js` | its style and script |
///
/// The files live in `Sources/FrameFlowHTTP/Web/` and are compiled into the library by
/// SwiftPM (`resources: [.embedInCode("Web")]` generates `PackageResources`; a copied binary
/// needs nothing beside it): the server reads nothing from the file system for them, and any
/// other `/ui/…` path is 404. A new file in Web/ gets a line in `files`;
/// `WebUITests.everyFileIsEmbedded` fails until it has one. Answers carry an `ETag` (a request
/// with a matching `If-None-Match` gets 304), `Cache-Control: no-cache` (the browser asks again
/// on each load, so a new binary's page shows at once), and a
/// Content-Security-Policy that lets the page load only from this server.
struct WebUI: Sendable {
    /// One file ready to serve.
    struct Asset: Sendable {
        let contentType: String
        let body: Data
        let etag: String
    }

    /// The served files by URL path.
    let assets: [String: Asset]

    /// The files of Web/: (URL path, file name, Content-Type, bytes).
    static let files: [(path: String, file: String, contentType: String, bytes: [UInt8])] = [
        ("/", "index.html", "text/html; charset=utf-8", PackageResources.index_html),
        ("/ui/app.css", "app.css", "text/css; charset=utf-8", PackageResources.app_css),
        ("/ui/app.js", "app.js", "text/javascript; charset=utf-8", PackageResources.app_js),
    ]

    init() {
        assets = Dictionary(
            uniqueKeysWithValues: Self.files.map { f in
                let body = Data(f.bytes)
                return (f.path, Asset(contentType: f.contentType, body: body, etag: "\"" + Self.fnv1a(body) + "\""))
            })
    }

    /// Headers of every file besides its type and tag.
    static let commonHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-cache"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
    ]

    /// Adds `GET /` and `GET /ui/{file}` to `server`.
    func install(on server: HTTPServer) {
        server.route("GET", "/") { [self] r in answer(r, path: "/") }
        server.route("GET", "/ui/{file}") { [self] r in answer(r, path: "/ui/" + (r.parameters["file"] ?? "")) }
    }

    /// The file at `path` (200, or 304 when the client has it), or 404.
    func answer(_ r: HTTPRequest, path: String) -> HTTPResponse {
        guard let asset = assets[path] else { return .error(404, "no such file: '\(path)'") }
        var headers = Self.commonHeaders + [("ETag", asset.etag)]
        let known = (r.header("If-None-Match") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if known.contains(asset.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.append(("Content-Type", asset.contentType))
        return HTTPResponse(status: 200, headers: headers, body: .data(asset.body))
    }

    /// 64-bit FNV-1a of `data` in hex: the files' tags (they change when a file does).
    static func fnv1a(_ data: Data) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return String(h, radix: 16)
    }
}
