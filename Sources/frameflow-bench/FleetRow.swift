import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowML

/// `frameflow-bench fleet`: how many cameras one process keeps at their frame rate on this
/// machine. Each camera is a `GraphRunner` on `testsrc:640x480@15` played in real time
/// (`realtime` paces it; FFmpeg's testsrc is not live by itself), running
/// Graphs/face_detection_desktop_live.pbtxt (its FlowLimiterCalculator lets the detector
/// take the newest frame), all on one shared `WorkerPool` of one thread per core, all
/// holding one face detection model (`ModelCache`).
///
/// For k = 1, 2, 4, … cameras at once: frames in per second (the slowest camera), frames
/// out (`output_video`) and frames the detector takes (`throttled_input_video`) per second
/// (the slowest camera), and the process's resident memory mid-run. Cameras sustained: the largest k with no camera below 14 fps in. Memory per
/// camera: the least-squares slope of resident memory over k.
enum FleetRow {
    /// Counts the packets a stream delivers.
    final class CountingSink: PacketSink, @unchecked Sendable {  // written by one graph thread at a time
        let count = AtomicCounter()
        func write(_ packet: Packet) throws { count.add(1) }
        func finish() throws {}
    }

    /// One fleet size's measurement.
    struct Result {
        var cameras: Int
        var minFPSIn: Double
        var minFPSOut: Double
        var minDetectorFPS: Double
        var rssMB: Double
        var errors: [String]
    }

    /// Resident memory of this process, in megabytes.
    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// Runs `cameras` cameras for `seconds` on `pool`.
    static func run(cameras: Int, seconds: Double, graphText: String, registry: CalculatorRegistry, pool: WorkerPool) -> Result {
        let frames = Int(15 * seconds)
        struct Camera: @unchecked Sendable {  // the runner is used by its own thread only
            var runner: GraphRunner
            var detections: CountingSink
        }
        var fleet: [Camera] = []
        var errors: [String] = []
        for _ in 0..<cameras {
            do {
                let graph = try Graph(GraphConfig(parsing: graphText, file: "face_detection_desktop_live.pbtxt"), registry: registry)
                var options = GraphRunner.Options()
                options.inputs = [(nil, "testsrc:640x480@15")]
                options.realtime = true
                options.frames = frames
                options.workerPool = pool
                let sink = CountingSink()
                options.sinks = [("throttled_input_video", sink)]  // the frames the detector takes
                fleet.append(Camera(runner: GraphRunner(graph: graph, options: options), detections: sink))
            } catch {
                errors.append("\(error)")
            }
        }
        let summaries = Locked<[Int: GraphRunner.Summary]>([:])
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        for (i, camera) in fleet.enumerated() {
            done.enter()
            let thread = Thread {
                do {
                    let s = try camera.runner.run()
                    summaries.withLock { $0[i] = s }
                } catch {
                    failures.withLock { $0.append("camera \(i): \(error)") }
                }
                done.leave()
            }
            thread.stackSize = 1 << 21
            thread.start()
        }
        // Resident memory once every camera has warmed up (half the run).
        usleep(UInt32(seconds * 500_000))
        let rss = residentMegabytes()
        done.wait()
        let all = summaries.withLock { $0 }
        errors += failures.withLock { $0 }
        var minIn = Double.infinity, minOut = Double.infinity, minDetector = Double.infinity
        for (i, camera) in fleet.enumerated() {
            guard let s = all[i], s.seconds > 0 else { continue }
            minIn = min(minIn, Double(s.framesIn) / s.seconds)
            minOut = min(minOut, Double(s.framesOut) / s.seconds)
            minDetector = min(minDetector, Double(camera.detections.count.current) / s.seconds)
        }
        return Result(cameras: cameras, minFPSIn: minIn, minFPSOut: minOut, minDetectorFPS: minDetector, rssMB: rss, errors: errors)
    }

    /// The row: fleet sizes up to the first that falls below 14 fps in (or `maxCameras`).
    static func measure(repoRoot: URL, quick: Bool) {
        let root = repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path
        let graphPath = repoRoot.appendingPathComponent("Graphs/face_detection_desktop_live.pbtxt").path
        let threads = ProcessInfo.processInfo.activeProcessorCount
        print(
            "\n(i) Fleet: cameras on one \(threads)-thread pool, each testsrc 640×480 at 15 fps in real time → face_detection_desktop_live (one shared model)"
        )
        guard FileManager.default.fileExists(atPath: root + "/mediapipe/modules/face_detection/face_detection_short_range.tflite"),
            let graphText = try? String(contentsOfFile: graphPath, encoding: .utf8)
        else {
            print("  MediaPipe's modules missing (scripts/setup.sh test)")
            return
        }
        ResourcePaths.root = root
        defer { ResourcePaths.root = nil }
        let registry: CalculatorRegistry
        do { registry = try CalculatorRegistry.withML() } catch {
            print("  registry: \(error)")
            return
        }
        let pool = WorkerPool(threads: threads, name: "frameflow.fleet")
        defer { pool.shutdown() }
        let seconds = quick ? 4.0 : 8.0
        _ = run(cameras: 1, seconds: 2, graphText: graphText, registry: registry, pool: pool)  // warm-up: model, pools
        var results: [Result] = []
        var k = 1
        let maxCameras = quick ? 8 : 64
        while k <= maxCameras {
            let r = run(cameras: k, seconds: seconds, graphText: graphText, registry: registry, pool: pool)
            results.append(r)
            print(
                String(
                    format: "  %2d cameras: fps in ≥ %.1f, fps out ≥ %.1f, detector ≥ %.1f runs/s per camera, RSS %.0f MB%@", k, r.minFPSIn,
                    r.minFPSOut, r.minDetectorFPS, r.rssMB, r.errors.isEmpty ? "" : " (errors: \(r.errors.prefix(2)))"))
            if r.minFPSIn < 14 || !r.errors.isEmpty { break }
            k = k < 4 ? k * 2 : k + 4
        }
        let sustained = results.filter { $0.minFPSIn >= 14 && $0.errors.isEmpty }.map(\.cameras).max() ?? 0
        // Memory over the sizes sustained: past them, frames queue up and memory grows with the backlog.
        let points = results.filter { $0.minFPSIn >= 14 && $0.errors.isEmpty }.map { (Double($0.cameras), $0.rssMB) }
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
                format: "  cameras sustained (no camera below 14 fps in): %d on %d cores; memory per added camera: %.1f MB (RSS slope)", sustained,
                threads, slope))
    }
}
