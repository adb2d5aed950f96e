import FrameFlow
import FrameFlowMedia
import Foundation
import Synchronization

/// Runs one camera of a fleet for as long as the fleet runs: opens the source, runs the graph
/// on it (a `GraphRunner`), and when the source fails, stalls or ends, waits (`ReconnectPolicy`)
/// and starts over with a new graph run. A camera that cannot run at all (a graph file that
/// does not load or validate, an input or side packet the graph does not have) is `failed`
/// and not retried.
///
/// Threading: `run()` blocks on the camera's own thread; `stop()` and `health` may be called
/// from any thread. Health reports go to `report`, outside any lock.
final class CameraSupervisor: Sendable {
    let camera: CameraConfig
    private let graphConfig: Result<GraphConfig, FleetConfigError>
    private let registry: CalculatorRegistry
    private let environment: GraphEnvironment
    private let workerPool: WorkerPool
    private let makeMQTTSink: FleetRunner.MQTTSinkFactory?
    private let onEvents: (@Sendable (String, [ObjectEvent]) -> Void)?
    private let report: @Sendable (CameraHealth) -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let status = Locked(Status())
    /// The camera's latest image, across runs (`FrameTap`).
    let tap = FrameTap()

    /// What the camera has done so far, and the run in progress.
    private struct Status {
        var state = CameraHealth.State.connecting
        var framesIn = 0
        var framesOut = 0
        var dropped = 0
        var reconnects = 0
        var lastError: String?
        var stopping = false
        var run: CurrentRun?
        /// When the last periodic report was made and the totals then, for the rates.
        var reported = (nanoseconds: monotonicNanoseconds(), framesIn: 0, framesOut: 0)
        /// The rates of the last periodic interval (state changes report these too).
        var rates = (fpsIn: 0.0, fpsOut: 0.0)
    }

    init(
        camera: CameraConfig, graphConfig: Result<GraphConfig, FleetConfigError>, registry: CalculatorRegistry,
        environment: GraphEnvironment = GraphEnvironment(), workerPool: WorkerPool,
        makeMQTTSink: FleetRunner.MQTTSinkFactory?, onEvents: (@Sendable (String, [ObjectEvent]) -> Void)? = nil,
        report: @escaping @Sendable (CameraHealth) -> Void
    ) {
        self.onEvents = onEvents
        self.camera = camera
        self.graphConfig = graphConfig
        self.registry = registry
        self.environment = environment
        self.workerPool = workerPool
        self.makeMQTTSink = makeMQTTSink
        self.report = report
    }

    /// Stops the camera: ends a blocked open or read at once, finishes the outputs, and makes
    /// `run()` return.
    func stop() {
        let run = status.withLock { s -> CurrentRun? in
            s.stopping = true
            return s.run
        }
        run?.runner.requestStop()
        wake.signal()
    }

    /// The camera's health now; `resetRates` (periodic reports) measures the rates over the
    /// interval that ends here and starts the next one.
    func health(resetRates: Bool) -> CameraHealth {
        status.withLock { s in Self.health(&s, camera: camera.name, paced: paced, resetRates: resetRates) }
    }

    /// Why the camera's graph file cannot run (it did not load or check), if so.
    var graphError: String? {
        if case .failure(let e) = graphConfig { return e.description }
        return nil
    }

    /// The nodes' statistics of the run in progress; empty between runs.
    func nodeStatistics() -> [NodeStatistics] {
        status.withLock { $0.run }?.graph.statistics.nodes ?? []
    }

    /// Whether frames the graph refuses are dropped (live or realtime) rather than retried.
    private var paced: Bool { camera.realtime || camera.source.contains("://") || camera.source.hasPrefix("/dev/") }

