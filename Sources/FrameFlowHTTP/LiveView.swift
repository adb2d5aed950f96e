import FrameFlow
import FrameFlowFleet
import FrameFlowMedia
import Foundation
import Synchronization

/// The cameras' live view: JPEG snapshots and MJPEG streams of each camera's latest image
/// (`FleetRunner.frameTap(of:)`).
///
/// A stream's frames come from a feed shared by every viewer of the same camera, width and
/// rate: one thread and one JPEG encoder per feed, which encodes a frame once per tick (only
/// when the camera has a new one) and hands the bytes to each viewer's queue. A feed runs only
/// while it has viewers; nothing is encoded for a camera nobody watches. A viewer's queue
/// holds `queueLimit` frames: a viewer that stops reading loses its oldest frames, and the
/// others go on.
///
/// A camera that delivers no new frame (paused, stalled, in backoff) would leave its streams
/// silent until the server's idle timeout closes them: a stream then sends its last part
/// again every `heartbeat(idleTimeout:)` seconds (a browser redraws the same image), and a
/// viewer joining a feed gets the feed's last frame at once.
final class LiveView: Sendable {
    /// The MIME boundary between the parts of a stream.
    static let boundary = "frameflow-frame"
    /// Frames a viewer's queue holds before the oldest is dropped.
    static let queueLimit = 2
    /// The widths a request may ask for.
    static let widths = 1...4096
    /// The rates a stream may ask for (frames per second), and the default.
    static let rates = 0.1...30.0
    static let defaultRate = 5.0

    private let fleet: FleetRunner
    private let state = Mutex(State())

    private struct State {
        var feeds: [FeedKey: Feed] = [:]
        /// Frames the feeds have encoded, per camera (for metrics and tests).
        var encoded: [String: Int] = [:]
    }

    /// What viewers share a feed by.
    private struct FeedKey: Hashable {
        var camera: String
        var width: Int?
        var fps: Double
    }

    /// One feed's viewers.
    private final class Feed: Sendable {
        let viewers = Mutex<[ObjectIdentifier: Viewer]>([:])
        /// The last frame encoded, for viewers that join.
        let last = Mutex<Data?>(nil)
    }

    /// Seconds without a new frame after which a stream sends its last part again: a third
    /// of the server's idle timeout, 0.5 to 5 s.
    static func heartbeat(idleTimeout: Int) -> Double { min(5, max(0.5, Double(idleTimeout) / 3)) }

    /// A stream's last part and when it was sent (used by the connection's thread only).
    private final class StreamMemory: @unchecked Sendable {
        var part: Data?
        var sentAt = DispatchTime.now()
    }

    /// One viewer's queue of encoded frames.
    final class Viewer: Sendable {
        private let queue = Mutex<[Data]>([])
        private let ready = DispatchSemaphore(value: 0)
        /// Frames dropped because this viewer did not read them in time.
        let dropped = Atomic<Int>(0)

        func push(_ jpeg: Data) {
            let full = queue.withLock { q -> Bool in
                q.append(jpeg)
                guard q.count > LiveView.queueLimit else { return false }
                q.removeFirst()
                return true
            }
            if full { dropped.add(1, ordering: .relaxed) }
            ready.signal()
        }

