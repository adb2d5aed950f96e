import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport

/// `frameflow-bench fleet`'s motion rows: what motion gating saves on static and mostly static
/// scenes. Cameras are graphs on one shared `WorkerPool` (one thread per core), each fed in real
/// time at 15 fps by its own thread (a frame that cannot be sent in time is skipped, as a live
/// camera's). Two scenes, 320 × 240, cut from vtest.avi's first frame (no one in that part) with
/// Gaussian sensor noise (σ 2, 64 noise fields):
///   - static: nobody, the light slowly brightening by up to 24 levels and back (a 40 s loop);
///   - mostly static: a person (cut from the same frame) walking across for 3 s of every 30.
/// Cameras start at different points of the loop. Two graphs: Graphs/people_detection_hog.pbtxt
/// (ungated: the HOG detector on every frame it can take) and
/// Graphs/people_detection_hog_gated.pbtxt (motion-gated).
///
///   - CPU per camera: process CPU time (getrusage, user + system) over the run ÷ cameras, one
///     camera, ungated and gated in alternating rounds (median and spread); each run lasts one
///     whole loop of its scene, so the share of frames with a person is the scene's.
///   - Cameras sustained (mostly static scene): the largest count at which every camera's
///     frames come out at ≥ 14 fps and each detector takes ≥ 95 % of the frames meant for it
///     (ungated: every frame; gated: every frame the gate allows).
enum MotionGateRow {
    static let fps = 15.0
    static let width = 320, height = 240

    /// A scene's frames: `loop` frames built from noisy stills, lit, and the walking person.
    struct Scene {
        var name: String
        /// Frames in one loop.
        var loop: Int
        /// Frame `t` of the loop (0 ≤ t < loop).
        var make: @Sendable (Int) -> ImageFrame
        /// Frame `n` of camera `camera`'s loop (cameras start 97 frames apart).
        func frame(_ n: Int, camera: Int) -> ImageFrame { make((n + camera * 97) % loop) }
    }

