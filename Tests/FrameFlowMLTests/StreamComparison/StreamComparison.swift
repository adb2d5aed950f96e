import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Synchronization
import Testing

/// Where FrameFlow's run of a graph and MediaPipe's part: MediaPipe's run is recorded by
/// scripts/fixtures/record_mediapipe_streams.py (every stream of the graph, frame by frame,
/// flattened to numbers); `record` runs the same graph config on FrameFlow with the same frames
/// and flattens its packets the same way; `firstParting` walks the frames in order and, in
/// each, the streams in the config's order, and names the first stream whose values differ.
enum StreamComparison {
    /// A recording: per stream, per frame index (a string, as JSON keys are), the values of the
    /// packets that frame produced, in order; each value a flat list of numbers or a list of
    /// such lists (a vector payload).
    struct Recording: Decodable {
        var streams: [String]
        var frames: Int
        var values: [String: [String: [Value]]]
        /// Streams whose values equal an earlier stream's on every frame (stream: that stream),
        /// left out of `values` by the script and put back by `load`.
        var aliases: [String: String]?
        /// For a classic solution's run: the image input stream, the side packets the solution
        /// gave, each frame's timestamp and the checksums of the RGB bytes fed.
        var input: String?
        var side_packets: [String: SidePacket]?
        var timestamps_us: [Int64]?
        var rgb_sums: [[String]]?
        var width: Int?
        var height: Int?
        var clip: String?

        /// `values` with the aliased streams filled in.
        mutating func resolveAliases() {
            for (name, same) in aliases ?? [:] { values[name] = values[same] }
        }
    }

