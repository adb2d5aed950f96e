import FrameFlow
import FrameFlowMedia
import Foundation
import Synchronization

/// Runs a fleet: every camera of a `FleetConfig` (or of one `Shard` of it) with its own graph,
/// in one process, until `stop()` or the duration ends.
///
/// Each camera has its own thread, graph run, timestamps, flow limiting and counts
/// (`CameraSupervisor`); the graphs' nodes run on one shared `WorkerPool`, which takes work
/// from the cameras in rotation, and cameras running the same model file share one loaded
/// model (`ModelCache`, in `InferenceCalculator`). A camera whose source fails, stalls or ends is reconnected with
/// backoff while the others go on. Health (`CameraHealth`) goes to `onHealth` every
/// `healthInterval` seconds for every camera, and at once when a camera changes state.
///
/// ```swift
/// let fleet = try FleetRunner(config: FleetConfig(contentsOfFile: "cameras.fleet"), registry: .standard) { health in
///     print(health.jsonLine)
/// }
/// let final = fleet.run()     // returns after stop() (Ctrl-C) or options.duration
/// ```
public final class FleetRunner: Sendable {
    /// Makes the sink publishing one camera's output stream (an MQTT client's), per run.
    public typealias MQTTSinkFactory = @Sendable (_ camera: String, _ stream: String) throws -> any PacketSink

    /// How the fleet runs.
    public struct Options: Sendable {
        /// Seconds between two rounds of health reports.
        public var healthInterval: Double = 5
        /// Stop after this many seconds; nil: until `stop()`.
        public var duration: Double?
        /// Which cameras of the file this process runs (`--shard I/N`).
        public var shard: Shard = .all
        /// Makes the sinks of outputs written `to: "mqtt"`; without one such outputs fail
        /// their camera.
        public var makeMQTTSink: MQTTSinkFactory?
        /// The workers every camera's graph runs on, served in rotation so that no camera
        /// starves; nil: the fleet makes one (a thread per core) and shuts it down when
        /// `run()` returns.
        public var workerPool: WorkerPool?
        /// What every camera's graph runs with, before the camera's own `resource_root` and
        /// `max_image_pixels`.
        public var environment = GraphEnvironment()
        /// Keep running when every camera has ended or failed, and with no camera at all
        /// (cameras may be added later, as over HTTP), until `stop()` or `duration`.
        public var keepRunning = false
        /// Receives the events of every camera whose graph has a stream named `events`
        /// (`[ObjectEvent]`), from the graphs' threads.
        public var onEvents: (@Sendable (_ camera: String, _ events: [ObjectEvent]) -> Void)?
        /// The default settings.
        public init() {}
    }

    /// The cameras this process runs now: the shard's, in file order, then those added.
    public var cameras: [CameraConfig] { live.withLock { $0.entries.map(\.supervisor.camera) } }
    /// Which cameras of the file this process runs (`Options.shard`).
    public var shard: Shard { options.shard }
    private let live = Mutex(Live())
    private let options: Options
    private let registry: CalculatorRegistry
    private let onHealth: @Sendable (CameraHealth) -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let pool: WorkerPool
    private let ownsPool: Bool

    /// The cameras now and whether `run()` has started their threads.
    private struct Live {
        var entries: [Entry] = []
        var started = false
        /// `run()` has returned: nothing more starts.
        var ended = false
    }

    /// One camera's supervisor and the end of its thread.
    private final class Entry: Sendable {
        let supervisor: CameraSupervisor
        let finished = DispatchSemaphore(value: 0)
        let threadStarted = Atomic<Bool>(false)
        init(_ supervisor: CameraSupervisor) { self.supervisor = supervisor }
    }

    /// Prepares the fleet: loads each camera's graph file (one that does not load makes that
    /// camera `failed`, not the fleet).
    ///
    /// - Parameters:
    ///   - config: the fleet file.
    ///   - registry: where the graphs' calculators and subgraphs are looked up.
    ///   - options: health interval, duration, shard, MQTT.
    ///   - onHealth: receives every health report; called from several threads, one report at
    ///     a time.
    public init(
        config: FleetConfig, registry: CalculatorRegistry, options: Options = Options(),
        onHealth: @escaping @Sendable (CameraHealth) -> Void
    ) {
        let serial = Mutex<Void>(())
        let report: @Sendable (CameraHealth) -> Void = { h in serial.withLock { _ in onHealth(h) } }
        self.onHealth = report
        self.options = options
        self.registry = registry
        pool = options.workerPool ?? WorkerPool(name: "frameflow.fleet")
        ownsPool = options.workerPool == nil
        var loaded: [String: Result<GraphConfig, FleetConfigError>] = [:]
        var entries: [Entry] = []
        for camera in options.shard.select(config.cameras) {
            let graph = loaded[camera.graph] ?? Self.loadGraph(for: camera, registry: registry, environment: options.environment)
            loaded[camera.graph] = graph
            entries.append(Entry(makeSupervisor(camera, graph: graph)))
        }
        live.withLock { $0.entries = entries }
    }

