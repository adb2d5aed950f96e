import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import Foundation

/// Turns a parsed fleet file into cameras and broker settings, checking every field (see
/// `FleetConfig` for the format). Each error names the field's line and column.
struct FleetFileReader {
    /// The fleet file's folder, where relative paths start; nil: the current folder.
    let base: String?

    /// The defaults block's values; a camera's own fields override them.
    struct Defaults: Sendable {
        var graph: String?
        var sidePackets: [String: String] = [:]
        var stallSeconds = 5.0
        var reconnect = ReconnectPolicy()
        var realtime = true
        var resourceRoot: String?
        var maxImagePixels: Int?
        var events: EventSettings?
    }

    func read(_ message: TextMessage) throws -> ([CameraConfig], MQTTSettings?) {
        let r = try readAll(message)
        return (r.cameras, r.mqtt)
    }

    /// The fleet file's cameras, broker, defaults and `http { … }` block.
    func readAll(_ message: TextMessage) throws -> (cameras: [CameraConfig], mqtt: MQTTSettings?, defaults: Defaults, http: HTTPSettings?) {
        try checkFields(message, allowed: ["defaults", "mqtt", "camera", "http"], repeated: ["camera"], in: "the fleet file")
        var defaults = Defaults()
        if let d = message.fields(named: "defaults").first {
            let m = try Self.message(d)
            try checkFields(
                m, allowed: ["graph", "side_packet", "stall_seconds", "reconnect", "realtime", "resource_root", "max_image_pixels", "events"],
                repeated: ["side_packet"], in: "defaults")
            if let g = m.fields(named: "graph").first { defaults.graph = resolve(try Self.nonEmptyString(g)) }
            defaults.sidePackets = try sidePackets(m, into: [:])
            if let s = m.fields(named: "stall_seconds").first { defaults.stallSeconds = try Self.positive(s) }
            if let r = m.fields(named: "reconnect").first { defaults.reconnect = try reconnect(r, base: defaults.reconnect) }
            if let r = m.fields(named: "realtime").first { defaults.realtime = try Self.bool(r) }
            if let r = m.fields(named: "resource_root").first { defaults.resourceRoot = resolve(try Self.nonEmptyString(r)) }
            if let p = m.fields(named: "max_image_pixels").first { defaults.maxImagePixels = try Self.integer(p, in: 1...Int(Int32.max)) }
            if let e = m.fields(named: "events").first { defaults.events = try Self.events(e, in: "defaults") }
        }
        var mqtt: MQTTSettings?
        if let f = message.fields(named: "mqtt").first {
            let m = try Self.message(f)
            try checkFields(m, allowed: ["host", "port", "qos", "client_id"], repeated: [], in: "mqtt")
            var s = MQTTSettings()
            if let h = m.fields(named: "host").first { s.host = try Self.nonEmptyString(h) }
            if let p = m.fields(named: "port").first { s.port = try Self.integer(p, in: 1...65535) }
            if let q = m.fields(named: "qos").first { s.qos = try Self.integer(q, in: 0...2) }
            if let c = m.fields(named: "client_id").first { s.clientID = try Self.string(c) }
            mqtt = s
        }
        var cameras: [CameraConfig] = []
        var names: [String: SourceLocation] = [:]
        var files: [String: (camera: String, at: SourceLocation)] = [:]
        for f in message.fields(named: "camera") {
            let camera = try self.camera(f, defaults: defaults)
            if let first = names[camera.name] {
                throw FleetConfigError("camera name '\(camera.name)' is used twice (first at line \(first.line))", at: f.value.location)
            }
            names[camera.name] = f.value.location
            for o in camera.outputs {
                guard case .file(let path) = o.destination else { continue }
                let key = URL(fileURLWithPath: path).standardizedFileURL.path
                if let other = files[key] {
                    throw FleetConfigError(
                        "camera '\(camera.name)': output file \(path) is also written by camera '\(other.camera)' (line \(other.at.line))",
                        at: f.value.location)
                }
                files[key] = (camera.name, f.value.location)
            }
            if mqtt == nil, camera.outputs.contains(where: { $0.destination == .mqtt }) {
                throw FleetConfigError(
                    "camera '\(camera.name)': an output goes to mqtt but the fleet file has no mqtt { … } block", at: f.value.location)
            }
            cameras.append(camera)
        }
        var http: HTTPSettings?
        if let f = message.fields(named: "http").first {
            let m = try Self.message(f)
            try checkFields(m, allowed: ["listen"], repeated: [], in: "http")
            var h = HTTPSettings()
            if let l = m.fields(named: "listen").first {
                h.listen = try Self.nonEmptyString(l)
                h.location = l.value.location
            }
            http = h
        }
        return (cameras, mqtt, defaults, http)
    }

