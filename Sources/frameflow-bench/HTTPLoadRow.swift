import Foundation
import FrameFlow
import FrameFlowFleet
import FrameFlowHTTP
import FrameFlowML
import FrameFlowTestSupport
import Synchronization

/// `frameflow-bench http`: issue 48's load check. A fleet (`FleetRunner` with `FleetAPI` on
/// an `HTTPServer`, as `frameflow fleet --http` runs it) of cameras playing the hand clip
/// (looped by ffmpeg, stream copy) in real time through
/// Graphs/face_detection_desktop_live.pbtxt, all on one worker pool of a thread per core.
///
/// Rounds alternate phase A (no HTTP client) and phase B (the load, on loopback): `viewers`
/// MJPEG readers of the first camera, one reader that asks for the stream and never reads,
/// and a client pacing `rate` GET /api/cameras per second on keep-alive connections. Per
/// camera, the processing rate (frames out of the graph per second) in A and B and their
/// ratio; frames each MJPEG reader got; requests per second achieved and their latency
/// (p50, p99); resident memory at the start, middle and end of each B. Medians over rounds
/// with their spread (min–max).
enum HTTPLoadRow {
    struct Settings {
        var seconds: Double
        var rounds: Int
        var cameras: Int
        var viewers: Int
        var rate: Double
    }

    /// One B phase's load figures.
    struct LoadResult {
        var framesPerViewer: [Int] = []
        /// `frameflow_camera_viewers` of cam0 at the start, middle and end of the phase.
        var viewersSeen: [Int] = []
        var requests = 0
        /// Seconds the load ran (the clients stop at 95 % of the phase, after the last sample).
        var activeSeconds = 1.0
        var failures = 0
        var latenciesMs: [Double] = []
        var rss: [Int] = []
    }