    /// `camera`'s graph file, loaded and checked, or the error that makes the camera `failed`.
    private static func loadGraph(
        for camera: CameraConfig, registry: CalculatorRegistry, environment: GraphEnvironment
    ) -> Result<GraphConfig, FleetConfigError> {
        do {
            let limits = camera.environment(over: environment).limits
            return .success(try GraphConfig(contentsOfFile: camera.graph, registry: registry, limits: limits))
        } catch let e as GraphError where (e.location?.line ?? 0) > 0 {
            return .failure(FleetConfigError("camera '\(camera.name)': \(e.message)", at: e.location))
        } catch let e as GraphError {
            return .failure(FleetConfigError("camera '\(camera.name)': \(camera.graph): \(e.message)", at: nil))
        } catch {
            return .failure(FleetConfigError("camera '\(camera.name)': \(error)", at: nil))
        }
    }

    /// `graph` unless `camera`'s `live_stream` is not one of its streams (graphs are shared
    /// between cameras, the live stream is the camera's own).
    private static func check(_ graph: Result<GraphConfig, FleetConfigError>, for camera: CameraConfig) -> Result<GraphConfig, FleetConfigError> {
        guard case .success(let config) = graph, let chosen = camera.liveStream, !CameraSupervisor.streams(of: config).contains(chosen) else {
            return graph
        }
        return .failure(FleetConfigError("camera '\(camera.name)': live_stream '\(chosen)' is not a stream of \(camera.graph)", at: camera.location))
    }

    private func makeSupervisor(_ camera: CameraConfig, graph: Result<GraphConfig, FleetConfigError>) -> CameraSupervisor {
        CameraSupervisor(
            camera: camera, graphConfig: Self.check(graph, for: camera), registry: registry,
            environment: camera.environment(over: options.environment),
            workerPool: pool, makeMQTTSink: options.makeMQTTSink, onEvents: options.onEvents, report: onHealth)
    }

    /// Starts `entry`'s camera on a thread of its own (once).
    private func launch(_ entry: Entry) {
        guard !entry.threadStarted.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { [wake] in
            entry.supervisor.run()
            entry.finished.signal()
            wake.signal()
        }
    }