    /// The one `camera { … }` block of `message` (a camera sent on its own), read with `defaults`.
    func singleCamera(_ message: TextMessage, defaults: Defaults, mqtt: Bool) throws -> CameraConfig {
        try checkFields(message, allowed: ["camera"], repeated: [], in: "a camera block")
        guard let f = message.fields(named: "camera").first else {
            throw FleetConfigError("a camera block camera { … } is needed", at: SourceLocation(file: "request", line: 1, column: 1))
        }
        let camera = try self.camera(f, defaults: defaults)
        if !mqtt, camera.outputs.contains(where: { $0.destination == .mqtt }) {
            throw FleetConfigError("camera '\(camera.name)': an output goes to mqtt but the fleet has no mqtt { … } block", at: f.value.location)
        }
        return camera
    }

    private func camera(_ field: TextField, defaults: Defaults) throws -> CameraConfig {
        let m = try Self.message(field)
        let at = field.value.location
        try checkFields(
            m,
            allowed: [
                "name", "source", "graph", "side_packet", "output", "stall_seconds", "reconnect", "realtime", "resource_root",
                "max_image_pixels", "events", "record", "snapshots", "live_stream",
            ],
            repeated: ["side_packet", "output"], in: "camera")
        guard let nameField = m.fields(named: "name").first else { throw FleetConfigError("camera: 'name' is missing", at: at) }
        let name = try Self.string(nameField)
        guard !name.isEmpty else { throw FleetConfigError("camera: 'name' is empty", at: nameField.value.location) }
        guard name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw FleetConfigError("camera '\(name)': the name has control characters", at: nameField.value.location)
        }
        guard let sourceField = m.fields(named: "source").first else { throw FleetConfigError("camera '\(name)': 'source' is missing", at: at) }
        let source = try Self.nonEmptyString(sourceField)
        var graph = defaults.graph
        if let g = m.fields(named: "graph").first { graph = resolve(try Self.nonEmptyString(g)) }
        guard let graph else {
            throw FleetConfigError("camera '\(name)': 'graph' is missing (and the defaults have none)", at: at)
        }
        var camera = CameraConfig(
            name: name, source: resolveSource(source), graph: graph, sidePackets: try sidePackets(m, into: defaults.sidePackets),
            stallSeconds: defaults.stallSeconds, reconnect: defaults.reconnect, realtime: defaults.realtime, location: at)
        if let s = m.fields(named: "stall_seconds").first { camera.stallSeconds = try Self.positive(s) }
        if let r = m.fields(named: "reconnect").first { camera.reconnect = try reconnect(r, base: defaults.reconnect) }
        if let r = m.fields(named: "realtime").first { camera.realtime = try Self.bool(r) }
        camera.liveStream = try m.fields(named: "live_stream").first.map { try Self.nonEmptyString($0) }
        camera.resourceRoot = try m.fields(named: "resource_root").first.map { resolve(try Self.nonEmptyString($0)) } ?? defaults.resourceRoot
        camera.maxImagePixels =
            try m.fields(named: "max_image_pixels").first.map { try Self.integer($0, in: 1...Int(Int32.max)) }
            ?? defaults.maxImagePixels
        camera.events = try m.fields(named: "events").first.map { try Self.events($0, in: "camera '\(name)'") } ?? defaults.events
        if let events = camera.events {
            for side in ["event_settings", "camera", "time_base"] where camera.sidePackets[side] != nil {
                throw FleetConfigError(
                    "camera '\(name)': side packet '\(side)' is set by the events block; do not give it as a side_packet", at: at)
            }
            camera.sidePackets["event_settings"] = events.textFormat
            camera.sidePackets["camera"] = name
        }
        if let r = m.fields(named: "record").first { camera.record = try record(r, camera: name) }
        if let r = m.fields(named: "snapshots").first { camera.snapshots = try snapshots(r, camera: name) }
        var streams: Set<String> = []
        for o in m.fields(named: "output") {
            let om = try Self.message(o)
            try checkFields(om, allowed: ["stream", "to"], repeated: [], in: "output")
            guard let s = om.fields(named: "stream").first else {
                throw FleetConfigError("camera '\(name)': output: 'stream' is missing", at: o.value.location)
            }
            guard let t = om.fields(named: "to").first else {
                throw FleetConfigError("camera '\(name)': output: 'to' is missing", at: o.value.location)
            }
            let stream = try Self.nonEmptyString(s)
            guard streams.insert(stream).inserted else {
                throw FleetConfigError("camera '\(name)': stream '\(stream)' has two outputs", at: o.value.location)
            }
            let to = try Self.nonEmptyString(t)
            let destination: CameraOutput.Destination =
                switch to {
                case "mqtt": .mqtt
                case "null": .null
                default: .file(resolve(to))
                }
            camera.outputs.append(CameraOutput(stream: stream, destination: destination))
        }
        return camera
    }

    /// A `record { … }` block (see `RecordSettings`), every value range-checked.
    private func record(_ field: TextField, camera: String) throws -> RecordSettings {
        let m = try Self.message(field)
        try checkFields(
            m,
            allowed: [
                "folder", "events_stream", "pre_roll_seconds", "post_roll_seconds", "continuous", "segment_seconds", "retain_days", "max_bytes",
            ], repeated: [], in: "camera '\(camera)': record")
        guard let folder = m.fields(named: "folder").first else {
            throw FleetConfigError("camera '\(camera)': record: 'folder' is missing", at: field.value.location)
        }
        var r = RecordSettings(folder: resolve(try Self.nonEmptyString(folder)))
        if let f = m.fields(named: "events_stream").first { r.eventsStream = try Self.nonEmptyString(f) }
        if let f = m.fields(named: "pre_roll_seconds").first { r.options.preRollSeconds = try Self.number(f, in: 0...300) }
        if let f = m.fields(named: "post_roll_seconds").first { r.options.postRollSeconds = try Self.number(f, in: 0...300) }
        if let f = m.fields(named: "continuous").first { r.options.continuous = try Self.bool(f) }
        if let f = m.fields(named: "segment_seconds").first { r.options.segmentSeconds = try Self.number(f, in: 1...3600) }
        let days = try m.fields(named: "retain_days").first.map { f -> Double in
            let v = try Self.number(f, in: 0...36500)
            guard v > 0 else { throw FleetConfigError("'retain_days' must be above 0 (at most 36500)", at: f.value.location) }
            return v
        }
        let bytes = try m.fields(named: "max_bytes").first.map { try Self.number($0, in: 1...1e15) }
        if days != nil || bytes != nil { r.options.retention = try RetentionPolicy(maxDays: days, maxBytes: bytes) }
        return r
    }

    /// A `snapshots { … }` block (see `SnapshotSettings`).
    private func snapshots(_ field: TextField, camera: String) throws -> SnapshotSettings {
        let m = try Self.message(field)
        try checkFields(m, allowed: ["folder", "stream", "events_stream"], repeated: [], in: "camera '\(camera)': snapshots")
        guard let folder = m.fields(named: "folder").first else {
            throw FleetConfigError("camera '\(camera)': snapshots: 'folder' is missing", at: field.value.location)
        }
        var s = SnapshotSettings(folder: resolve(try Self.nonEmptyString(folder)))
        if let f = m.fields(named: "stream").first { s.stream = try Self.nonEmptyString(f) }
        if let f = m.fields(named: "events_stream").first { s.eventsStream = try Self.nonEmptyString(f) }
        return s
    }

    private func sidePackets(_ m: TextMessage, into start: [String: String]) throws -> [String: String] {
        var result = start
        var seen: Set<String> = []
        for f in m.fields(named: "side_packet") {
            let sm = try Self.message(f)
            try checkFields(sm, allowed: ["name", "value"], repeated: [], in: "side_packet")
            guard let n = sm.fields(named: "name").first else { throw FleetConfigError("side_packet: 'name' is missing", at: f.value.location) }
            guard let v = sm.fields(named: "value").first else { throw FleetConfigError("side_packet: 'value' is missing", at: f.value.location) }
            let name = try Self.nonEmptyString(n)
            guard seen.insert(name).inserted else { throw FleetConfigError("side packet '\(name)' is given twice", at: f.value.location) }
            switch v.value.kind {
            case .string(let s), .identifier(let s), .number(let s): result[name] = s
            case .message: throw FleetConfigError("side_packet '\(name)': 'value' must be a string or a number", at: v.value.location)
            }
        }
        return result
    }

    private func reconnect(_ field: TextField, base: ReconnectPolicy) throws -> ReconnectPolicy {
        let m = try Self.message(field)
        try checkFields(m, allowed: ["initial_seconds", "max_seconds", "healthy_seconds"], repeated: [], in: "reconnect")
        var r = base
        if let f = m.fields(named: "initial_seconds").first { r.initialSeconds = try Self.positive(f) }
        if let f = m.fields(named: "max_seconds").first { r.maxSeconds = try Self.positive(f) }
        if let f = m.fields(named: "healthy_seconds").first { r.healthySeconds = try Self.positive(f) }
        guard r.maxSeconds >= r.initialSeconds else {
            throw FleetConfigError(
                "reconnect: max_seconds (\(r.maxSeconds)) is below initial_seconds (\(r.initialSeconds))", at: field.value.location)
        }
        return r
    }

    /// `path` against the fleet file's folder, unless absolute.
    private func resolve(_ path: String) -> String {
        guard let base, !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
    }

    /// A source spec: URLs, devices and `testsrc` as written, files resolved.
    private func resolveSource(_ spec: String) -> String {
        if spec.contains("://") || spec == "testsrc" || spec.hasPrefix("testsrc:") { return spec }
        return resolve(spec)
    }

    /// Every field of `m` must be in `allowed`; those not in `repeated` at most once.
    private func checkFields(_ m: TextMessage, allowed: Set<String>, repeated: Set<String>, in what: String) throws {
        var first: [String: SourceLocation] = [:]
        for f in m.fields {
            guard !f.isExtension, allowed.contains(f.name) else {
                throw FleetConfigError("\(what): unknown field '\(f.name)' (fields: \(allowed.sorted().joined(separator: ", ")))", at: f.location)
            }
            if !repeated.contains(f.name) {
                if let earlier = first[f.name] {
                    throw FleetConfigError("\(what): '\(f.name)' is given twice (first at line \(earlier.line))", at: f.location)
                }
                first[f.name] = f.location
            }
        }
    }

    /// An `events { … }` block, read by the events calculators' own parser (`EventSettings`), so
    /// it takes what their options take; errors keep the fleet file's line and column.
    private static func events(_ f: TextField, in what: String) throws -> EventSettings {
        let m = try message(f)
        do {
            return try EventSettings.decode(from: m, node: "\(what): events")
        } catch let e as GraphError {
            throw FleetConfigError("\(what): events: \(e.message)", at: e.location ?? f.value.location)
        }
    }

    private static func message(_ f: TextField) throws -> TextMessage {
        guard case .message(let m) = f.value.kind else { throw FleetConfigError("'\(f.name)' must be a message { … }", at: f.value.location) }
        return m
    }

    private static func string(_ f: TextField) throws -> String {
        guard case .string(let s) = f.value.kind else { throw FleetConfigError("'\(f.name)' must be a quoted string", at: f.value.location) }
        return s
    }

    private static func nonEmptyString(_ f: TextField) throws -> String {
        let s = try string(f)
        guard !s.isEmpty else { throw FleetConfigError("'\(f.name)' is empty", at: f.value.location) }
        return s
    }

    private static func positive(_ f: TextField) throws -> Double {
        guard case .number(let s) = f.value.kind, let v = Double(s), v.isFinite, v > 0, v <= 1e6 else {
            throw FleetConfigError("'\(f.name)' must be a number of seconds above 0 (at most 1000000)", at: f.value.location)
        }
        return v
    }

    /// A finite number in `range` (NaN, infinities and 1e308 refused).
    private static func number(_ f: TextField, in range: ClosedRange<Double>) throws -> Double {
        guard case .number(let s) = f.value.kind, let v = Double(s), v.isFinite, range.contains(v) else {
            throw FleetConfigError(
                "'\(f.name)' must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))", at: f.value.location)
        }
        return v
    }

    private static func format(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e12 ? String(Int64(v)) : "\(v)" }

    private static func integer(_ f: TextField, in range: ClosedRange<Int>) throws -> Int {
        guard case .number(let s) = f.value.kind, let v = Int(s), range.contains(v) else {
            throw FleetConfigError("'\(f.name)' must be an integer in \(range.lowerBound)...\(range.upperBound)", at: f.value.location)
        }
        return v
    }

    private static func bool(_ f: TextField) throws -> Bool {
        guard case .identifier(let s) = f.value.kind, s == "true" || s == "false" else {
            throw FleetConfigError("'\(f.name)' must be true or false", at: f.value.location)
        }
        return s == "true"
    }
}