        /// The oldest queued frame, waiting up to `timeout` seconds for one; nil if none came.
        func next(timeout: Double) -> Data? {
            let deadline = DispatchTime.now() + timeout
            while true {
                if let d = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return d }
                if ready.wait(timeout: deadline) == .timedOut { return nil }
            }
        }
    }

    init(fleet: FleetRunner) { self.fleet = fleet }

    /// Viewers per camera now.
    func viewers() -> [String: Int] {
        state.withLock { s in
            s.feeds.reduce(into: [:]) { counts, e in counts[e.key.camera, default: 0] += e.value.viewers.withLock { $0.count } }
        }
    }

    /// Frames encoded for streams so far, per camera.
    func framesEncoded() -> [String: Int] { state.withLock { $0.encoded } }

    /// Adds the live view's routes to `server`.
    func install(on server: HTTPServer) {
        server.route("GET", "/api/cameras/{name}/snapshot.jpg") { [self] r in snapshot(r) }
        server.route("GET", "/api/cameras/{name}/mjpeg") { [self] r in stream(r) }
    }

    /// `?width=`: nil if absent; else the width, or the error.
    static func width(_ r: HTTPRequest) -> Result<Int?, QueryError> {
        guard let text = r.query["width"] else { return .success(nil) }
        guard let w = Int(text), widths.contains(w) else {
            return .failure(QueryError("width must be an integer from \(widths.lowerBound) to \(widths.upperBound) (got '\(text)')"))
        }
        return .success(w)
    }

    /// `?fps=`: the default if absent; else the rate, or the error.
    static func fps(_ r: HTTPRequest) -> Result<Double, QueryError> {
        guard let text = r.query["fps"] else { return .success(defaultRate) }
        guard let f = Double(text), f.isFinite, rates.contains(f) else {
            return .failure(QueryError("fps must be a number from \(rates.lowerBound) to \(Int(rates.upperBound)) (got '\(text)')"))
        }
        return .success(f)
    }

    /// A bad query parameter.
    struct QueryError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private func snapshot(_ r: HTTPRequest) -> HTTPResponse {
        let name = r.parameters["name"] ?? ""
        guard let tap = fleet.frameTap(of: name) else { return .error(404, "no camera named '\(name)'") }
        let width: Int?
        switch Self.width(r) {
        case .success(let w): width = w
        case .failure(let e): return .error(400, e.message)
        }
        guard let frame = tap.latest?.frame else { return .error(503, "camera '\(name)' has no frame yet") }
        do {
            let jpeg = try JPEGEncoder().encode(frame, width: width)
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store")], body: .data(jpeg))
        } catch {
            return .error(500, "camera '\(name)': \(error)")
        }
    }

    private func stream(_ r: HTTPRequest) -> HTTPResponse {
        let name = r.parameters["name"] ?? ""
        guard fleet.frameTap(of: name) != nil else { return .error(404, "no camera named '\(name)'") }
        let key: FeedKey
        switch (Self.width(r), Self.fps(r)) {
        case (.failure(let e), _), (_, .failure(let e)): return .error(400, e.message)
        case (.success(let w), .success(let f)): key = FeedKey(camera: name, width: w, fps: f)
        }
        let viewer = Viewer()
        subscribe(viewer, to: key)
        let head = Data("--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: ".utf8)
        let memory = StreamMemory()
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "multipart/x-mixed-replace; boundary=\(Self.boundary)"), ("Cache-Control", "no-store")],
            body: .stream(
                HTTPStream(
                    next: { [fleet] control in
                        if control.isStopping { return nil }
                        guard let jpeg = viewer.next(timeout: 0.5) else {
                            if fleet.frameTap(of: name) == nil { return nil }  // the camera was removed: end
                            // Nothing new: the last part again once in a while, so the connection stays open.
                            let quiet = Double(DispatchTime.now().uptimeNanoseconds - memory.sentAt.uptimeNanoseconds) / 1e9
                            guard let part = memory.part, quiet >= Self.heartbeat(idleTimeout: control.idleTimeoutSeconds) else {
                                return Data()
                            }
                            memory.sentAt = .now()
                            return part
                        }
                        let part = head + Data("\(jpeg.count)\r\n\r\n".utf8) + jpeg + Data("\r\n".utf8)
                        (memory.part, memory.sentAt) = (part, .now())
                        return part
                    },
                    onClose: { [self] in unsubscribe(viewer, from: key) })))
    }

    private func subscribe(_ viewer: Viewer, to key: FeedKey) {
        let (feed, isNew) = state.withLock { s -> (Feed, Bool) in
            if let f = s.feeds[key] {
                f.viewers.withLock { $0[ObjectIdentifier(viewer)] = viewer }
                if let jpeg = f.last.withLock({ $0 }) { viewer.push(jpeg) }  // not only at the camera's next frame
                return (f, false)
            }
            let f = Feed()
            f.viewers.withLock { $0[ObjectIdentifier(viewer)] = viewer }
            s.feeds[key] = f
            return (f, true)
        }
        if isNew { Thread.detachNewThread { [self] in run(feed, key) } }
    }

    private func unsubscribe(_ viewer: Viewer, from key: FeedKey) {
        state.withLock { s in
            guard let f = s.feeds[key] else { return }
            f.viewers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(viewer)) }
        }
    }

    /// A feed's thread: once per tick, encodes the camera's newest frame (if new) and hands
    /// it to every viewer; ends when the feed has no viewers left.
    private func run(_ feed: Feed, _ key: FeedKey) {
        let encoder = JPEGEncoder()
        let period = 1 / key.fps
        var lastSequence = -1
        var next = Date()
        while true {
            let viewers = state.withLock { s -> [Viewer]? in
                let v = feed.viewers.withLock { Array($0.values) }
                if v.isEmpty {
                    s.feeds[key] = nil  // the next viewer starts a new feed
                    return nil
                }
                return v
            }
            guard let viewers else { return }
            let now = Date()
            if now >= next {
                if let latest = fleet.frameTap(of: key.camera)?.latest, latest.sequence != lastSequence,
                    let jpeg = try? encoder.encode(latest.frame, width: key.width)
                {
                    lastSequence = latest.sequence
                    feed.last.withLock { $0 = jpeg }
                    state.withLock { $0.encoded[key.camera, default: 0] += 1 }
                    for v in viewers { v.push(jpeg) }
                }
                next = max(next + period, now)
            }
            Thread.sleep(forTimeInterval: min(max(next.timeIntervalSince(Date()), 0), 0.5))
        }
    }
}
