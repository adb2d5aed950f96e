import FrameFlow
import FrameFlowFleet
import FrameFlowMedia
import Foundation
import Synchronization

/// The fleet's HTTP API on an `HTTPServer`: cameras' health, adding, removing and restarting
/// cameras at run time, recent events, Kubernetes probes and Prometheus metrics.
///
/// | Route | Answer |
/// |---|---|
/// | `GET /healthz` | 200 `{"status":"ok"}` while the process serves |
/// | `GET /readyz` | 200 when every camera's graph loaded and no camera failed or stopped; else 503 naming them |
/// | `GET /metrics` | Prometheus text format 0.0.4 |
/// | `GET /api/cameras` | every camera's health (`CameraHealth`'s fields) |
/// | `GET /api/cameras/NAME` | one camera's; 404 if none |
/// | `POST /api/cameras[?save=true]` | adds a camera: a `camera { … }` block as text, or JSON (`application/json`); 201; with `--shard`, 409/421 for another shard's camera (`shardRefusal`) |
/// | `DELETE /api/cameras/NAME[?save=true]` | stops and removes it; 200 with its last health |
/// | `POST /api/cameras/NAME/restart` | stops it, reloads its graph, starts it again |
/// | `GET /api/cameras/NAME/snapshot.jpg[?width=]` | the camera's latest image as JPEG; 503 before its first frame |
/// | `GET /api/cameras/NAME/mjpeg[?fps=&width=]` | its live view, `multipart/x-mixed-replace` (`LiveView`) |
/// | `GET /api/events?camera=&label=&limit=` | the newest events of the cameras' `events` streams |
/// | `GET /api/events/ID/snapshot.jpg[?kind=annotated\|full\|crop]` | a logged event's snapshot from its camera's `snapshots` folder; 404 if none |
/// | `GET /`, `GET /ui/app.js`, `GET /ui/app.css` | the fleet's web page (`WebUI`) |
///
/// Mutating routes need `Authorization: Bearer TOKEN`: 401 without it or with another token,
/// 403 when the fleet was given no token (they are then off). Errors are `{"error": "…"}`.
/// Names in URLs only index the fleet's cameras; no URL reaches the file system.
///
/// JSON cameras have the text block's fields: strings, numbers and booleans as values, objects
/// as blocks, arrays as repeated fields (`{"name":"door","source":"door.mp4","output":[{"stream":
/// "detections","to":"null"}],"side_packet":[{"name":"min_score","value":"0.6"}]}`).
public final class FleetAPI: Sendable {
    private let fleet: FleetRunner
    private let config: FleetConfig
    private let token: String?
    private let events: EventLog?
    private let mqtt: (@Sendable () -> MQTTLinkHealth?)?
    /// Snapshots and MJPEG streams of the cameras.
    let liveView: LiveView
    /// Serializes changes to the set of cameras and to the fleet file.
    private let changes = Mutex<Void>(())

    /// The API of `fleet`, whose cameras were read from `config` (its defaults and folder
    /// serve added cameras; its file is where `save=true` writes). `token` guards the
    /// mutating routes (nil: they are refused); `events` backs `/api/events`; `mqtt` gives
    /// the broker link's counts for `/metrics`.
    public init(
        fleet: FleetRunner, config: FleetConfig, token: String?, events: EventLog? = nil, mqtt: (@Sendable () -> MQTTLinkHealth?)? = nil
    ) {
        self.fleet = fleet
        self.config = config
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.events = events
        self.mqtt = mqtt
        liveView = LiveView(fleet: fleet)
    }