    /// A side packet's value as JSON holds it.
    enum SidePacket: Decodable {
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int.self) {
                self = .int(i)
            } else if let d = try? c.decode(Double.self) {
                self = .double(d)
            } else {
                self = .string(try c.decode(String.self))
            }
        }

        var value: any Sendable {
            switch self {
            case .bool(let v): return v
            case .int(let v): return v
            case .double(let v): return v
            case .string(let v): return v
            }
        }
    }

    /// A classic solution's recording, `<name>.zip` as the script writes it: the recording
    /// (entry `<name>.json`) and the expanded config MediaPipe ran (entry `<name>_expanded.pbtxt`).
    static func load(zip path: String) throws -> (recording: Recording, config: GraphConfig) {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let bytes = try #require(FileManager.default.contents(atPath: path), "\(path) is missing")
        let archive = try ZipArchive(bytes: [UInt8](bytes), name: "\(name).zip")
        var recording = try JSONDecoder().decode(Recording.self, from: Data(try archive.data(named: "\(name).json")))
        recording.resolveAliases()
        let text = try #require(String(bytes: try archive.data(named: "\(name)_expanded.pbtxt"), encoding: .utf8))
        return (recording, try GraphConfig(parsing: text, file: "\(name).zip:\(name)_expanded.pbtxt"))
    }

    /// One packet's numbers.
    enum Value: Decodable, Equatable {
        case numbers([Double])
        case vector([[Double]])

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let n = try? c.decode([Double].self) {
                self = .numbers(n)
            } else {
                self = .vector(try c.decode([[Double]].self))
            }
        }

        /// The largest absolute difference, or nil when the shapes differ.
        func distance(to other: Value) -> Double? {
            switch (self, other) {
            case (.numbers(let a), .numbers(let b)):
                return a.count == b.count ? zip(a, b).map { abs($0 - $1) }.max() ?? 0 : nil
            case (.vector(let a), .vector(let b)):
                guard a.count == b.count else { return nil }
                var worst = 0.0
                for (x, y) in zip(a, b) {
                    guard let d = Value.numbers(x).distance(to: .numbers(y)) else { return nil }
                    worst = max(worst, d)
                }
                return worst
            default: return nil
            }
        }
    }

    /// A packet's payload as numbers, as the recording script flattens MediaPipe's; nil for a
    /// type it does not record.
    static func flatten(_ payload: Any) -> Value? {
        func rect(_ r: NormalizedRect) -> [Double] { [r.xCenter, r.yCenter, r.width, r.height, r.rotation] }
        func points<S>(_ l: LandmarkPointList<S>) -> [Double] {
            l.landmark.flatMap { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] }
        }
        func detection(_ d: Detection) -> [Double] {
            let b = d.box
            return [d.scores.first ?? 0, b.x, b.y, b.width, b.height] + d.keypoints.flatMap { [$0.x, $0.y] }
        }
        switch payload {
        case let r as NormalizedRect: return .numbers(rect(r))
        case let l as NormalizedLandmarkList: return .numbers(points(l))
        case let l as LandmarkList: return .numbers(points(l))
        case let d as Detection: return .numbers(detection(d))
        case let c as ClassificationList: return .numbers(c.classification.map { Double($0.score) })
        case let f as Float: return .numbers([Double(f)])
        case let f as Double: return .numbers([f])
        case let b as Bool: return .numbers([b ? 1 : 0])
        case let v as [NormalizedRect]: return .vector(v.map(rect))
        case let v as [NormalizedLandmarkList]: return .vector(v.map(points))
        case let v as [LandmarkList]: return .vector(v.map(points))
        case let v as [Detection]: return .vector(v.map(detection))
        case let v as [ClassificationList]: return .vector(v.map { $0.classification.map { Double($0.score) } })
        case let v as [Float]: return .vector(v.map { [Double($0)] })
        case let v as [Bool]: return .vector(v.map { [$0 ? 1 : 0] })
        default: return nil
        }
    }

    /// Runs `config` on `images` (one at a time, waiting until the graph is idle, so that every
    /// packet of a stream belongs to the frame fed last, as in the recording) at
    /// `timestampsMs`, the whole-image region on a `NORM_RECT` input, and records `streams`.
    /// The images go to `imageStream` (default: the input tagged `IMAGE`); `sidePackets` start
    /// the run.
    static func record(
        _ config: GraphConfig, images: [ImageFrame], timestampsMs: [Int64], streams: [String],
        registry: CalculatorRegistry, environment: GraphEnvironment, also: [String: @Sendable (Packet) -> Void] = [:]
    ) throws -> [String: [Int: [Value]]] {
        try record(
            config, images: images, timestampsUs: timestampsMs.map { $0 * 1000 }, streams: streams, registry: registry,
            environment: environment, also: also)
    }

    /// `record` with timestamps in microseconds, an image stream by name and side packets.
    static func record(
        _ config: GraphConfig, images: [ImageFrame], timestampsUs: [Int64], streams: [String],
        registry: CalculatorRegistry, environment: GraphEnvironment, imageStream: String? = nil,
        sidePackets: [String: any Sendable] = [:], also: [String: @Sendable (Packet) -> Void] = [:]
    ) throws -> [String: [Int: [Value]]] {
        let graph = try Graph(config, registry: registry, environment: environment)
        for (s, callback) in also { try graph.observe(s, callback) }
        let current = Mutex(0)
        let recorded = Mutex([String: [Int: [Value]]]())
        for s in streams {
            // A stream the config lacks stays unrecorded: the comparison names it.
            try? graph.observe(s) { packet in
                guard let payload = packet.payload, let v = flatten(payload) else { return }
                let k = current.withLock { $0 }
                recorded.withLock { $0[s, default: [:]][k, default: []].append(v) }
            }
        }
        let image = try imageStream ?? #require(graph.config.inputStreams.first { $0.tag == "IMAGE" }).name
        let rect = graph.config.inputStreams.first { $0.tag == "NORM_RECT" }?.name
        try graph.start(sidePackets: sidePackets)
        for (k, frame) in images.enumerated() {
            current.withLock { $0 = k }
            let t = Timestamp(timestampsUs[k])
            try graph.send(frame, to: image, at: t)
            if let rect { try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), to: rect, at: t) }
            try graph.waitUntilIdle()
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return recorded.withLock { $0 }
    }

    /// Writes a recording in the script's layout (for looking at it outside the test).
    static func write(_ recorded: [String: [Int: [Value]]], to path: String) throws {
        func json(_ v: Value) -> Any {
            switch v {
            case .numbers(let n): return n
            case .vector(let l): return l
            }
        }
        let values = recorded.mapValues { frames in
            Dictionary(uniqueKeysWithValues: frames.map { (String($0.key), $0.value.map(json)) })
        }
        let data = try JSONSerialization.data(withJSONObject: ["values": values])
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Where two runs part.
    struct Parting: CustomStringConvertible {
        var frame: Int
        var stream: String
        /// The largest difference (nil: the packets differ in number or shape).
        var distance: Double?
        var ours: [Value]
        var theirs: [Value]
        var description: String {
            "frame \(frame), stream \(stream): "
                + (distance.map { "values differ by \($0)" } ?? "\(ours.count) packet(s) here, \(theirs.count) in MediaPipe's run, or shapes differ")
        }
    }

    /// Each stream's depth: the longest path from the graph's inputs in nodes, back edges
    /// (`input_stream_info { back_edge: true }`) left out, so that of the streams that part
    /// on a frame the one nearest the inputs — where the difference enters — is named.
    static func depths(_ config: GraphConfig) -> [String: Int] {
        var depth = Dictionary(uniqueKeysWithValues: config.inputStreams.map { ($0.name, 0) })
        let forward = config.nodes.map { node in
            node.inputStreams.filter { ref in
                !node.inputStreamInfo.contains { $0.backEdge && ($0.tagIndex == ref.tag || $0.tagIndex == "\(ref.tag):\(ref.index)") }
            }.map(\.name)
        }
        for _ in 0...config.nodes.count {  // relaxation: at most one round per node on a path
            var changed = false
            for (node, inputs) in zip(config.nodes, forward) {
                let known = inputs.compactMap { depth[$0] }
                guard !known.isEmpty, known.count == inputs.count else { continue }
                let d = (known.max() ?? 0) + 1
                for out in node.outputStreams where (depth[out.name] ?? -1) < d {
                    depth[out.name] = d
                    changed = true
                }
            }
            if !changed { break }
        }
        return depth
    }

    /// The recorded streams a model writes: those a node makes from an inference node's
    /// output through streams that are not recorded (tensors) only, e.g. the landmarks
    /// TensorsToLandmarksCalculator decodes and the score TensorsToFloatsCalculator reads. A
    /// parting there comes from the model's arithmetic; a parting anywhere else, with every
    /// stream feeding it equal, is a calculator that computes differently.
    static func modelOutputs(_ config: GraphConfig, recorded: Set<String>) -> Set<String> {
        var tensors = Set(config.nodes.filter { $0.calculator.hasPrefix("InferenceCalculator") }.flatMap { $0.outputStreams.map(\.name) })
        var found = Set<String>()
        var changed = true
        while changed {
            changed = false
            for node in config.nodes where node.inputStreams.contains(where: { tensors.contains($0.name) }) {
                for out in node.outputStreams.map(\.name) where !found.contains(out) && !tensors.contains(out) {
                    if recorded.contains(out) { found.insert(out) } else { tensors.insert(out) }
                    changed = true
                }
            }
        }
        return found
    }

    /// A node whose inputs equal MediaPipe's, on that frame and every frame before (so that a
    /// filter's or tracker's state is equal too), and one of whose outputs does not.
    struct CalculatorParting: CustomStringConvertible {
        var frame: Int
        var node: String
        var stream: String
        var distance: Double?
        var description: String {
            "frame \(frame), node \(node): inputs equal, \(stream) " + (distance.map { "differs by \($0)" } ?? "differs in packets or shape")
        }
    }

    /// The largest difference of a stream on a frame (infinity: the packets differ in number or shape).
    static func difference(_ ours: [String: [Int: [Value]]], _ reference: Recording, _ stream: String, _ k: Int) -> Double {
        let theirs = reference.values[stream]?[String(k)] ?? []
        let mine = ours[stream]?[k] ?? []
        guard mine.count == theirs.count else { return .infinity }
        return zip(mine, theirs).map { $0.distance(to: $1) ?? .infinity }.max() ?? 0
    }

    /// Every node with recorded outputs whose inputs are recorded (or made from the graph's
    /// inputs alone: the image, its size) checked on every frame where its inputs have agreed
    /// within `inputTolerance` so far: `checked` counts those (node, frame) pairs, `partings`
    /// lists those where an output differs by more than `outputTolerance`. Nodes that read a
    /// model's tensors are not checked (their inputs are not recorded). A parting here is a
    /// calculator that computes otherwise than MediaPipe's.
    static func calculatorPartings(
        _ ours: [String: [Int: [Value]]], _ reference: Recording, config: GraphConfig, inputTolerance: Double, outputTolerance: Double
    ) -> (checked: Int, partings: [CalculatorParting]) {
        let recorded = Set(reference.streams)
        var fromInputs = Set(config.inputStreams.map(\.name))
        var changed = true
        while changed {
            changed = false
            for node in config.nodes where !node.inputStreams.isEmpty && node.inputStreams.allSatisfy({ fromInputs.contains($0.name) }) {
                for out in node.outputStreams where !fromInputs.contains(out.name) {
                    fromInputs.insert(out.name)
                    changed = true
                }
            }
        }
        var agreedUntil: [String: Int] = [:]  // the first frame a recorded stream parts on
        for s in recorded {
            agreedUntil[s] = (0..<reference.frames).first { difference(ours, reference, s, $0) > inputTolerance } ?? reference.frames
        }
        var checked = 0
        var partings: [CalculatorParting] = []
        for node in config.nodes {
            let inputs = node.inputStreams.map(\.name)
            let outputs = node.outputStreams.map(\.name).filter { recorded.contains($0) && !inputs.contains($0) }
            guard !outputs.isEmpty, inputs.allSatisfy({ recorded.contains($0) || fromInputs.contains($0) }) else { continue }
            let until = inputs.compactMap { agreedUntil[$0] }.min() ?? reference.frames
            for k in 0..<until {
                checked += 1
                for out in outputs {
                    let d = difference(ours, reference, out, k)
                    if d > outputTolerance {
                        partings.append(
                            CalculatorParting(frame: k, node: node.displayName, stream: out, distance: d.isFinite ? d : nil))
                    }
                }
            }
        }
        return (checked, partings)
    }

    /// The first frame where the runs part by more than `tolerance` (values, or the number or
    /// shape of packets), and on it the parting stream nearest the graph's inputs by `depth`
    /// (ties: the order of `reference.streams`).
    static func firstParting(
        _ ours: [String: [Int: [Value]]], _ reference: Recording, frames: Int, tolerance: Double, depth: [String: Int] = [:]
    ) -> Parting? {
        for k in 0..<frames {
            var found: [Parting] = []
            for s in reference.streams {
                let theirs = reference.values[s]?[String(k)] ?? []
                let mine = ours[s]?[k] ?? []
                guard mine.count == theirs.count else {
                    found.append(Parting(frame: k, stream: s, distance: nil, ours: mine, theirs: theirs))
                    continue
                }
                let distances = zip(mine, theirs).map { $0.distance(to: $1) }
                if distances.contains(where: { $0 == nil }) {
                    found.append(Parting(frame: k, stream: s, distance: nil, ours: mine, theirs: theirs))
                } else if let d = distances.compactMap({ $0 }).max(), d > tolerance {
                    found.append(Parting(frame: k, stream: s, distance: d, ours: mine, theirs: theirs))
                }
            }
            if let first = found.min(by: { (depth[$0.stream] ?? .max) < (depth[$1.stream] ?? .max) }) { return first }
        }
        return nil
    }
}