    static func measure(_ s: Settings) {
        print(
            "\n(j) HTTP load: \(s.cameras) cameras (hand clip in real time → face_detection_desktop_live) on one "
                + "\(ProcessInfo.processInfo.activeProcessorCount)-thread pool; B adds \(s.viewers) MJPEG viewers of cam0, "
                + "a stalled viewer and \(Int(s.rate)) req/s on /api/cameras; \(s.rounds) rounds of A \(Int(s.seconds)) s, B \(Int(s.seconds)) s")
        let clipSource = repoRoot.appendingPathComponent("Tests/Fixtures/mediapipe/hand_clip.mp4").path
        let modules = repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path
        guard FileManager.default.fileExists(atPath: modules + "/mediapipe/modules/face_detection/face_detection_short_range.tflite") else {
            print("  MediaPipe's modules missing (scripts/setup.sh test)")
            return
        }
        // The clip (6 s) looped past the whole run, without re-encoding.
        let total = (s.seconds * 2 * Double(s.rounds) + 10)
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-bench-http-\(getpid()).mp4")
        defer { try? FileManager.default.removeItem(at: clip) }
        guard
            runTool(
                "ffmpeg", ["-v", "error", "-y", "-stream_loop", "\(Int(total / 6) + 1)", "-i", clipSource, "-c", "copy", clip.path])
                != nil
        else {
            print("  ffmpeg could not loop \(clipSource)")
            return
        }
        let registry: CalculatorRegistry
        do { registry = try CalculatorRegistry.withML() } catch {
            print("  registry: \(error)")
            return
        }
        let graph = repoRoot.appendingPathComponent("Graphs/face_detection_desktop_live.pbtxt").path
        let config = FleetConfig(
            cameras: (0..<s.cameras).map { CameraConfig(name: "cam\($0)", source: clip.path, graph: graph, realtime: true) })
        let pool = WorkerPool(name: "frameflow.fleet")
        var options = FleetRunner.Options()
        options.workerPool = pool
        options.environment = GraphEnvironment(resourceRoots: [modules])
        options.healthInterval = 3600
        options.keepRunning = true
        let fleet = FleetRunner(config: config, registry: registry, options: options) { _ in }
        // The load comes from one address: the per-client limits are raised to let it in.
        var http = HTTPServer.Options()
        http.maxConnections = s.viewers + 64
        http.maxConnectionsPerClient = s.viewers + 64
        http.requestsPerSecond = max(1000, s.rate * 2)
        http.burst = max(1000, s.rate * 2)
        let server = HTTPServer(options: http)
        FleetAPI(fleet: fleet, config: config, token: nil).install(on: server)
        do { try server.start() } catch {
            print("  http: \(error)")
            return
        }
        let finished = DispatchSemaphore(value: 0)
        let runner = Thread {
            fleet.run()
            finished.signal()
        }
        runner.stackSize = 1 << 21
        runner.start()
        defer {
            server.stop()
            fleet.stop()
            finished.wait()
            pool.shutdown()
        }
        usleep(3_000_000)  // open, load the model, warm up

        var ratesA: [[Double]] = [], ratesB: [[Double]] = []
        var loads: [LoadResult] = []
        for round in 0..<s.rounds {
            ratesA.append(processingRates(fleet, seconds: s.seconds) {})
            var load = LoadResult()
            ratesB.append(
                processingRates(fleet, seconds: s.seconds) {
                    load = generateLoad(port: server.port, s)
                })
            loads.append(load)
            let a = ratesA[round], b = ratesB[round]
            print(
                String(
                    format: "  round %d: fps out A %@  B %@  | viewers' frames min %d max %d, %.0f req/s, p50 %.2f ms p99 %.2f ms, %d failed",
                    round + 1, a.map { String(format: "%.2f", $0) }.joined(separator: "/"),
                    b.map { String(format: "%.2f", $0) }.joined(separator: "/"),
                    load.framesPerViewer.min() ?? 0, load.framesPerViewer.max() ?? 0, Double(load.requests) / load.activeSeconds,
                    percentile(load.latenciesMs, 0.5), percentile(load.latenciesMs, 0.99), load.failures))
        }
        // Per camera: the median over rounds of B / A, and its spread.
        var worst = Double.infinity
        for c in 0..<s.cameras {
            let ratios = (0..<s.rounds).map { ratesB[$0][c] / ratesA[$0][c] }
            worst = min(worst, median(ratios))
            print(
                String(
                    format: "  cam%d: fps out A %.2f, B %.2f (medians); B/A %.3f (%.3f–%.3f)", c, median(ratesA.map { $0[c] }),
                    median(ratesB.map { $0[c] }), median(ratios), ratios.min() ?? 0, ratios.max() ?? 0))
        }
        let frames = loads.flatMap(\.framesPerViewer)
        let rps = loads.map { Double($0.requests) / $0.activeSeconds }
        let p50 = loads.map { percentile($0.latenciesMs, 0.5) }, p99 = loads.map { percentile($0.latenciesMs, 0.99) }
        let growth = loads.map { $0.rss.count == 3 ? Double($0.rss[2] - $0.rss[1]) : .nan }
        print(
            String(
                format:
                    "  MJPEG: %d viewers got %d–%d frames per phase (median %.0f); viewers counted by the server at 10 %% / 50 %% / 95 %% of B: %@",
                s.viewers, frames.min() ?? 0, frames.max() ?? 0, median(frames.map(Double.init)),
                loads.map { $0.viewersSeen.map(String.init).joined(separator: "/") }.joined(separator: ", ")))
        print(
            String(
                format: "  /api/cameras: %.1f req/s (%.1f–%.1f), p50 %.2f ms (%.2f–%.2f), p99 %.2f ms (%.2f–%.2f), %d failed",
                median(rps), rps.min() ?? 0, rps.max() ?? 0, median(p50), p50.min() ?? 0, p50.max() ?? 0, median(p99), p99.min() ?? 0,
                p99.max() ?? 0, loads.map(\.failures).reduce(0, +)))
        for (i, l) in loads.enumerated() where l.rss.count == 3 {
            print(
                String(
                    format: "  RSS round %d (B start / middle / end): %d / %d / %d bytes; end − middle %+d bytes", i + 1, l.rss[0], l.rss[1],
                    l.rss[2], l.rss[2] - l.rss[1]))
        }
        print(
            String(
                format: "  verdict: slowest camera B/A %.3f (%@ at 5 %%); RSS end − middle median %+.0f bytes", worst,
                worst >= 0.95 ? "pass" : "FAIL", median(growth.filter { !$0.isNaN })))
    }

    /// Each camera's frames out per second while `during` runs (at least `seconds`).
    static func processingRates(_ fleet: FleetRunner, seconds: Double, during: () -> Void) -> [Double] {
        let first = fleet.health()
        let t0 = monotonicNanoseconds()
        during()
        let left = seconds - Double(monotonicNanoseconds() - t0) / 1e9
        if left > 0 { usleep(UInt32(saturating: left * 1e6)) }
        let elapsed = Double(monotonicNanoseconds() - t0) / 1e9
        let last = fleet.health()
        return zip(first, last).map { Double($1.framesOut - $0.framesOut) / elapsed }
    }

