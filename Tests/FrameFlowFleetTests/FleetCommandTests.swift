import Foundation
import FrameFlowTestSupport
import Synchronization
import Testing

/// `frameflow fleet` run as a user runs it: the built binary, its exit status, its health
/// lines, and SIGTERM.
@Suite struct FleetCommandTests {
    static var binary: String { RepositoryFiles.root.appendingPathComponent(".build/debug/frameflow").path }

    /// Text a reader thread appends to.
    final class Text: Sendable {
        let value = Mutex<String>("")
    }

    /// The command running in `dir`, its standard output collected line by line.
    final class Command: Sendable {
        let process: Process
        private let out = Text()
        private let err = Text()
        private let done = DispatchSemaphore(value: 0)

        init(_ args: [String], in dir: URL) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: FleetCommandTests.binary)
            p.arguments = args
            p.currentDirectoryURL = dir
            let o = Pipe()
            let e = Pipe()
            p.standardOutput = o
            p.standardError = e
            try p.run()
            process = p
            let (out, err, done) = (out, err, done)
            for (pipe, text) in [(o, out), (e, err)] {
                Thread.detachNewThread {
                    while true {
                        let data = pipe.fileHandleForReading.availableData
                        if data.isEmpty { break }
                        text.value.withLock { $0 += String(decoding: data, as: UTF8.self) }
                    }
                    done.signal()
                }
            }
        }

        var output: String { out.value.withLock { $0 } }
        var errors: String { err.value.withLock { $0 } }

        /// Health lines so far, parsed.
        var health: [[String: Any]] {
            output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// Waits for the exit and both pipes' ends.
        func wait() -> Int32 {
            process.waitUntilExit()
            done.wait()
            done.wait()
            return process.terminationStatus
        }
    }

    @Test func aBadFleetFileIsExitStatus2NamingTheLine() throws {
        let dir = try temporaryFolder("fleet-cli-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try "camera { name: \"a\" source: \"testsrc\" graph: \"g.pbtxt\"\n  sauce: \"x\" }\n".write(
            to: dir.appendingPathComponent("bad.fleet"), atomically: true, encoding: .utf8)
        let c = try Command(["fleet", "bad.fleet"], in: dir)
        #expect(c.wait() == 2)
        #expect(c.errors.contains("bad.fleet:2:3: camera: unknown field 'sauce'"), "\(c.errors)")
        let usage = try Command(["fleet", "bad.fleet", "--shard", "3/3"], in: dir)
        #expect(usage.wait() == 2)
    }

    /// SIGTERM (Kubernetes stopping a pod) stops every camera; the outputs are finished, the
    /// last health line says `stopped`; a camera that failed makes the exit status 1.
    @Test func sigtermStopsTheFleetAndFinishesItsOutputs() throws {
        let dir = try temporaryFolder("fleet-cli-term")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        try """
        camera { name: "a" source: "testsrc:64x48@30" graph: "pass.pbtxt" output { stream: "output_video" to: "a.jsonl" } }
        camera { name: "b" source: "testsrc:64x48@30" graph: "missing.pbtxt" }
        camera { name: "c" source: "testsrc:64x48@30" graph: "model.pbtxt" }
        """.write(to: dir.appendingPathComponent("site.fleet"), atomically: true, encoding: .utf8)
        // A model that is not there: the camera fails once, naming it, and is not retried.
        try """
        input_stream: "input_video"
        output_stream: "output_video"
        node { calculator: "InferenceCalculator" input_stream: "TENSORS:input_video" output_stream: "TENSORS:output_video"
          options { [mediapipe.InferenceCalculatorOptions.ext] { model_path: "mediapipe/modules/none/missing.tflite" } } }
        """.write(to: dir.appendingPathComponent("model.pbtxt"), atomically: true, encoding: .utf8)
        let c = try Command(["fleet", "site.fleet", "--health-interval", "0.2"], in: dir)
        defer { if c.process.isRunning { kill(c.process.processIdentifier, SIGKILL) } }
        #expect(eventually(within: 20) { c.health.contains { $0["camera"] as? String == "a" && ($0["frames_in"] as? Int ?? 0) >= 10 } })
        kill(c.process.processIdentifier, SIGTERM)
        #expect(c.wait() == 1, "\(c.errors)")
        let a = c.health.filter { $0["camera"] as? String == "a" }
        let last = try #require(a.last)
        #expect(last["state"] as? String == "stopped")
        let framesOut = try #require(last["frames_out"] as? Int)
        #expect(framesOut >= 10)
        let lines = try String(contentsOf: dir.appendingPathComponent("a.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == framesOut)
        #expect(c.health.last { $0["camera"] as? String == "b" }?["state"] as? String == "failed")
        #expect(c.errors.contains("camera 'b' failed"), "\(c.errors)")
        let cLast = c.health.last { $0["camera"] as? String == "c" }
        #expect(cLast?["state"] as? String == "failed" && cLast?["reconnects"] as? Int == 0, "\(String(describing: cLast))")
        #expect((cLast?["last_error"] as? String)?.contains("missing.tflite") == true)
    }

    /// With no broker, the fleet runs on; every health line carries the connection's state and
    /// its queue, and the messages not delivered at exit are a warning with their count.
    @Test func mqttStateIsInTheHealthLinesAndLossesAreWarned() throws {
        let dir = try temporaryFolder("fleet-cli-mqtt-down")
        defer { try? FileManager.default.removeItem(at: dir) }
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let port = try LoopbackPort.free()
        try """
        mqtt { host: "127.0.0.1" port: \(port) qos: 1 }
        camera { name: "a" source: "testsrc:64x48@30" graph: "pass.pbtxt" output { stream: "output_video" to: "mqtt" } }
        """.write(to: dir.appendingPathComponent("site.fleet"), atomically: true, encoding: .utf8)
        let c = try Command(["fleet", "site.fleet", "--health-interval", "0.5", "--duration", "2"], in: dir)
        defer { if c.process.isRunning { kill(c.process.processIdentifier, SIGKILL) } }
        #expect(c.wait() == 0, "\(c.errors)")
        let last = try #require(c.health.last)
        let mqtt = try #require(last["mqtt"] as? [String: Any], "\(last)")
        #expect(mqtt["connected"] as? Bool == false)
        let queued = try #require(mqtt["queued"] as? Int)
        let framesOut = try #require(last["frames_out"] as? Int)
        #expect(queued >= framesOut && framesOut > 10, "every frame out waits: \(queued) queued, \(framesOut) out")
        #expect((mqtt["last_error"] as? String)?.contains("refused") == true, "\(mqtt)")
        #expect(c.errors.contains("messages not delivered") && c.errors.contains("unsent at exit"), "\(c.errors)")
    }
}