    /// Adds the API's routes to `server`.
    public func install(on server: HTTPServer) {
        server.route("GET", "/healthz") { _ in .json(["status": "ok"]) }
        server.route("GET", "/readyz") { [self] _ in readiness() }
        server.route("GET", "/metrics") { [self] _ in
            .text(metrics(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        server.route("GET", "/api/cameras") { [fleet] _ in .json(fleet.health().map(CameraJSON.init)) }
        server.route("GET", "/api/cameras/{name}") { [fleet] r in
            guard let h = fleet.health(of: r.parameters["name"] ?? "") else { return Self.noCamera(r) }
            return .json(CameraJSON(h))
        }
        liveView.install(on: server)
        WebUI().install(on: server)
        server.route("POST", "/api/cameras") { [self] r in authorized(r) ?? add(r) }
        server.route("DELETE", "/api/cameras/{name}") { [self] r in authorized(r) ?? remove(r) }
        server.route("POST", "/api/cameras/{name}/restart") { [self] r in
            if let refused = authorized(r) { return refused }
            let name = r.parameters["name"] ?? ""
            guard changes.withLock({ _ in fleet.restart(name) }), let h = fleet.health(of: name) else { return Self.noCamera(r) }
            return .json(CameraJSON(h))
        }
        server.route("GET", "/api/events") { [events] r in
            guard let events else { return .json([ObjectEvent]()) }
            var limit = 100
            if let l = r.query["limit"] {
                guard let n = Int(l), (1...events.capacity).contains(n) else {
                    return .error(400, "limit must be an integer from 1 to \(events.capacity)")
                }
                limit = n
            }
            return .json(events.recent(camera: r.query["camera"], label: r.query["label"], limit: limit))
        }
        server.route("GET", "/api/events/{id}/snapshot.jpg") { [self] r in eventSnapshot(r) }
    }

    /// The snapshot JPEG of an event the log holds with `has_snapshot`, from its camera's
    /// `snapshots` folder (`?kind=annotated`, the default, `full` or `crop`). The id only
    /// selects an event of the log; its file name is `SnapshotWriter`'s for that event.
    private func eventSnapshot(_ r: HTTPRequest) -> HTTPResponse {
        let id = r.parameters["id"] ?? ""
        let kind = r.query["kind"] ?? "annotated"
        guard ["annotated", "full", "crop"].contains(kind) else { return .error(400, "kind must be annotated, full or crop") }
        guard let events, let event = events.recent(limit: events.capacity).first(where: { $0.after.id == id && $0.after.hasSnapshot }),
            let folder = fleet.cameras.first(where: { $0.name == event.after.camera })?.snapshots?.folder
        else { return .error(404, "no event '\(id)' with a snapshot") }
        let stem = (folder as NSString).appendingPathComponent(ClipRecorder.fileStem(for: id))
        let path = stem + ["annotated": "-annotated.jpg", "full": ".jpg", "crop": "-crop.jpg"][kind]!
        guard let jpeg = FileManager.default.contents(atPath: path) else { return .error(404, "the snapshot of event '\(id)' is gone") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-cache")], body: .data(jpeg))
    }

    private static func noCamera(_ r: HTTPRequest) -> HTTPResponse {
        .error(404, "no camera named '\(r.parameters["name"] ?? "")'")
    }

    /// Nil if `r` carries the fleet's token; else the refusal.
    private func authorized(_ r: HTTPRequest) -> HTTPResponse? {
        guard let token else {
            return .error(403, "changes over HTTP are off: start the fleet with FRAMEFLOW_HTTP_TOKEN or --http-token-file to allow them")
        }
        let prefix = "Bearer "
        guard let given = r.header("Authorization"), given.hasPrefix(prefix),
            Self.constantTimeEqual(Array(given.utf8.dropFirst(prefix.utf8.count)), Array(token.utf8))
        else {
            var refused = HTTPResponse.error(401, "this needs the header Authorization: Bearer TOKEN with the fleet's token")
            refused.headers.append(("WWW-Authenticate", "Bearer"))
            return refused
        }
        return nil
    }

    /// Compares every byte whatever the first difference, so the time does not tell where it is.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt64(a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            diff |= UInt64((i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0))
        }
        return diff == 0
    }

    private func readiness() -> HTTPResponse {
        var problems = fleet.graphProblems().map { "camera '\($0.camera)': \($0.error)" }
        for h in fleet.health() where h.state == .failed || h.state == .stopped {
            if !problems.contains(where: { $0.hasPrefix("camera '\(h.camera)':") }) {
                problems.append("camera '\(h.camera)': \(h.state.rawValue)" + (h.lastError.map { ": \($0)" } ?? ""))
            }
        }
        if problems.isEmpty { return .json(Readiness(ready: true, problems: [])) }
        return .json(Readiness(ready: false, problems: problems), status: 503)
    }

    private struct Readiness: Encodable {
        let ready: Bool
        let problems: [String]
    }

    /// The camera a `POST /api/cameras` body describes: the fleet file's camera block as
    /// text, or (`json`) a JSON object of the same fields written out as that text first;
    /// read with `config`'s defaults as the file's own cameras are. Errors name the body's
    /// line and column (`request:2:3: …`); the body is never run or opened as a path.
    public static func camera(fromBody body: Data, json: Bool, config: FleetConfig) throws -> (text: String, camera: CameraConfig) {
        guard let plain = String(validating: [UInt8](body), as: UTF8.self) else { throw RequestBodyError("the body is not UTF-8 text") }
        let text = json ? try CameraBlockJSON.text(fromJSON: body) : plain
        return (text, try config.camera(text: text, origin: json ? "request (JSON as a camera block)" : "request"))
    }

    private func add(_ r: HTTPRequest) -> HTTPResponse {
        let isJSON = (r.header("Content-Type") ?? "").lowercased().hasPrefix("application/json")
        let (text, camera): (String, CameraConfig)
        do { (text, camera) = try Self.camera(fromBody: r.body, json: isJSON, config: config) } catch { return .error(400, "\(error)") }
        let save = Self.flag(r.query["save"])
        return changes.withLock { _ -> HTTPResponse in
            if fleet.health(of: camera.name) != nil { return .error(409, "the fleet already has a camera named '\(camera.name)'") }
            if let refused = shardRefusal(camera.name, save: save) { return refused }
            do { try fleet.add(camera) } catch { return .error(400, "\(error)") }
            if save {
                do { try FleetFileEditor(config: config).append(text) } catch {
                    fleet.remove(camera.name)
                    return .error(500, "the camera was not added: \(error)")
                }
            }
            return .json(CameraJSON(fleet.health(of: camera.name) ?? CameraHealth(camera: camera.name, state: .connecting)), status: 201)
        }
    }

    /// With `--shard I/N` (N > 1), cameras are split by their place in the fleet file: a camera
    /// of the file that another shard runs is refused (409, it would run twice), and so is one
    /// saved to the file at a place another shard runs (421, that shard would run it after a
    /// restart, this one now). One not saved runs here only: no other shard sees it.
    private func shardRefusal(_ name: String, save: Bool) -> HTTPResponse? {
        let shard = fleet.shard
        guard shard.count > 1 else { return nil }
        // The file as it is now (cameras saved since the start count); as read at the start if it no longer reads.
        let inFile = config.file.flatMap { try? FleetConfig(contentsOfFile: $0) }?.cameras ?? config.cameras
        if let i = inFile.firstIndex(where: { $0.name == name }), !shard.contains(position: i) {
            return .error(
                409, "camera '\(name)' is camera \(i + 1) of the fleet file: shard \(i % shard.count)/\(shard.count) runs it, this is shard \(shard)")
        }
        if save && !shard.contains(position: inFile.count) {
            return .error(
                421,
                "saved, camera '\(name)' would be camera \(inFile.count + 1) of the fleet file, which shard \(inFile.count % shard.count)/\(shard.count) runs (this is shard \(shard)): add it there, or here without save=true"
            )
        }
        return nil
    }

    private func remove(_ r: HTTPRequest) -> HTTPResponse {
        let name = r.parameters["name"] ?? ""
        let save = Self.flag(r.query["save"])
        return changes.withLock { _ -> HTTPResponse in
            guard fleet.health(of: name) != nil else { return Self.noCamera(r) }
            if save {
                do { try FleetFileEditor(config: config).remove(camera: name) } catch {
                    return .error(500, "the camera was not removed: \(error)")
                }
            }
            guard let last = fleet.remove(name) else { return Self.noCamera(r) }
            return .json(CameraJSON(last))
        }
    }

    private static func flag(_ value: String?) -> Bool { value == "true" || value == "1" || value == "" }

    /// The metrics, in Prometheus' text format.
    func metrics() -> String {
        let healths = fleet.health()
        var p = PrometheusText()
        let per = { (f: (CameraHealth) -> Double) in healths.map { ([("camera", $0.camera)], f($0)) } }
        p.family("frameflow_camera_frames_in_total", "counter", "Frames read from the camera's source.", per { Double($0.framesIn) })
        p.family(
            "frameflow_camera_frames_out_total", "counter", "Packets on the camera graph's first output.", per { Double($0.framesOut) })
        p.family(
            "frameflow_camera_frames_dropped_total", "counter", "Frames dropped by flow limiting or queue policies.",
            per { Double($0.dropped) })
        p.family("frameflow_camera_reconnects_total", "counter", "Times the source was opened again.", per { Double($0.reconnects) })
        p.family("frameflow_camera_fps_in", "gauge", "Frames read per second over the last health interval.", per { $0.fpsIn })
        p.family("frameflow_camera_fps_out", "gauge", "Frames out per second over the last health interval.", per { $0.fpsOut })
        p.family(
            "frameflow_camera_state", "gauge", "1 for the camera's current state, 0 for the others.",
            healths.flatMap { h in CameraHealth.State.allCases.map { ([("camera", h.camera), ("state", $0.rawValue)], h.state == $0 ? 1 : 0) } })
        let viewers = liveView.viewers()
        let encoded = liveView.framesEncoded()
        p.family("frameflow_camera_viewers", "gauge", "Clients watching the camera's MJPEG stream.", per { Double(viewers[$0.camera] ?? 0) })
        p.family(
            "frameflow_camera_live_frames_encoded_total", "counter", "Frames encoded to JPEG for the camera's MJPEG streams.",
            per { Double(encoded[$0.camera] ?? 0) })
        let nodes = fleet.nodeStatistics().flatMap { c in c.nodes.map { (c.camera, $0) } }
        p.family(
            "frameflow_node_busy_seconds_total", "counter", "Seconds each node of the camera's current graph run spent processing.",
            nodes.map { ([("camera", $0.0), ("node", $0.1.name)], $0.1.busySeconds) })
        p.family(
            "frameflow_node_calls_total", "counter", "Process calls of each node in the camera's current graph run.",
            nodes.map { ([("camera", $0.0), ("node", $0.1.name)], Double($0.1.calls)) })
        p.family(
            "frameflow_node_max_queue_depth", "gauge", "The deepest input queue of each node in the current run.",
            nodes.map { ([("camera", $0.0), ("node", $0.1.name)], Double($0.1.maxQueueDepth)) })
        p.histogram(
            "frameflow_camera_inference_seconds",
            "Duration of each model run (nodes whose calculator runs a model) in the camera's current graph run.",
            nodes.compactMap { c, n in n.latency.map { ([("camera", c), ("node", n.name)], $0) } })
        p.family("frameflow_worker_threads", "gauge", "Threads of the pool the graphs run on.", [([], Double(fleet.workerPool.threadCount))])
        if let cpu = fleet.workerPool.workerCPUSeconds() {
            p.family(
                "frameflow_worker_cpu_seconds_total", "counter",
                "CPU seconds the pool's worker threads used (running nodes, and short spins before sleeping).", [([], cpu)])
        }
        if let m = mqtt?() {
            p.family("frameflow_mqtt_connected", "gauge", "1 while connected to the broker.", [([], m.connected ? 1 : 0)])
            p.family("frameflow_mqtt_queued", "gauge", "Messages waiting or not yet acknowledged.", [([], Double(m.queued))])
            p.family("frameflow_mqtt_delivered_total", "counter", "Messages the broker took.", [([], Double(m.delivered))])
            p.family("frameflow_mqtt_dropped_total", "counter", "Messages dropped because the queue was full.", [([], Double(m.dropped))])
            p.family("frameflow_mqtt_lost_total", "counter", "QoS 0 messages lost with a broken connection.", [([], Double(m.lost))])
        }
        if let rss = Self.residentBytes() {
            p.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [([], rss)])
        }
        return p.text
    }

    /// The process's resident memory (the second field of /proc/self/statm, in pages).
    static func residentBytes() -> Double? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/statm") else { return nil }
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// A camera's health as the API returns it (snake_case, as the health lines).
struct CameraJSON: Codable, Equatable {
    var name: String
    var state: String
    var fpsIn: Double
    var fpsOut: Double
    var framesIn: Int
    var framesOut: Int
    var dropped: Int
    var reconnects: Int
    var lastError: String?

    init(_ h: CameraHealth) {
        name = h.camera
        state = h.state.rawValue
        fpsIn = h.fpsIn.isFinite ? h.fpsIn : 0
        fpsOut = h.fpsOut.isFinite ? h.fpsOut : 0
        framesIn = h.framesIn
        framesOut = h.framesOut
        dropped = h.dropped
        reconnects = h.reconnects
        lastError = h.lastError
    }

    enum CodingKeys: String, CodingKey {
        case name, state, dropped, reconnects
        case fpsIn = "fps_in"
        case fpsOut = "fps_out"
        case framesIn = "frames_in"
        case framesOut = "frames_out"
        case lastError = "last_error"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(state, forKey: .state)
        try c.encode(fpsIn, forKey: .fpsIn)
        try c.encode(fpsOut, forKey: .fpsOut)
        try c.encode(framesIn, forKey: .framesIn)
        try c.encode(framesOut, forKey: .framesOut)
        try c.encode(dropped, forKey: .dropped)
        try c.encode(reconnects, forKey: .reconnects)
        try c.encode(lastError, forKey: .lastError)  // null when none, not left out
    }
}

/// A request body FrameFlow cannot read at all (not UTF-8).
struct RequestBodyError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