    /// Runs the load for `s.seconds` and returns what it saw.
    static func generateLoad(port: Int, _ s: Settings) -> LoadResult {
        let started = monotonicNanoseconds()
        let stop = StopFlag()
        let group = DispatchGroup()
        let frames = Locked<[Int]>([])
        let stalled = connectSocket(port: port)
        if let fd = stalled {
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            sendAll(fd, "GET /api/cameras/cam0/mjpeg HTTP/1.1\r\nHost: bench\r\n\r\n")
        }
        for _ in 0..<s.viewers {
            group.enter()
            Thread.detachNewThread {
                let n = readMJPEG(port: port, stop: stop)
                frames.withLock { $0.append(n) }
                group.leave()
            }
        }
        // The API client: two keep-alive connections, each pacing half the rate.
        let api = Locked<(requests: Int, failures: Int, latencies: [Double])>((0, 0, []))
        let clients = s.rate > 0 ? 2 : 0
        for _ in 0..<clients {
            group.enter()
            Thread.detachNewThread {
                let r = pacedRequests(port: port, rate: s.rate / Double(clients), seconds: s.seconds, stop: stop)
                api.withLock {
                    $0.requests += r.requests
                    $0.failures += r.failures
                    $0.latencies += r.latencies
                }
                group.leave()
            }
        }
        var result = LoadResult()
        for share in [0.1, 0.4, 0.45] {
            usleep(UInt32(saturating: share * s.seconds * 1e6))
            result.rss.append(residentBytes())
            result.viewersSeen.append(viewers(port: port) ?? -1)
        }
        result.activeSeconds = Double(monotonicNanoseconds() - started) / 1e9
        stop.set()
        group.wait()
        if let fd = stalled { close(fd) }
        let a = api.withLock { $0 }
        result.framesPerViewer = frames.withLock { $0 }.sorted()
        result.requests = a.requests
        result.failures = a.failures
        result.latenciesMs = a.latencies
        return result
    }

    /// Reads an MJPEG stream until `stop`; the parts it got.
    static func readMJPEG(port: Int, stop: StopFlag) -> Int {
        guard let fd = connectSocket(port: port) else { return 0 }
        defer { close(fd) }
        sendAll(fd, "GET /api/cameras/cam0/mjpeg HTTP/1.1\r\nHost: bench\r\n\r\n")
        let marker = Array("--frameflow-frame\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var carry: [UInt8] = []
        var parts = 0
        while !stop.isSet {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { break }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                break
            }
            // Count boundaries, also one split between two reads.
            let window = carry + buffer[0..<n]
            var i = 0
            while i + marker.count <= window.count {
                if window[i] == marker[0] && window[i..<(i + marker.count)].elementsEqual(marker) {
                    parts += 1
                    i += marker.count
                } else {
                    i += 1
                }
            }
            carry = Array(window.suffix(marker.count - 1))
        }
        return parts
    }

    /// GET /api/cameras at `rate` per second on one keep-alive connection (reconnecting if
    /// the server closes it) until `stop` or `seconds`.
    static func pacedRequests(port: Int, rate: Double, seconds: Double, stop: StopFlag) -> (
        requests: Int, failures: Int, latencies: [Double]
    ) {
        var latencies: [Double] = []
        latencies.reserveCapacity(Int(rate * seconds) + 16)
        var failures = 0
        var fd: Int32? = nil
        let request = "GET /api/cameras HTTP/1.1\r\nHost: bench\r\n\r\n"
        let t0 = monotonicNanoseconds()
        var k = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stop.isSet {
            let due = t0 + UInt64(saturating: Double(k) / rate * 1e9)
            let now = monotonicNanoseconds()
            if due > now { usleep(UInt32((due - now) / 1000)) }
            if Double(monotonicNanoseconds() - t0) / 1e9 >= seconds { break }
            k += 1
            if fd == nil { fd = connectSocket(port: port) }
            guard let s = fd else {
                failures += 1
                continue
            }
            let start = monotonicNanoseconds()
            sendAll(s, request)
            if readResponse(s, &buffer) {
                latencies.append(Double(monotonicNanoseconds() - start) / 1e6)
            } else {
                failures += 1
                close(s)
                fd = nil
            }
        }
        if let s = fd { close(s) }
        return (latencies.count, failures, latencies)
    }

    /// Reads one response with a 200 status and a Content-Length body; false otherwise.
    static func readResponse(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var got: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return false }
            got += buffer[0..<n]
            guard let headerEnd = got.firstRange(of: end) else { continue }
            let head = String(decoding: got[..<headerEnd.lowerBound], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 200") else { return false }
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if got.count - headerEnd.upperBound >= length { return true }
        }
    }

    /// cam0's `frameflow_camera_viewers` from /metrics.
    static func viewers(port: Int) -> Int? {
        guard let fd = connectSocket(port: port) else { return nil }
        defer { close(fd) }
        sendAll(fd, "GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        var got = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            got.append(contentsOf: buffer[0..<n])
        }
        let prefix = "frameflow_camera_viewers{camera=\"cam0\"} "
        let line = String(decoding: got, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    /// Tells the load's threads to end.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    static func connectSocket(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func sendAll(_ fd: Int32, _ text: String) {
        _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let v = values.sorted()
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let v = values.sorted()
        return v[min(v.count - 1, Int(saturating: (Double(v.count - 1) * p).rounded()))]
    }
}