    private static func health(_ s: inout Status, camera: String, paced: Bool, resetRates: Bool) -> CameraHealth {
        var h = CameraHealth(
            camera: camera, state: s.state, framesIn: s.framesIn, framesOut: s.framesOut, dropped: s.dropped, reconnects: s.reconnects,
            lastError: s.lastError)
        if let run = s.run {
            let stats = run.graph.statistics
            let rejected = paced ? stats.framesRejected : 0
            h.framesIn += stats.packetsSent + rejected
            h.dropped += rejected + stats.droppedInQueues
            h.framesOut += run.framesOut.load(ordering: .relaxed)
        }
        if resetRates {
            let now = monotonicNanoseconds()
            let seconds = Double(now - s.reported.nanoseconds) / 1e9
            if seconds > 0 {
                s.rates = (Double(h.framesIn - s.reported.framesIn) / seconds, Double(h.framesOut - s.reported.framesOut) / seconds)
            }
            s.reported = (now, h.framesIn, h.framesOut)
        }
        (h.fpsIn, h.fpsOut) = s.rates
        return h
    }

    /// Moves to `state` (with `error` as the last error, if given) and reports it.
    private func enter(_ state: CameraHealth.State, error: String? = nil) {
        let h = status.withLock { s -> CameraHealth in
            s.state = state
            if let error { s.lastError = error }
            return Self.health(&s, camera: camera.name, paced: paced, resetRates: false)
        }
        report(h)
    }

    /// Runs the camera until `stop()` (or until it fails for good).
    func run() {
        let config: GraphConfig
        switch graphConfig {
        case .success(let c): config = c
        case .failure(let e):
            enter(.failed, error: e.description)
            return
        }
        var recording: CameraRecording?
        if camera.record != nil || camera.snapshots != nil {
            do { recording = try CameraRecording(camera: camera) } catch {
                enter(.failed, error: "camera '\(camera.name)': \(error)")
                return
            }
        }
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while !status.withLock({ $0.stopping }) {
            enter(.connecting)
            let started = monotonicNanoseconds()
            let outcome = runOnce(config, recording: recording)
            if status.withLock({ $0.stopping }) { break }
            let message: String
            switch outcome {
            case .failedForGood(let why):
                enter(.failed, error: why)
                return
            case .ended(let why, let frames):
                message = why
                let healthy = frames > 0 && Double(monotonicNanoseconds() - started) / 1e9 >= camera.reconnect.healthySeconds
                failures = healthy ? 1 : failures + 1
            }
            let delay = camera.reconnect.delay(afterFailures: failures, using: &random)
            enter(.backoff, error: message)
            _ = wake.wait(timeout: .now() + delay)
            if status.withLock({ $0.stopping }) { break }
            status.withLock { $0.reconnects += 1 }
        }
        enter(.stopped)
    }

    /// How one run ended.
    private enum Outcome {
        /// The source failed, stalled or ended (`why`) after `frames` frames: try again.
        case ended(String, frames: Int)
        /// The camera cannot run: do not try again.
        case failedForGood(String)
    }