    /// Runs every camera until `stop()` or `options.duration`, or until every camera has
    /// failed (unless `options.keepRunning`); returns each camera's final health, in `cameras`
    /// order.
    @discardableResult
    public func run() -> [CameraHealth] {
        let first = live.withLock { l -> [Entry] in
            l.started = true
            return l.entries
        }
        if stopping.load(ordering: .relaxed) { first.forEach { $0.supervisor.stop() } }
        first.forEach(launch)
        let started = monotonicNanoseconds()
        var nextReport = monotonicNanoseconds(after: options.healthInterval, from: started)
        let deadline = options.duration.map { monotonicNanoseconds(after: $0, from: started) }
        while true {
            let now = monotonicNanoseconds()
            if let deadline, now >= deadline { stop() }
            let entries = live.withLock { $0.entries }
            if stopping.load(ordering: .relaxed) { break }
            if !options.keepRunning, entries.allSatisfy({ Self.hasEnded($0) }) { break }
            if now >= nextReport {
                for e in entries { onHealth(e.supervisor.health(resetRates: true)) }
                nextReport = monotonicNanoseconds(after: options.healthInterval, from: now)
            }
            let until = min(nextReport, deadline ?? UInt64.max)
            let wait = until > now ? until - now : 0
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, 1_000_000_000))))
        }
        // From here nothing is added; every camera thread ends before the pool does.
        let all = live.withLock { l -> [Entry] in
            l.ended = true
            return l.entries
        }
        for e in all where e.threadStarted.load(ordering: .relaxed) {
            e.supervisor.stop()
            e.finished.wait()
            e.finished.signal()
        }
        if ownsPool { pool.shutdown() }
        return health()
    }

    /// Whether `entry`'s thread has ended (without consuming the signal).
    private static func hasEnded(_ entry: Entry) -> Bool {
        guard entry.finished.wait(timeout: .now()) == .success else { return false }
        entry.finished.signal()
        return true
    }

    /// Stops every camera (ends blocked reads, finishes outputs); `run()` then returns.
    /// Safe from any thread, any number of times.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        for e in live.withLock({ $0.entries }) { e.supervisor.stop() }
        wake.signal()
    }

    deinit {
        if ownsPool { pool.shutdown() }
    }

    /// Every camera's health now, in `cameras` order.
    public func health() -> [CameraHealth] { live.withLock { $0.entries }.map { $0.supervisor.health(resetRates: false) } }

    /// One camera's health now; nil if the fleet has no camera `name`.
    public func health(of name: String) -> CameraHealth? {
        live.withLock { l in l.entries.first { $0.supervisor.camera.name == name } }?.supervisor.health(resetRates: false)
    }

    /// Whether every camera's graph file loaded and checked (the cameras can run); the names
    /// and errors of those whose did not.
    public func graphProblems() -> [(camera: String, error: String)] {
        live.withLock { $0.entries }.compactMap { e in e.supervisor.graphError.map { (e.supervisor.camera.name, $0) } }
    }

    /// The nodes' statistics of each camera's run in progress (empty for a camera between
    /// runs): calls, busy time and queue depths, for metrics.
    public func nodeStatistics() -> [(camera: String, nodes: [NodeStatistics])] {
        live.withLock { $0.entries }.map { ($0.supervisor.camera.name, $0.supervisor.nodeStatistics()) }
    }

    /// Camera `name`'s latest image (`FrameTap`); nil if the fleet has no such camera. A
    /// restarted camera has a new tap: look it up again rather than keeping it.
    public func frameTap(of name: String) -> FrameTap? {
        live.withLock { l in l.entries.first { $0.supervisor.camera.name == name } }?.supervisor.tap
    }

    /// The workers the cameras' graphs run on.
    public var workerPool: WorkerPool { pool }

    /// Adds `camera` to the running fleet (or to those `run()` will start): its graph file is
    /// loaded now, and it starts at once if the fleet is running. The others are untouched.
    ///
    /// - Throws: `FleetConfigError` if its graph file does not load or check, if the fleet
    ///   already has a camera of that name, or if it writes a file another camera writes.
    public func add(_ camera: CameraConfig) throws {
        let graph = Self.check(Self.loadGraph(for: camera, registry: registry, environment: options.environment), for: camera)
        if case .failure(let e) = graph { throw e }
        let entry = Entry(makeSupervisor(camera, graph: graph))
        let start = try live.withLock { l -> Bool in
            if l.ended { throw FleetConfigError("the fleet has stopped: camera '\(camera.name)' was not added", at: camera.location) }
            if l.entries.contains(where: { $0.supervisor.camera.name == camera.name }) {
                throw FleetConfigError("the fleet already has a camera named '\(camera.name)'", at: camera.location)
            }
            let files = Set(camera.outputs.compactMap(\.filePath))
            if let other = l.entries.first(where: { !files.isDisjoint(with: $0.supervisor.camera.outputs.compactMap(\.filePath)) }) {
                throw FleetConfigError(
                    "camera '\(camera.name)': an output file is also written by camera '\(other.supervisor.camera.name)'", at: camera.location)
            }
            l.entries.append(entry)
            return l.started
        }
        if stopping.load(ordering: .relaxed) { entry.supervisor.stop() }
        if start { launch(entry) }
        wake.signal()
    }

    /// Removes camera `name`: stops it, waits for its thread to end (its outputs finished) and
    /// returns its last health; nil if the fleet has no such camera. The others are untouched.
    @discardableResult
    public func remove(_ name: String) -> CameraHealth? {
        let entry = live.withLock { l -> Entry? in
            guard let i = l.entries.firstIndex(where: { $0.supervisor.camera.name == name }) else { return nil }
            return l.entries.remove(at: i)
        }
        guard let entry else { return nil }
        entry.supervisor.stop()
        if entry.threadStarted.load(ordering: .relaxed) {
            entry.finished.wait()
            entry.finished.signal()
        }
        wake.signal()
        return entry.supervisor.health(resetRates: false)
    }

    /// Restarts camera `name`: stops it, reloads its graph file and starts it again in the
    /// same place (its counts start again from zero). Returns false if there is no such camera.
    @discardableResult
    public func restart(_ name: String) -> Bool {
        let old = live.withLock { l in l.entries.first { $0.supervisor.camera.name == name } }
        guard let old else { return false }
        old.supervisor.stop()
        if old.threadStarted.load(ordering: .relaxed) {
            old.finished.wait()
            old.finished.signal()
        }
        let camera = old.supervisor.camera
        let entry = Entry(makeSupervisor(camera, graph: Self.loadGraph(for: camera, registry: registry, environment: options.environment)))
        let start = live.withLock { l -> Bool? in
            guard !l.ended, let i = l.entries.firstIndex(where: { $0 === old }) else { return nil }  // removed meanwhile, or the fleet ended
            l.entries[i] = entry
            return l.started
        }
        guard let start else { return false }
        if stopping.load(ordering: .relaxed) { entry.supervisor.stop() }
        if start { launch(entry) }
        wake.signal()
        return true
    }
}
