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
        /// The default settings.
        public init() {}
    }

    /// The cameras this process runs (the shard's), in file order.
    public let cameras: [CameraConfig]
    private let supervisors: [CameraSupervisor]
    private let options: Options
    private let onHealth: @Sendable (CameraHealth) -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let pool: WorkerPool
    private let ownsPool: Bool

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
        pool = options.workerPool ?? WorkerPool(name: "frameflow.fleet")
        ownsPool = options.workerPool == nil
        let pool = pool
        cameras = options.shard.select(config.cameras)
        var loaded: [String: Result<GraphConfig, FleetConfigError>] = [:]
        supervisors = cameras.map { camera in
            let graph =
                loaded[camera.graph]
                ?? {
                    do {
                        let limits = camera.environment(over: options.environment).limits
                        return .success(try GraphConfig(contentsOfFile: camera.graph, registry: registry, limits: limits))
                    } catch let e as GraphError where (e.location?.line ?? 0) > 0 {
                        return .failure(FleetConfigError("camera '\(camera.name)': \(e.message)", at: e.location))
                    } catch let e as GraphError {
                        return .failure(FleetConfigError("camera '\(camera.name)': \(camera.graph): \(e.message)", at: nil))
                    } catch {
                        return .failure(FleetConfigError("camera '\(camera.name)': \(error)", at: nil))
                    }
                }()
            loaded[camera.graph] = graph
            return CameraSupervisor(
                camera: camera, graphConfig: graph, registry: registry, environment: camera.environment(over: options.environment),
                workerPool: pool, makeMQTTSink: options.makeMQTTSink, report: report)
        }
    }

    /// Runs every camera until `stop()` or `options.duration`, or until every camera has
    /// failed; returns each camera's final health, in `cameras` order.
    @discardableResult
    public func run() -> [CameraHealth] {
        let group = DispatchGroup()
        for s in supervisors {
            group.enter()
            Thread.detachNewThread { [wake] in
                s.run()
                group.leave()
                wake.signal()
            }
        }
        let started = monotonicNanoseconds()
        var nextReport = monotonicNanoseconds(after: options.healthInterval, from: started)
        let deadline = options.duration.map { monotonicNanoseconds(after: $0, from: started) }
        while group.wait(timeout: .now()) == .timedOut {
            let now = monotonicNanoseconds()
            if let deadline, now >= deadline { stop() }
            if now >= nextReport {
                for s in supervisors { onHealth(s.health(resetRates: true)) }
                nextReport = monotonicNanoseconds(after: options.healthInterval, from: now)
            }
            if stopping.load(ordering: .relaxed) {
                group.wait()
                break
            }
            let until = min(nextReport, deadline ?? UInt64.max)
            let wait = until > now ? until - now : 0
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, 1_000_000_000))))
        }
        if ownsPool { pool.shutdown() }
        return health()
    }

    /// Stops every camera (ends blocked reads, finishes outputs); `run()` then returns.
    /// Safe from any thread, any number of times.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        for s in supervisors { s.stop() }
        wake.signal()
    }

    deinit {
        if ownsPool { pool.shutdown() }
    }

    /// Every camera's health now, in `cameras` order.
    public func health() -> [CameraHealth] { supervisors.map { $0.health(resetRates: false) } }
}