    /// One run of the graph on a freshly opened source, its counts added to the totals.
    private func runOnce(_ config: GraphConfig, recording: CameraRecording?) -> Outcome {
        let graph: Graph
        do {
            graph = try Graph(config, registry: registry, environment: environment)
        } catch {
            return .failedForGood("\(error)")
        }
        guard let input = config.inputStreams.first?.name, config.inputStreams.count == 1 else {
            let where_ = config.file ?? camera.graph
            return .failedForGood("\(where_): a camera's graph needs exactly one input stream (it has \(config.inputStreams.count))")
        }
        var options = GraphRunner.Options()
        if let recording { options.onSourceOpened = { try recording.sourceOpened($0) } }
        options.inputs = [(nil, camera.source)]
        options.realtime = camera.realtime
        options.sidePackets = camera.sidePackets
        // Event times are Unix seconds: a graph that reads `time_base` gets the wall clock at
        // the start of each run, which also keeps event ids unique across reconnects (track
        // ids and timestamps start again in every run).
        let made = Set(config.nodes.flatMap { $0.outputSidePackets.map(\.name) })
        let read = Set(config.nodes.flatMap { $0.inputSidePackets.map(\.name) })
        // A graph that reads `camera` names its events by the camera (unless the file says otherwise).
        if camera.sidePackets[Self.cameraSidePacket] == nil, !made.contains(Self.cameraSidePacket), read.contains(Self.cameraSidePacket) {
            options.sidePackets[Self.cameraSidePacket] = camera.name
        }
        if camera.sidePackets[Self.timeBaseSidePacket] == nil, !made.contains(Self.timeBaseSidePacket), read.contains(Self.timeBaseSidePacket) {
            let base = (Date().timeIntervalSince1970 * 1000).rounded() / 1000
            options.sidePackets[Self.timeBaseSidePacket] = String(base)
            recording?.runStarted(timeBase: base)
        } else {
            // The camera's own time base (a side packet), if any, is what event times count from.
            recording?.runStarted(timeBase: camera.sidePackets[Self.timeBaseSidePacket].flatMap { Double($0) } ?? 0)
        }
        options.source.timeout = camera.stallSeconds
        options.workerPool = workerPool
        if config.nodes.contains(where: { $0.calculator == "FlowLimiterCalculator" }) {
            // GraphRunner leaves a self-throttling graph uncapped; in a fleet that falls behind,
            // frames would queue before the limiter without bound. A generous cap drops them at
            // the input instead (counted in `dropped`), far above what a graph keeping up holds.
            options.maxFramesInFlight = Self.throttledFramesInFlight
        }
        let run: CurrentRun
        do {
            // Outputs of the events streams the recording handles carry its has_clip/has_snapshot.
            let recorded = recording == nil ? [] : eventStreams
            for output in camera.outputs {
                let sink = try sink(for: output)
                if let recording, recorded.contains(output.stream) {
                    options.sinks.append((output.stream, FlaggedEventsSink(sink, recording: recording)))
                } else {
                    options.sinks.append((output.stream, sink))
                }
            }
            let counted = options.sinks.first?.stream ?? config.outputStreams.first?.name
            let first = FirstFrameFlag()
            let current = CurrentRun(graph: graph, runner: GraphRunner(graph: graph, options: options))
            try graph.observe(input) { [weak self] _ in
                if first.set() { self?.frameArrived() }
            }
            if let counted {
                try graph.observe(counted) { [current] _ in current.framesOut.add(1, ordering: .relaxed) }
            }
            if let recording { try observe(graph, for: recording) }
            try observeImages(graph, config: config, input: input)
            if let onEvents, Self.streams(of: config).contains(Self.eventsStream) {
                let name = camera.name
                try graph.observe(Self.eventsStream) { p in
                    if let events = try? p.get([ObjectEvent].self), !events.isEmpty { onEvents(name, events) }
                }
            }
            run = current
        } catch {
            return Self.isPermanent(error) ? .failedForGood("\(error)") : .ended("\(error)", frames: 0)
        }
        let proceed = status.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.run = run
            return true
        }
        guard proceed else { return .ended("stopped", frames: 0) }
        var failure: (any Error)?
        do { _ = try run.runner.run() } catch { failure = error }
        let summary = run.runner.lastSummary
        let framesIn = status.withLock { s -> Int in
            // The run's own counts replace the live ones in one step, so a report never
            // counts a frame twice or misses one.
            s.run = nil
            s.framesIn += summary?.framesIn ?? run.graph.statistics.packetsSent
            s.framesOut += run.framesOut.load(ordering: .relaxed)
            s.dropped += summary?.dropped ?? 0
            return summary?.framesIn ?? 0
        }
        recording?.runEnded()
        if let failure, Self.isPermanent(failure) { return .failedForGood("\(failure)") }
        var warnings = summary?.warnings ?? []
        if let e = recording?.takeError() { warnings.append("recording: \(e)") }
        let why = failure.map { "\($0)" } ?? (warnings.isEmpty ? "the source ended" : "the source ended: \(warnings.joined(separator: "; "))")
        return .ended(why, frames: framesIn)
    }

    /// The stream whose events (`[ObjectEvent]`) go to the fleet's `onEvents`.
    static let eventsStream = "events"

    /// Every stream a graph has: its inputs and its nodes' outputs.
    static func streams(of config: GraphConfig) -> Set<String> {
        Set(config.inputStreams.map(\.name) + config.nodes.flatMap { $0.outputStreams.map(\.name) })
    }

    /// The input side packet a camera's graph reads the time base of its events from.
    static let timeBaseSidePacket = "time_base"
    /// The input side packet a camera's graph reads the camera's name from.
    static let cameraSidePacket = "camera"

    /// The streams whose events the camera's recording handles.
    private var eventStreams: Set<String> {
        Set([camera.record?.eventsStream, camera.snapshots?.eventsStream].compactMap { $0 })
    }

    /// Sends the graph's events and snapshots to the camera's recording (once per stream).
    /// Registered before the runner's sinks, so each packet is handled before it is published.
    private func observe(_ graph: Graph, for recording: CameraRecording) throws {
        if let s = camera.snapshots {
            try graph.observe(s.stream) { p in
                if let list = try? p.get([ObjectSnapshot].self) { recording.snapshots(list) }
            }
        }
        for stream in eventStreams.sorted() {
            try graph.observe(stream) { p in
                if let events = try? p.get([ObjectEvent].self) { recording.events(events) }
            }
        }
    }

    /// Offers the images of the camera's `live_stream`, or else of the graph's outputs, then of
    /// its input, to the camera's tap.
    private func observeImages(_ graph: Graph, config: GraphConfig, input: String) throws {
        tap.runStarted()
        let streams = camera.liveStream.map { [$0] } ?? config.outputStreams.map(\.name).filter { $0 != input } + [input]
        for (rank, stream) in streams.enumerated() {
            try graph.observe(stream) { [tap] p in
                if let image = try? p.get(ImageFrame.self) { tap.offer(image, rank: rank) }
            }
        }
    }

    /// The first frame of a run came in.
    private func frameArrived() {
        let h = status.withLock { s -> CameraHealth? in
            guard s.state == .connecting, !s.stopping else { return nil }
            s.state = .running
            return Self.health(&s, camera: camera.name, paced: paced, resetRates: false)
        }
        if let h { report(h) }
    }

    /// The sink for `output` in this run: a new file that overwrites nothing, `null`, or MQTT.
    private func sink(for output: CameraOutput) throws -> any PacketSink {
        switch output.destination {
        case .null: return NullSink()
        case .mqtt:
            guard let makeMQTTSink else {
                throw FleetConfigError(
                    "camera '\(camera.name)': stream '\(output.stream)' goes to mqtt, but this fleet has no MQTT client", at: camera.location)
            }
            return try makeMQTTSink(camera.name, output.stream)
        case .file(let path): return try makeSink(Self.unusedPath(path), stream: output.stream)
        }
    }

    /// The frames in flight allowed to a camera whose graph has a `FlowLimiterCalculator`.
    static let throttledFramesInFlight = 16

    /// The first of `path`, `stem.1.ext`, `stem.2.ext`, … that does not exist.
    static func unusedPath(_ path: String) -> String {
        guard FileManager.default.fileExists(atPath: path) else { return path }
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        var n = 1
        while true {
            let candidate = ext.isEmpty ? "\(stem).\(n)" : "\(stem).\(n).\(ext)"
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
            n += 1
        }
    }

    /// Errors that another try cannot mend: the graph, its inputs, side packets and outputs
    /// do not fit together, or a node cannot open (a missing model or file: retrying would
    /// fail the same way until someone fetches it).
    static func isPermanent(_ error: any Error) -> Bool {
        switch error {
        case is FleetConfigError, is GraphErrors: return true
        case let e as GraphError where e.kind == .calculatorFailed && e.message.hasPrefix("open failed"): return true
        case let e as GraphError:
            return ![.calculatorFailed, .cancelled, .timestampOrder, .invalidTimestamp, .closed, .invalidState].contains(e.kind)
        case let e as MediaError: return [.invalidArgument, .unsupportedOutput, .noDisplay].contains(e.kind)
        default: return false
        }
    }
}

/// The run in progress: its graph (for live counts), its runner (to stop it) and its output
/// count. `@unchecked Sendable`: `GraphRunner.requestStop` is atomic, and `run()` is only
/// called by the camera's own thread.
private final class CurrentRun: @unchecked Sendable {
    let graph: Graph
    let runner: GraphRunner
    let framesOut = Atomic<Int>(0)
    init(graph: Graph, runner: GraphRunner) {
        self.graph = graph
        self.runner = runner
    }
}

/// True once: whether this call was the first.
private final class FirstFrameFlag: Sendable {
    private let seen = Atomic<Bool>(false)
    func set() -> Bool { !seen.exchange(true, ordering: .relaxed) }
}
