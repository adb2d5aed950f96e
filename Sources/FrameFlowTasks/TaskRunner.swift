import Foundation
import FrameFlow
import FrameFlowML

/// What every task class runs on, as MediaPipe Tasks' `TaskRunner`: one graph — the task's
/// graph node with its options, then a `TaskResultCalculator` over its outputs — kept running
/// between calls. Image and video calls send a frame and wait for its result; live-stream calls
/// send and return, the result going to the listener, and a frame sent while an earlier one is
/// still in the graph is dropped and counted.
final class TaskRunner: @unchecked Sendable {
    /// The graph's outputs the task reads, as `TAG:name`, in the order results list them.
    let outputs: [String]
    let mode: RunningMode
    private let graph: Graph
    private let sink: TaskResultSink
    private let state = Locked(State())

    private struct State {
        var lastMs: Int?
        var nextImageMs = 0
        var inFlight = 0
        var dropped = 0
        var closed = false
    }

    /// Frames a live-stream task dropped because it was busy.
    var droppedFrames: Int { state.withLock { $0.dropped } }

    /// The graph's counters: each node's calls and busy seconds (frameflow-bench's `--profile`).
    var statistics: GraphStatistics { graph.statistics }

    /// A running graph of `taskGraph` with the options text `options` (the body of an
    /// `options { [TYPE.ext] { … } }` block, model asset path included) and `outputs`.
    /// `listener`: live stream only, called on a graph thread with each result in timestamp order.
    init(
        taskGraph: String, optionsType: String, options: String, outputs: [String], mode: RunningMode, base: BaseOptions,
        listener: (@Sendable (Result<[Packet?], TaskError>, Int) -> Void)?
    ) throws {
        self.outputs = outputs
        self.mode = mode
        let names = outputs.map { String($0.split(separator: ":").last ?? "") }
        var text = try Self.threads(base.numThreads)
        text += """
            input_stream: "IMAGE:image_in"
            input_stream: "NORM_RECT:norm_rect_in"
            node {
              calculator: "\(taskGraph)"
              input_stream: "IMAGE:image_in"
              input_stream: "NORM_RECT:norm_rect_in"

            """
        for o in outputs { text += "  output_stream: \"\(o)\"\n" }
        text += "  options { [\(optionsType).ext] { \(options) } }\n}\n"
        text += "node {\n  calculator: \"TaskResultCalculator\"\n"
        for n in names { text += "  input_stream: \"\(n)\"\n" }
        text += "}\n"
        let counter = state
        var forward: (@Sendable ([Packet?], Timestamp) -> Void)?
        if let listener {
            forward = { packets, timestamp in
                counter.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
                listener(.success(packets), Int(timestamp.microseconds / 1000))
            }
        }
        let sink = TaskResultSink(listener: forward)
        self.sink = sink
        var environment = GraphEnvironment(resourceRoots: base.resourceRoots + [GraphEnvironment.userModelFolder()])
        if let bytes = base.modelAssetBuffer { environment = environment.with(ModelAssets([Self.bufferName: bytes])) }
        environment = environment.with(sink)
        do {
            let registry = try CalculatorRegistry.withML().adding([TaskResultCalculator.self])
            graph = try Graph(GraphConfig(parsing: text, file: "\(taskGraph).pbtxt"), registry: registry, environment: environment)
            try graph.start()
        } catch {
            throw Self.taskError(error)
        }
    }

    deinit { close() }

    /// The name a model asset given as bytes goes by in the graph.
    static let bufferName = "memory:model_asset"

    /// The graph's `num_threads` line for `BaseOptions.numThreads` (none for nil).
    static func threads(_ n: Int?) throws -> String {
        guard let n else { return "" }
        guard (1...1024).contains(n) else {
            throw TaskError.invalidOption(name: "baseOptions.numThreads", reason: "\(n) is not in 1…1024")
        }
        return "num_threads: \(n)\n"
    }

    /// The `base_options` text for `base` in `mode` (`use_stream_mode` tells the task graph to
    /// track from frame to frame, as MediaPipe's video and live-stream modes do).
    static func baseOptions(_ base: BaseOptions, _ mode: RunningMode) throws -> String {
        let stream = "use_stream_mode: \(mode != .image)"
        if base.modelAssetBuffer != nil { return "base_options { model_asset { file_name: \"\(bufferName)\" } \(stream) }" }
        guard let path = base.modelAssetPath, !path.isEmpty else {
            throw TaskError.invalidOption(name: "baseOptions.modelAssetPath", reason: "no model: set modelAssetPath or modelAssetBuffer")
        }
        return "base_options { model_asset { file_name: \(quoted(path)) } \(stream) }"
    }

