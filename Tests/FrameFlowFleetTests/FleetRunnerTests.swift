import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import Synchronization
import Testing

@testable import FrameFlowFleet

/// Whole fleets on loopback: servers started here, counted here.
@Suite(.serialized) struct FleetRunnerTests {
    /// Eight cameras: three real clips and four `testsrc` patterns served over HTTP, and one
    /// looping clip whose server is killed and restarted mid-run. The killed camera comes back;
    /// the other seven read every frame their servers sent.
    @Test func oneCameraIsKilledAndComesBackTheOthersLoseNothing() throws {
        let dir = try temporaryFolder("fleet-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let clip = RepositoryFiles.fixture("mediapipe/hand_clip.mp4")
        let clipFrames = try ffprobeFrameCount(clip)
        let patternFrames = 120
        var servers: [(name: String, server: StreamServer, frames: Int)] = []
        for i in 0..<3 {
            servers.append(("clip\(i)", try StreamServer(port: try LoopbackPort.free(), input: ["-i", clip], codec: ["-c", "copy"]), clipFrames))
        }
        for i in 0..<4 {
            let input = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=30", "-frames:v", "\(patternFrames)"]
            servers.append(
                ("pattern\(i)", try StreamServer(port: try LoopbackPort.free(), input: input, codec: ["-c:v", "mpeg2video"]), patternFrames))
        }
        let flaky = try StreamServer(port: try LoopbackPort.free(), input: ["-stream_loop", "-1", "-i", clip], codec: ["-c", "copy"])
        defer {
            flaky.kill()
            for s in servers { s.server.kill() }
        }
        var text = """
            defaults { graph: "pass.pbtxt" stall_seconds: 5 reconnect { initial_seconds: 0.1 max_seconds: 0.3 } }

            """
        for s in servers { text += "camera { name: \"\(s.name)\" source: \"\(s.server.url)\" }\n" }
        text += "camera { name: \"flaky\" source: \"\(flaky.url)\" output { stream: \"output_video\" to: \"flaky.jsonl\" } }\n"
        let file = dir.appendingPathComponent("site.fleet").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)

        let log = HealthLog()
        var options = FleetRunner.Options()
        options.healthInterval = 0.5
        let runner = FleetRunner(config: try FleetConfig(contentsOfFile: file), registry: .standard, options: options) { log.record($0) }
        #expect(runner.cameras.count == 8)
        let fleet = RunningFleet(runner)
        defer { fleet.stop() }
        let now = fleet.now

        // Kill the flaky camera's server once frames flow, start it again once the camera noticed.
        #expect(eventually(within: 20) { now("flaky").framesIn >= 20 })
        flaky.kill()
        let atKill = now("flaky").framesIn
        #expect(eventually(within: 10) { now("flaky").state != .running })
        try flaky.start()
        #expect(
            eventually(within: 20) {
                let h = now("flaky"); return h.state == .running && h.framesIn >= atKill + 20
            })
        #expect(now("flaky").reconnects >= 1)

