import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

@testable import FrameFlowMQTT

/// MQTTSinkCalculator in graphs, in-process and through `frameflow run`.
@Suite struct MQTTSinkCalculatorTests {
    static let registry = CalculatorRegistry.standard.adding([MQTTSinkCalculator.self])

    static func graph(port: Int, extra: String = "", name: String = "events") -> String {
        """
        input_stream: "face_count"
        input_stream: "labels"
        node {
          name: "\(name)"
          calculator: "MQTTSinkCalculator"
          input_stream: "COUNT:face_count"
          input_stream: "labels"
          options { [frameflow.MQTTSinkCalculatorOptions.ext] { host: "127.0.0.1" port: \(port) client_id: "graph-\(port)" \(extra) } }
        }
        """
    }

    /// Two input streams, one topic each under `frameflow/<node name>`, one message per packet.
    @Test func eachInputPacketIsPublishedOnItsStreamsTopic() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/#", qos: 1)
        defer { sub.close(timeout: 0) }
        let graph = try Graph(try GraphConfig(parsing: Self.graph(port: broker.port)), registry: Self.registry)
        try graph.start()
        var expected: [(String, String)] = []
        for i in 0..<30 {
            let t = Timestamp(Int64(i) * 1000)
            _ = try graph.send(i, to: "face_count", at: t)
            expected.append(
                (
                    "frameflow/events/face_count",
                    String(decoding: try #require(try PacketJSON.object(Packet(i, at: t), stream: "face_count")), as: UTF8.self)
                ))
            if i % 2 == 0 {
                _ = try graph.send("label \(i)", to: "labels", at: t)
                expected.append(
                    (
                        "frameflow/events/labels",
                        String(decoding: try #require(try PacketJSON.object(Packet("label \(i)", at: t), stream: "labels")), as: UTF8.self)
                    ))
            }
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(got.wait(timeout: 10) { $0.count >= expected.count }, "received \(got.all.count) of \(expected.count)")
        for topic in ["frameflow/events/face_count", "frameflow/events/labels"] {
            #expect(got.all.filter { $0.0 == topic }.map(\.1) == expected.filter { $0.0 == topic }.map(\.1), "\(topic)")
        }
    }

    /// A broker with a password file: the node logs in with `username` and the password from
    /// the environment variable `password_env` names.
    @Test func credentialsComeFromTheEnvironment() throws {
        let broker = try MosquittoBroker(users: ["cam": "from-env"])
        defer { broker.stop(removing: true) }
        let login = MQTTClientTests.options(broker, login: ("cam", "from-env"))
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/#", qos: 1, options: login)
        defer { sub.close(timeout: 0) }
        setenv("FRAMEFLOW_TEST_MQTT_PASSWORD", "from-env", 1)
        let text = Self.graph(port: broker.port, extra: "username: \"cam\" password_env: \"FRAMEFLOW_TEST_MQTT_PASSWORD\"", name: "login")
        let graph = try Graph(try GraphConfig(parsing: text), registry: Self.registry)
        try graph.start()
        for i in 0..<5 { _ = try graph.send(i, to: "face_count", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(got.wait(timeout: 10) { $0.count >= 5 }, "received \(got.all.count)")
        #expect(got.all.map(\.0) == Array(repeating: "frameflow/login/face_count", count: 5))
    }

    @Test(arguments: [
        ("port: 0", "port"), ("qos: 3", "qos"), ("topic_prefix: \"a/#\"", "wildcards"), ("host: \"\"", "host"),
        ("max_queued: 0", "max_queued"), ("flush_timeout: -1", "flush_timeout"), ("flush_timeout: 1e308", "flush_timeout"),
        ("max_queued: 9223372036854775807", "max_queued"),
        ("username: \"cam\" password_env: \"FRAMEFLOW_TEST_UNSET_VARIABLE\"", "FRAMEFLOW_TEST_UNSET_VARIABLE is not set"),
        ("password_env: \"HOME\"", "needs a username"),
    ])
    func badOptionsNameTheNode(option: String, mentions: String) throws {
        let text = Self.graph(port: 1883, extra: option, name: "door_events").replacingOccurrences(
            of: "port: 1883 ", with: option.hasPrefix("port") ? "" : "port: 1883 ")
        do {
            _ = try Graph(try GraphConfig(parsing: text), registry: Self.registry)
            Issue.record("graph with \(option) was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains("door_events") && message.contains(mentions), "\(message)")
        }
    }

    @Test func nodesOfOneBrokerAndIdShareAClient() throws {
        var o = MQTTClient.Options(host: "127.0.0.1", port: try LoopbackPort.free(), clientID: "shared")
        o.warning = { _ in }
        let a = try MQTTSharedClients.acquire(options: o)
        let b = try MQTTSharedClients.acquire(options: o)
        #expect(a === b)
        #expect(MQTTSharedClients.release(a, timeout: 0) == nil)
        let final = try #require(MQTTSharedClients.release(b, timeout: 0))
        #expect(final.accepted == 0)
        #expect(throws: MQTTError.self) { try a.publish(topic: "x", payload: Data()) }
    }

    // MARK: - frameflow run

    static var binary: String { RepositoryFiles.root.appendingPathComponent(".build/debug/frameflow").path }

    /// Runs `frameflow args`; standard output goes through a file, so that neither pipe fills.
    func frameflow(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let outFile = NSTemporaryDirectory() + "frameflow-out-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: outFile, contents: nil), let out = FileHandle(forWritingAtPath: outFile) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { unlink(outFile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try out.close()
        let o = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        return (p.terminationStatus, o, String(decoding: e, as: UTF8.self))
    }

    func writeGraph(port: Int) throws -> String {
        let path = NSTemporaryDirectory() + "mqtt-graph-\(UUID().uuidString).pbtxt"
        try """
        input_stream: "input_video"
        node {
          calculator: "MQTTSinkCalculator"
          input_stream: "IMAGE:input_video"
          options { [frameflow.MQTTSinkCalculatorOptions.ext] { host: "127.0.0.1" port: \(port) topic_prefix: "frameflow/cli" flush_timeout: 0.5 } }
        }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func frameflowRunPublishesOneMessagePerFrame() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/cli/#", qos: 1)
        defer { sub.close(timeout: 0) }
        let graph = try writeGraph(port: broker.port)
        defer { unlink(graph) }
        let frames = 12
        let r = try frameflow(["run", graph, "--input", "testsrc:64x48@10", "--frames", "\(frames)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(got.wait(timeout: 10) { $0.count >= frames }, "received \(got.all.count)")
        #expect(got.all.count == frames)
        let stamps = try got.all.map { m -> Int in
            #expect(m.0 == "frameflow/cli/input_video")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(m.1.utf8)) as? [String: Any])
            #expect(json["width"] as? Int == 64 && json["height"] as? Int == 48, "\(m.1)")
            return try #require(json["timestamp_us"] as? Int)
        }
        #expect(stamps == (0..<frames).map { $0 * 100_000 }, "\(stamps)")
        let list = try frameflow(["calculators"])
        #expect(list.status == 0 && list.out.contains("MQTTSinkCalculator\n  inputs: any"), "\(list.out.suffix(300))")
    }

    /// No broker: the run still completes (exit 0) and says what was not delivered.
    @Test func frameflowRunWithoutABrokerWarnsAndFinishes() throws {
        let port = try LoopbackPort.free()
        let graph = try writeGraph(port: port)
        defer { unlink(graph) }
        let r = try frameflow(["run", graph, "--input", "testsrc:64x48@10", "--frames", "5"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("127.0.0.1:\(port) unreachable"), "\(r.err)")
        #expect(r.err.contains("5 of 5 messages not delivered"), "\(r.err)")
    }
}