    /// The options text MediaPipe's face, hand and pose landmarker graphs share for `part`
    /// ("face", "hand", "pose"): the detector's count and threshold, the landmark model's
    /// presence threshold and the tracking threshold, each checked under the option's Swift
    /// name (`numFaces`, `minFaceDetectionConfidence`, `minFacePresenceConfidence`, …).
    static func landmarkerOptions(_ part: String, count n: Int, detection: Float, presence: Float, tracking: Float) throws -> String {
        let name = part.prefix(1).uppercased() + part.dropFirst()
        return "\(part)_detector_graph_options { num_\(part)s: \(try count(n, "num\(name)s")) min_detection_confidence: "
            + "\(try probability(detection, "min\(name)DetectionConfidence")) } "
            + "\(part)_landmarks_detector_graph_options { min_detection_confidence: \(try probability(presence, "min\(name)PresenceConfidence")) } "
            + "min_tracking_confidence: \(try probability(tracking, "minTrackingConfidence"))"
    }

    /// `s` as a text-format string literal.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// A float option checked to lie in `range`, as text.
    static func probability(_ value: Float, _ name: String, _ range: ClosedRange<Float> = 0...1) throws -> String {
        guard value.isFinite, range.contains(value) else {
            throw TaskError.invalidOption(name: name, reason: "\(value) is not in \(range.lowerBound)…\(range.upperBound)")
        }
        return "\(value)"
    }

    /// A count option checked to be at least `minimum` (and at most 1000), as text.
    static func count(_ value: Int, _ name: String, minimum: Int = 1) throws -> String {
        guard value >= minimum, value <= 1000 else {
            throw TaskError.invalidOption(name: name, reason: "\(value) is not in \(minimum)…1000")
        }
        return "\(value)"
    }

    /// Runs one image (image mode) or video frame and returns its result's packets.
    func process(_ image: ImageFrame, timestampMs: Int?, region: NormalizedRect, call: String) throws -> [Packet?] {
        let ms: Int = try state.withLock { s in
            if s.closed { throw TaskError.failed("\(call): the task is closed") }
            switch (mode, timestampMs) {
            case (.image, nil):
                s.nextImageMs += 1
                return s.nextImageMs
            case (.video, let t?):
                if let last = s.lastMs, t <= last { throw TaskError.timestampOrder(got: t, after: last) }
                s.lastMs = t
                return t
            default:
                throw TaskError.wrongRunningMode(call: call, mode: mode)
            }
        }
        let ts = try Self.timestamp(ms)
        do {
            try graph.send(image, to: "image_in", at: ts)
            try graph.send(region, to: "norm_rect_in", at: ts)
            try graph.waitUntilIdle()
        } catch {
            throw Self.taskError(error)
        }
        return sink.take(ts) ?? Array(repeating: nil, count: outputs.count)
    }

    /// Sends a live-stream image; returns false when it was dropped because the task was busy.
    @discardableResult
    func send(_ image: ImageFrame, timestampMs: Int, region: NormalizedRect, call: String) throws -> Bool {
        let accepted: Bool = try state.withLock { s in
            if s.closed { throw TaskError.failed("\(call): the task is closed") }
            guard mode == .liveStream else { throw TaskError.wrongRunningMode(call: call, mode: mode) }
            if let last = s.lastMs, timestampMs <= last { throw TaskError.timestampOrder(got: timestampMs, after: last) }
            s.lastMs = timestampMs
            if s.inFlight >= 1 {
                s.dropped += 1
                return false
            }
            s.inFlight += 1
            return true
        }
        guard accepted else { return false }
        let ts = try Self.timestamp(timestampMs)
        do {
            try graph.send(image, to: "image_in", at: ts)
            try graph.send(region, to: "norm_rect_in", at: ts)
        } catch {
            state.withLock { $0.inFlight -= 1 }
            throw Self.taskError(error)
        }
        return true
    }

    /// Finishes the graph (a live stream's last results are delivered first).
    func close() {
        let wasOpen = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard wasOpen else { return }
        try? graph.closeAllInputStreams()
        try? graph.waitUntilDone()
    }

    private static func timestamp(_ ms: Int) throws -> Timestamp {
        guard ms >= 0, ms < Int(Int64.max / 1000) - 1 else {
            throw TaskError.invalidOption(name: "timestampInMilliseconds", reason: "\(ms) is out of range")
        }
        return Timestamp(Int64(ms) * 1000)
    }

    /// A graph error as the task's error: the model asset's when a model file is missing or
    /// cannot be used.
    static func taskError(_ error: any Error) -> TaskError {
        if let e = error as? TaskError { return e }
        switch GraphError.cause(of: error) {
        case .missingFile?, .invalidModelAsset?: return .modelAsset("\(error)")
        case nil: return .failed("\(error)")
        }
    }
}