        // The others: every frame their servers sent.
        for s in servers {
            #expect(eventually(within: 30) { now(s.name).framesIn >= s.frames }, "\(s.name): \(now(s.name))")
        }
        let final = fleet.stop()
        for s in servers {
            let h = try #require(final.first { $0.camera == s.name })
            #expect(h.framesIn == s.frames, "\(s.name): \(h)")
            #expect(h.framesOut + h.dropped == h.framesIn, "\(s.name): \(h)")
            #expect(h.state == .stopped)
        }
        let f = try #require(final.first { $0.camera == "flaky" })
        #expect(f.reconnects >= 1)
        #expect(f.framesIn > atKill)
        // Each run wrote its own file; together they hold every frame out.
        let outputs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("flaky") && $0.hasSuffix(".jsonl") }
        #expect(outputs.contains("flaky.jsonl") && outputs.contains("flaky.1.jsonl"), "\(outputs)")
        let lines = try outputs.reduce(0) { n, name in
            n + (try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)).split(separator: "\n").count
        }
        #expect(lines == f.framesOut)
        // The health log saw it leave `running` and come back.
        let states = log.of("flaky").map(\.state)
        let firstRunning = try #require(states.firstIndex(of: .running), "\(states)")
        let leftAt = try #require(states[firstRunning...].firstIndex { $0 == .backoff }, "\(states)")
        #expect(states[leftAt...].contains(.running), "\(states)")
    }

    /// A server that accepts and sends nothing: the camera times out after `stall_seconds`,
    /// backs off and tries again, and says why.
    @Test func aStalledSourceIsReconnected() throws {
        let server = try SilentServer()
        defer { server.stop() }
        let dir = try temporaryFolder("fleet-stall")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let text = """
            camera { name: "mute" source: "http://127.0.0.1:\(server.port)/live.ts" graph: "pass.pbtxt"
                     stall_seconds: 0.5 reconnect { initial_seconds: 0.05 max_seconds: 0.1 } }
            """
        let config = try FleetConfig(text: text, file: dir.appendingPathComponent("s.fleet").path)
        let log = HealthLog()
        let fleet = RunningFleet(FleetRunner(config: config, registry: .standard) { log.record($0) })
        defer { fleet.stop() }
        let started = Date()
        #expect(eventually(within: 10) { fleet.now("mute").reconnects >= 2 && server.connections >= 3 })
        // Two stalls of 0.5 s each came before the second reconnect.
        #expect(Date().timeIntervalSince(started) >= 1.0)
        let h = fleet.now("mute")
        #expect(h.framesIn == 0)
        #expect(h.lastError?.contains("no answer for 0.5 s") == true, "\(h)")
        #expect(log.of("mute").contains { $0.state == .backoff })
        #expect(!log.of("mute").contains { $0.state == .running })
    }

    /// A stream that stops in the middle (the server keeps the connection but sends no more):
    /// the frames sent are read, then the read times out and the camera backs off.
    @Test func aStreamThatStopsMidwayIsReconnected() throws {
        let dir = try temporaryFolder("fleet-midway")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let ts = dir.appendingPathComponent("clip.ts")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        make.arguments = [
            "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=30", "-frames:v", "90", "-c:v", "mpeg2video", "-g", "10", "-f", "mpegts",
            ts.path,
        ]
        try make.run()
        make.waitUntilExit()
        let bytes = try Data(contentsOf: ts)
        // The HTTP answer and the first half of the stream, then silence.
        let server = try SilentServer(prefix: Data("HTTP/1.0 200 OK\r\nContent-Type: video/mp2t\r\n\r\n".utf8) + bytes.prefix(bytes.count / 2))
        defer { server.stop() }
        let text = """
            camera { name: "half" source: "http://127.0.0.1:\(server.port)/live.ts" graph: "pass.pbtxt"
                     stall_seconds: 0.5 reconnect { initial_seconds: 5 max_seconds: 5 } }
            """
        let log = HealthLog()
        let config = try FleetConfig(text: text, file: dir.appendingPathComponent("h.fleet").path)
        let fleet = RunningFleet(FleetRunner(config: config, registry: .standard) { log.record($0) })
        defer { fleet.stop() }
        #expect(eventually(within: 10) { fleet.now("half").state == .backoff })
        let h = fleet.now("half")
        #expect(h.framesIn > 10 && h.framesIn <= 45, "\(h)")
        // MediaSource ends an input whose read times out mid-stream with a warning.
        #expect(h.lastError?.contains("input ended early") == true, "\(h)")
        #expect(log.of("half").map(\.state).contains(.running))
    }

    /// A camera whose graph file is broken fails, naming the file and line; the others run.
    @Test func aBadGraphFailsItsCameraOnly() throws {
        let dir = try temporaryFolder("fleet-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        try "input_stream: \"in\"\noutput_stream: \"out\"\nnode { calculator: \"NoSuchCalculator\" input_stream: \"in\" output_stream: \"out\" }\n"
            .write(to: dir.appendingPathComponent("bad.pbtxt"), atomically: true, encoding: .utf8)
        try "input_stream: \"in\"\nnode {\n  calculator: \n".write(to: dir.appendingPathComponent("broken.pbtxt"), atomically: true, encoding: .utf8)
        let text = """
            camera { name: "bad" source: "testsrc:64x48@30" graph: "bad.pbtxt" }
            camera { name: "broken" source: "testsrc:64x48@30" graph: "broken.pbtxt" }
            camera { name: "good" source: "testsrc:64x48@30" graph: "pass.pbtxt" realtime: false reconnect { initial_seconds: 60 max_seconds: 60 } }
            """
        let config = try FleetConfig(text: text, file: dir.appendingPathComponent("b.fleet").path)
        let fleet = RunningFleet(FleetRunner(config: config, registry: .standard) { _ in })
        defer { fleet.stop() }
        // testsrc lasts 10 s at 30 fps: 300 frames, read as fast as they decode.
        #expect(eventually(within: 30) { fleet.now("good").state == .backoff })
        let final = fleet.stop()
        #expect(final[0].state == .failed)
        #expect(final[0].lastError?.contains("bad.pbtxt:3") == true, "\(final[0])")
        #expect(final[0].lastError?.contains("NoSuchCalculator") == true, "\(final[0])")
        #expect(final[1].state == .failed)
        #expect(final[1].lastError?.contains("broken.pbtxt:4") == true, "\(final[1])")
        #expect(final[2].state == .stopped)
        #expect(final[2].framesIn == 10 * 30)
        #expect(final[2].framesOut == 10 * 30)
        #expect(final[2].lastError == "the source ended")
    }

    /// Periodic reports give the rate of their interval: a 30 fps pattern played in real time
    /// reads about 30 frames a second.
    @Test func periodicReportsMeasureTheFrameRate() throws {
        let dir = try temporaryFolder("fleet-rate")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let config = try FleetConfig(
            text: "camera { name: \"p\" source: \"testsrc:32x32@30\" graph: \"pass.pbtxt\" }", file: dir.appendingPathComponent("r.fleet").path)
        let log = HealthLog()
        var options = FleetRunner.Options()
        options.healthInterval = 0.5
        let fleet = RunningFleet(FleetRunner(config: config, registry: .standard, options: options) { log.record($0) })
        defer { fleet.stop() }
        #expect(eventually(within: 20) { log.of("p").filter { $0.state == .running }.count >= 5 })
        fleet.stop()
        let running = log.of("p").filter { $0.state == .running }
        let last = try #require(running.last)
        #expect(last.fpsIn > 20 && last.fpsIn < 40, "\(running.map(\.fpsIn))")
        #expect(last.fpsOut > 20 && last.fpsOut < 40, "\(running.map(\.fpsOut))")
        // The first report (the first frame) comes before any interval has been measured.
        #expect(running.first?.fpsIn == 0)
    }

    /// Every camera's graph runs on the one pool given (here a single worker thread), and a
    /// pool the caller owns outlives the fleet: a second fleet runs on it too.
    @Test func camerasShareTheGivenWorkerPool() throws {
        let dir = try temporaryFolder("fleet-pool")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.replacingOccurrences(of: "PassThroughCalculator", with: "ThreadProbeCalculator")
            .write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let registry = CalculatorRegistry.standard.adding([ThreadProbeCalculator.self])
        let text = (0..<4).map {
            "camera { name: \"c\($0)\" source: \"testsrc:32x32@30\" graph: \"pass.pbtxt\" realtime: false reconnect { initial_seconds: 60 max_seconds: 60 } }"
        }.joined(separator: "\n")
        let config = try FleetConfig(text: text, file: dir.appendingPathComponent("p.fleet").path)
        let pool = WorkerPool(threads: 1, name: "fleet-test")
        defer { pool.shutdown() }
        var options = FleetRunner.Options()
        options.workerPool = pool
        for _ in 0..<2 {
            ThreadProbeCalculator.threads.withLock { $0 = [] }
            let fleet = RunningFleet(FleetRunner(config: config, registry: registry, options: options) { _ in })
            defer { fleet.stop() }
            #expect(eventually(within: 30) { fleet.fleet.health().allSatisfy { $0.state == .backoff } })
            // testsrc: 10 s at 30 fps, every frame through (files are not dropped).
            #expect(fleet.stop().map(\.framesOut) == [300, 300, 300, 300])
            // One worker ran every camera's nodes (pools of their own would use 4 × cores).
            #expect(ThreadProbeCalculator.threads.withLock { $0.count } == 1)
        }
    }

    /// `--shard I/N` over N processes runs every camera exactly once.
    @Test(arguments: [1, 2, 3, 8])
    func shardsCoverEveryCameraOnce(count: Int) throws {
        let text = (0..<8).map { "camera { name: \"c\($0)\" source: \"testsrc\" graph: \"g.pbtxt\" }" }.joined(separator: "\n")
        let config = try FleetConfig(text: text)
        var seen: [String] = []
        for i in 0..<count {
            var options = FleetRunner.Options()
            options.shard = try Shard(index: i, count: count)
            seen += FleetRunner(config: config, registry: .standard, options: options) { _ in }.cameras.map(\.name)
        }
        #expect(seen.sorted() == (0..<8).map { "c\($0)" })
    }

    /// A running fleet takes cameras, restarts and removes them; names stay unique, a graph
    /// that does not load is refused, and nothing is added once the fleet has ended.
    @Test func camerasChangeWhileTheFleetRuns() throws {
        let dir = try temporaryFolder("fleet-live")
        defer { try? FileManager.default.removeItem(at: dir) }
        let graph = dir.appendingPathComponent("pass.pbtxt").path
        try passThroughGraph.write(toFile: graph, atomically: true, encoding: .utf8)
        var options = FleetRunner.Options()
        options.keepRunning = true
        let runner = FleetRunner(config: FleetConfig(cameras: []), registry: .standard, options: options) { _ in }
        let fleet = RunningFleet(runner)
        defer { fleet.stop() }
        let a = CameraConfig(name: "a", source: "testsrc:64x48@30", graph: graph)
        try runner.add(a)
        try runner.add(CameraConfig(name: "b", source: "testsrc:64x48@30", graph: graph))
        #expect(throws: FleetConfigError.self) { try runner.add(a) }
        #expect(throws: FleetConfigError.self) { try runner.add(CameraConfig(name: "c", source: "testsrc", graph: graph + ".none")) }
        #expect(runner.cameras.map(\.name) == ["a", "b"])
        #expect(eventually(within: 20) { (runner.health(of: "a")?.framesIn ?? 0) >= 10 })
        #expect(runner.restart("a"))
        #expect(!runner.restart("zz"))
        #expect(eventually(within: 20) { (runner.health(of: "a")?.framesIn ?? 0) >= 5 })
        let bBefore = runner.health(of: "b")?.framesIn ?? 0
        let last = try #require(runner.remove("a"))
        #expect(last.state == .stopped)
        #expect(runner.remove("a") == nil)
        #expect(runner.cameras.map(\.name) == ["b"])
        #expect(eventually(within: 20) { (runner.health(of: "b")?.framesIn ?? 0) > bBefore + 5 })
        let final = fleet.stop()
        #expect(final.map(\.camera) == ["b"] && final[0].state == .stopped)
        #expect(throws: FleetConfigError.self) { try runner.add(CameraConfig(name: "d", source: "testsrc", graph: graph)) }
    }
}

/// Passes packets through and notes the thread each call ran on.
final class ThreadProbeCalculator: Calculator {
    static let contract = CalculatorContract(acceptsAnyPorts: true)
    static let threads = Mutex<Set<UInt>>([])

    init(options: NoOptions) {}

    func process(_ cc: CalculatorContext) throws {
        Self.threads.withLock { _ = $0.insert(UInt(pthread_self())) }
        for i in 0..<min(cc.inputCount, cc.outputCount) where !cc.input(at: i).isEmpty { cc.emit(packet: cc.input(at: i), atPosition: i) }
    }
}