    /// The two scenes from vtest.avi's first frame (`.build/fixtures/hog/vtest_000.ppm`).
    static func scenes(repoRoot: URL) -> (still: Scene, walker: Scene)? {
        let path = repoRoot.appendingPathComponent(".build/fixtures/hog/vtest_000.ppm").path
        let header = "P6\n768 576\n255\n"
        guard let data = FileManager.default.contents(atPath: path), data.count == header.utf8.count + 768 * 576 * 3 else { return nil }
        let src = [UInt8](data.dropFirst(header.utf8.count))
        func px(_ x: Int, _ y: Int, _ c: Int) -> Int { Int(src[(y * 768 + x) * 3 + c]) }
        var rng = SplitMix64(seed: 47)
        let normals = (0..<8192).map { _ in  // Box–Muller, σ 2
            2 * (-2 * log(Double.random(in: 1e-12...1, using: &rng))).squareRoot() * cos(2 * Double.pi * Double.random(in: 0..<1, using: &rng))
        }
        /// The background at (305, 0) (people in that frame stand at x 232…305 and 622…719),
        /// the person at (232, 190, 73 × 145), walking at `personX` (nil: absent), `light`
        /// levels brighter, with noise.
        func make(personX: Int?, light: Int, seed: UInt64) -> ImageFrame? {
            var bytes = [UInt8](repeating: 0, count: width * height * 3)
            var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var v = px(min(305 + x, 767), y, c)
                        if let p = personX, x >= p, x < p + 73, y >= 60, y < 205 { v = px(232 + x - p, 190 + y - 60, c) }
                        s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        let n = Double(v + light) + normals[Int(s >> 51)]
                        bytes[(y * width + x) * 3 + c] = UInt8(clamping: Int(saturating: n.rounded()))
                    }
                }
            }
            let buffer = ImageBuffer(byteCount: bytes.count)
            bytes.withUnsafeBytes { buffer.baseAddress.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            return try? ImageFrame(
                width: width, height: height, format: .rgb8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: width * 3, rows: height)])
        }
        let still = (0..<64).compactMap { make(personX: nil, light: 0, seed: UInt64($0)) }
        let walking = (0..<45).compactMap { make(personX: -73 + $0 * 9, light: 0, seed: UInt64(1000 + $0)) }
        // 300 frames (20 s) brightening one level every 12.5 frames; the loop plays them forth and back.
        let ramp = (0..<300).compactMap { make(personX: nil, light: $0 * 24 / 300, seed: UInt64(2000 + $0)) }
        guard still.count == 64, walking.count == 45, ramp.count == 300 else { return nil }
        return (
            Scene(name: "static", loop: 600) { t in ramp[t < 300 ? t : 599 - t] },
            Scene(name: "mostly static", loop: 450) { t in t < walking.count ? walking[t] : still[t % still.count] }
        )
    }

    /// One run's figures.
    struct Result {
        var cameras: Int
        var cpuPerCamera: Double  // fraction of one core
        var minFPSOut: Double
        var minDetectorShare: Double  // frames detected ÷ frames meant for the detector
        var detectorFraction: Double  // frames detected ÷ frames in, all cameras
        var errors: [String]
        var sustained: Bool { minFPSOut >= 14 && minDetectorShare >= 0.95 && errors.isEmpty }
    }

    /// Counts packets of one stream after `start`.
    final class Counter: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var counts: [Bool: Int] = [:]
        var counting = false
        func add(_ value: Bool = true) {
            lock.lock()
            if counting { counts[value, default: 0] += 1 }
            lock.unlock()
        }
        func count(_ value: Bool = true) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return counts[value] ?? 0
        }
        func start() {
            lock.lock()
            counting = true
            lock.unlock()
        }
        func stop() {
            lock.lock()
            counting = false
            lock.unlock()
        }
    }

    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }

    /// `cameras` cameras of `graphPath` for `seconds` (measured after the first second).
    static func run(cameras: Int, seconds: Double, graphPath: String, gated: Bool, scene: Scene, pool: WorkerPool) -> Result {
        var graphs: [Graph] = []
        var outs: [Counter] = [], detected: [Counter] = [], meant: [Counter] = [], sent: [Counter] = []
        var errors: [String] = []
        for _ in 0..<cameras {
            do {
                let g = try Graph(
                    contentsOfFile: graphPath, registry: .standard, environment: GraphEnvironment(resourceRoots: [repoRoot.path]))
                let (o, d, m, s) = (Counter(), Counter(), Counter(), Counter())
                try g.observe("output_video") { _ in o.add() }
                try g.observe(gated ? "people" : "detections") { _ in d.add() }
                if gated { try g.observe("run_detector") { p in m.add((try? p.get(Bool.self)) ?? false) } }
                try g.start(on: pool)
                graphs.append(g)
                outs.append(o)
                detected.append(d)
                meant.append(m)
                sent.append(s)
            } catch {
                errors.append("\(error)")
            }
        }
        guard errors.isEmpty else {
            return Result(cameras: cameras, cpuPerCamera: 0, minFPSOut: 0, minDetectorShare: 0, detectorFraction: 0, errors: errors)
        }
        let stop = Counter()
        let period = 1 / fps
        let t0 = Date()
        let feeders = graphs.enumerated().map { c, g in
            let counter = sent[c]
            let thread = Thread {
                var n = 0
                while stop.count() == 0 {
                    let due = t0.addingTimeInterval(Double(n) * period)
                    let wait = due.timeIntervalSinceNow
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                    if wait < -period {  // behind: skip the frames that are already late
                        n += Int(-wait / period)
                        continue
                    }
                    do { try g.send(scene.frame(n, camera: c), to: "input_video", at: Timestamp(Int64(n) * Int64(saturating: 1e6 / fps))) } catch {
                        break
                    }
                    counter.add()
                    n += 1
                }
            }
            thread.start()
            return thread
        }
        _ = feeders
        Thread.sleep(forTimeInterval: 1)
        for c in outs + detected + meant + sent { c.start() }
        let cpu0 = cpuSeconds()
        let w0 = Date()
        Thread.sleep(forTimeInterval: seconds - 1)
        let elapsed = Date().timeIntervalSince(w0)
        let cpu = cpuSeconds() - cpu0
        for c in outs + detected + meant + sent { c.stop() }
        stop.add()
        for g in graphs {
            try? g.closeAllInputStreams()
            try? g.waitUntilDone()
        }
        var minOut = Double.infinity, minShare = Double.infinity
        var totalDetected = 0, totalSent = 0
        for c in 0..<cameras {
            minOut = min(minOut, Double(outs[c].count()) / elapsed)
            let asked = gated ? meant[c].count(true) : sent[c].count()
            minShare = min(minShare, asked == 0 ? 1 : Double(detected[c].count()) / Double(asked))
            totalDetected += detected[c].count()
            totalSent += sent[c].count()
        }
        return Result(
            cameras: cameras, cpuPerCamera: cpu / elapsed / Double(cameras), minFPSOut: minOut, minDetectorShare: minShare,
            detectorFraction: totalSent == 0 ? 0 : Double(totalDetected) / Double(totalSent), errors: errors)
    }

    static func measure(repoRoot: URL, quick: Bool, rounds: Int) {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        print(
            "\n(ii) Motion-gated people detection: cameras on one \(threads)-thread pool, each a 320×240 scene at 15 fps in real time (vtest.avi still + noise: static with a lighting ramp; mostly static with a person 3 s in 30)"
        )
        guard FileManager.default.fileExists(atPath: repoRoot.appendingPathComponent(".build/fixtures/hog/hog_people_default.xml").path),
            let both = scenes(repoRoot: repoRoot)
        else {
            print("  the HOG fixtures are missing (scripts/setup.sh bench)")
            return
        }
        let (still, walker) = both
        let ungatedPath = repoRoot.appendingPathComponent("Graphs/people_detection_hog.pbtxt").path
        let gatedPath = repoRoot.appendingPathComponent("Graphs/people_detection_hog_gated.pbtxt").path
        let pool = WorkerPool(threads: threads, name: "frameflow.motion")
        defer { pool.shutdown() }
        _ = run(cameras: 1, seconds: 2, graphPath: gatedPath, gated: true, scene: walker, pool: pool)  // warm-up
        // (a) CPU per camera, one camera, alternating rounds; the static scene over half its loop
        // (the ramp up and the turn), the mostly static one over a whole loop (30 s).
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        for (scene, seconds) in [(still, quick ? 10.0 : 21.0), (walker, 31.0)] {
            var ungatedCPU: [Double] = [], gatedCPU: [Double] = [], fraction: [Double] = []
            for _ in 0..<(quick ? 1 : max(rounds, 1)) {
                let u = run(cameras: 1, seconds: seconds, graphPath: ungatedPath, gated: false, scene: scene, pool: pool)
                let g = run(cameras: 1, seconds: seconds, graphPath: gatedPath, gated: true, scene: scene, pool: pool)
                for r in [u, g] where !r.errors.isEmpty { print("  errors: \(r.errors.prefix(2))") }
                ungatedCPU.append(u.cpuPerCamera)
                gatedCPU.append(g.cpuPerCamera)
                fraction.append(g.detectorFraction)
            }
            let ratios = zip(gatedCPU, ungatedCPU).map { $0 / max($1, 1e-9) }
            print(
                String(
                    format:
                        "  CPU per camera, %@ scene (%.0f s): gated %.1f %% of a core, ungated %.1f %%; ratio %.3f (spread %.3f…%.3f, %d rounds); detector on %.1f %% of gated frames",
                    scene.name, seconds - 1, 100 * median(gatedCPU), 100 * median(ungatedCPU), median(ratios), ratios.min() ?? 0,
                    ratios.max() ?? 0, ratios.count, 100 * median(fraction)))
        }
        let scene = walker
        // (b) cameras sustained, each graph.
        var sustained: [Bool: Int] = [:]
        for gated in [false, true] {
            var k = 1
            var best = 0
            let maxCameras = quick ? 16 : 128
            while k <= maxCameras {
                let r = run(cameras: k, seconds: quick ? 3 : 5, graphPath: gated ? gatedPath : ungatedPath, gated: gated, scene: scene, pool: pool)
                print(
                    String(
                        format: "  %@ %3d cameras: fps out ≥ %.1f, detector took ≥ %.0f %% of its frames, CPU %.1f %% of a core per camera%@",
                        gated ? "gated  " : "ungated", k, r.minFPSOut, 100 * r.minDetectorShare, 100 * r.cpuPerCamera,
                        r.errors.isEmpty ? "" : " (errors: \(r.errors.prefix(2)))"))
                guard r.sustained else { break }
                best = k
                k = k < 8 ? k * 2 : k + 8
            }
            sustained[gated] = best
        }
        let u = sustained[false] ?? 0, g = sustained[true] ?? 0
        print(
            String(
                format: "  cameras sustained (every camera ≥ 14 fps out, detector ≥ 95 %% of its frames): gated %d, ungated %d (%@) on %d cores", g,
                u,
                u > 0 ? String(format: "%.1f×", Double(g) / Double(u)) : "ungated sustains none", threads))
    }
}
