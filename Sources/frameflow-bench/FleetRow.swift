import Foundation
import FrameFlow
import FrameFlowFleet
import FrameFlowMedia
import FrameFlowML
import FrameFlowTestSupport

/// `frameflow-bench fleet`: how many cameras one process keeps at their frame rate on this
/// machine. A `FleetRunner` (what `frameflow fleet` runs) with k cameras, each
/// `testsrc:640x480@15` played in real time (FFmpeg's testsrc is not live by itself), running
/// Graphs/face_detection_desktop_live.pbtxt (its FlowLimiterCalculator lets the detector
/// take the newest frame), all on one shared `WorkerPool` of one thread per core, all
/// holding one face detection model (`ModelCache`).
///
/// For k = 1, 2, 4, … cameras at once: frames in per second (the slowest camera), frames
/// out (`output_video`) and frames the detector takes (`throttled_input_video`) per second
/// (the slowest camera), and the process's resident memory mid-run. Cameras sustained: the
/// largest k with no camera below 14 fps in and every detector at ≥ 14 runs/s. Memory per
/// camera: the least-squares slope of resident memory over the sustained sizes.
enum FleetRow {
    /// One fleet size's measurement.
    struct Result {
        var cameras: Int
        var minFPSIn: Double
        var minFPSOut: Double
        var minDetectorFPS: Double
        var rssMB: Double
        var errors: [String]
    }

    /// Runs a fleet of `cameras` cameras (`FleetRunner`, as `frameflow fleet` does) for
    /// `seconds` on `pool`; rates are measured after the first second (opening, warm-up).
    static func run(cameras: Int, seconds: Double, graphPath: String, registry: CalculatorRegistry, pool: WorkerPool) -> Result {
        let detectorSinks = Locked<[String: NullSink]>([:])
        let config = FleetConfig(
            cameras: (0..<cameras).map { i in
                CameraConfig(
                    name: "cam\(i)", source: "testsrc:640x480@15", graph: graphPath,
                    outputs: [CameraOutput(stream: "throttled_input_video", destination: .mqtt)])  // the frames the detector takes
            })
        var options = FleetRunner.Options()
        options.workerPool = pool
        options.environment = GraphEnvironment(resourceRoots: [repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path])
        options.healthInterval = 3600
        options.duration = seconds
        options.makeMQTTSink = { camera, _ in  // counts instead of publishing
            let sink = NullSink()
            detectorSinks.withLock { $0[camera] = sink }
            return sink
        }
        let errors = Locked<[String]>([])
        let fleet = FleetRunner(config: config, registry: registry, options: options) { h in
            if h.state == .failed || h.state == .backoff { errors.withLock { $0.append("\(h.camera): \(h.lastError ?? "\(h.state)")") } }
        }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            fleet.run()
            done.signal()
        }
        thread.stackSize = 1 << 21
        thread.start()
        func detections() -> [String: Int] { detectorSinks.withLock { $0.mapValues(\.count) } }
        usleep(1_000_000)
        let t0 = monotonicNanoseconds()
        let first = fleet.health()
        let firstDetections = detections()
        usleep(UInt32(saturating: (seconds - 1.5) * 1e6))
        let elapsed = Double(monotonicNanoseconds() - t0) / 1e9
        let last = fleet.health()
        let lastDetections = detections()
        let rss = Double(residentBytes()) / 1_048_576
        done.wait()
        var minIn = Double.infinity, minOut = Double.infinity, minDetector = Double.infinity
        for (a, b) in zip(first, last) {
            minIn = min(minIn, Double(b.framesIn - a.framesIn) / elapsed)
            minOut = min(minOut, Double(b.framesOut - a.framesOut) / elapsed)
            minDetector = min(minDetector, Double((lastDetections[b.camera] ?? 0) - (firstDetections[b.camera] ?? 0)) / elapsed)
        }
        return Result(cameras: cameras, minFPSIn: minIn, minFPSOut: minOut, minDetectorFPS: minDetector, rssMB: rss, errors: errors.withLock { $0 })
    }

    /// The row: fleet sizes up to the first that falls below 14 fps in (or `maxCameras`).
    static func measure(repoRoot: URL, quick: Bool) {
        let root = repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path
        let graphPath = repoRoot.appendingPathComponent("Graphs/face_detection_desktop_live.pbtxt").path
        let threads = ProcessInfo.processInfo.activeProcessorCount
        print(
            "\n(i) Fleet: cameras on one \(threads)-thread pool, each testsrc 640×480 at 15 fps in real time → face_detection_desktop_live (one shared model)"
        )
        guard FileManager.default.fileExists(atPath: root + "/mediapipe/modules/face_detection/face_detection_short_range.tflite") else {
            print("  MediaPipe's modules missing (scripts/setup.sh test)")
            return
        }
        let registry: CalculatorRegistry
        do { registry = try CalculatorRegistry.withML() } catch {
            print("  registry: \(error)")
            return
        }
        let pool = WorkerPool(threads: threads, name: "frameflow.fleet")
        defer { pool.shutdown() }
        let seconds = quick ? 4.0 : 8.0
        _ = run(cameras: 1, seconds: 3, graphPath: graphPath, registry: registry, pool: pool)  // warm-up: model, pools
        var results: [Result] = []
        var k = 1
        let maxCameras = quick ? 8 : 64
        while k <= maxCameras {
            let r = run(cameras: k, seconds: seconds, graphPath: graphPath, registry: registry, pool: pool)
            results.append(r)
            print(
                String(
                    format: "  %2d cameras: fps in ≥ %.1f, fps out ≥ %.1f, detector ≥ %.1f runs/s per camera, RSS %.0f MB%@", k, r.minFPSIn,
                    r.minFPSOut, r.minDetectorFPS, r.rssMB, r.errors.isEmpty ? "" : " (errors: \(r.errors.prefix(2)))"))
            if r.minFPSIn < 14 || r.minDetectorFPS < 10 || !r.errors.isEmpty { break }
            k = k < 4 ? k * 2 : k + 4
        }
        // Sustained: every camera read at ≥ 14 fps and its detector keeping up (≥ 14 runs/s).
        // Past that, fps in holds for a while but frames queue before the flow limiter and
        // memory grows with the backlog, which is not a state a fleet can stay in.
        let kept = results.filter { $0.minFPSIn >= 14 && $0.minDetectorFPS >= 14 && $0.errors.isEmpty }
        let sustained = kept.map(\.cameras).max() ?? 0
        let points = kept.map { (Double($0.cameras), $0.rssMB) }
        var slope = 0.0
        if points.count >= 2 {
            let mx = points.map(\.0).reduce(0, +) / Double(points.count)
            let my = points.map(\.1).reduce(0, +) / Double(points.count)
            let sxy = points.reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
            let sxx = points.reduce(0) { $0 + ($1.0 - mx) * ($1.0 - mx) }
            slope = sxx > 0 ? sxy / sxx : 0
        }
        print(
            String(
                format:
                    "  cameras sustained (no camera below 14 fps in, every detector ≥ 14 runs/s): %d on %d cores; memory per added camera: %.1f MB (RSS slope)",
                sustained,
                threads, slope))
    }
}
