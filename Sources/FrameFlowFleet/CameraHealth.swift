import Foundation

/// How one camera of a fleet is doing: what `frameflow fleet` prints as a JSON line every
/// `--health-interval` seconds and on every state change, and publishes, retained, on
/// `frameflow/<camera>/health`.
///
///     {"camera":"door","state":"running","fps_in":15.0,"fps_out":14.9,"frames_in":1520,
///      "frames_out":1517,"dropped":3,"reconnects":1,"last_error":null}
///
/// Counts are totals over every run of the camera since the fleet started; the rates are
/// those of the last periodic interval (0 before the first periodic report). A fleet with a
/// broker adds its connection's state (`MQTTLinkHealth`) as a last member, `"mqtt":{…}`.
public struct CameraHealth: Sendable, Equatable {
    /// Where a camera is in its life.
    public enum State: String, Sendable, CaseIterable {
        /// Opening its source (the first time, or again after a back-off).
        case connecting
        /// Frames are coming in.
        case running
        /// The source failed, stalled or ended; waiting before the next try.
        case backoff
        /// Stopped by the fleet (end of `--duration`, Ctrl-C, SIGTERM).
        case stopped
        /// Cannot run at all (a bad graph file, an unknown side packet); not retried.
        case failed
    }

    /// The camera's name.
    public var camera: String
    /// Its state.
    public var state: State
    /// Frames read per second over the last periodic interval.
    public var fpsIn: Double
    /// Frames out of the graph's first output per second over the last periodic interval.
    public var fpsOut: Double
    /// Frames read from the source, over every run.
    public var framesIn: Int
    /// Packets on the graph's first output stream, over every run.
    public var framesOut: Int
    /// Frames dropped: refused by flow limiting (the graph was busy) or by queue policies.
    public var dropped: Int
    /// How many times the source was opened again after failing, stalling or ending.
    public var reconnects: Int
    /// The last error (or "source ended"), if any.
    public var lastError: String?
    /// The fleet's broker connection, when it has one (the same for every camera).
    public var mqtt: MQTTLinkHealth?

    /// A report for `camera` in `state` with no frames yet.
    public init(
        camera: String, state: State, fpsIn: Double = 0, fpsOut: Double = 0, framesIn: Int = 0, framesOut: Int = 0, dropped: Int = 0,
        reconnects: Int = 0, lastError: String? = nil
    ) {
        self.camera = camera
        self.state = state
        self.fpsIn = fpsIn
        self.fpsOut = fpsOut
        self.framesIn = framesIn
        self.framesOut = framesOut
        self.dropped = dropped
        self.reconnects = reconnects
        self.lastError = lastError
    }

    /// The report as one JSON object (no newline), members in the order documented above,
    /// rates with one decimal.
    public var jsonLine: String {
        func quoted(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where u.value < 0x20 || u.value == 0x7F: out += String(format: "\\u%04x", u.value)
                default: out.unicodeScalars.append(u)
                }
            }
            return out + "\""
        }
        let rate = { (v: Double) in String(format: "%.1f", v.isFinite ? v : 0) }
        return "{\"camera\":\(quoted(camera)),\"state\":\"\(state.rawValue)\",\"fps_in\":\(rate(fpsIn)),\"fps_out\":\(rate(fpsOut)),"
            + "\"frames_in\":\(framesIn),\"frames_out\":\(framesOut),\"dropped\":\(dropped),\"reconnects\":\(reconnects),"
            + "\"last_error\":\(lastError.map(quoted) ?? "null")"
            + (mqtt.map { m in
                ",\"mqtt\":{\"connected\":\(m.connected),\"queued\":\(m.queued),\"delivered\":\(m.delivered),\"dropped\":\(m.dropped),"
                    + "\"lost\":\(m.lost),\"refused\":\(m.refused),\"last_error\":\(m.lastError.map(quoted) ?? "null")}"
            } ?? "") + "}"
    }
}

/// A fleet's broker connection as health lines report it.
public struct MQTTLinkHealth: Sendable, Equatable {
    /// Whether the client is connected now.
    public var connected: Bool
    /// Messages waiting or not yet acknowledged.
    public var queued: Int
    /// Messages the broker took.
    public var delivered: Int
    /// Messages dropped because the queue was full (`max_queued`).
    public var dropped: Int
    /// QoS 0 messages lost with a broken connection.
    public var lost: Int
    /// Messages the client refused (too large, …).
    public var refused: Int
    /// The last connection or publishing error.
    public var lastError: String?

    /// A report of these counts.
    public init(connected: Bool, queued: Int, delivered: Int, dropped: Int, lost: Int, refused: Int, lastError: String?) {
        self.connected = connected
        self.queued = queued
        self.delivered = delivered
        self.dropped = dropped
        self.lost = lost
        self.refused = refused
        self.lastError = lastError
    }
}
