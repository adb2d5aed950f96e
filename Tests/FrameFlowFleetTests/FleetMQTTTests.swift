import Foundation
import FrameFlowTestSupport
import FrameFlowCalculators
import FrameFlowMQTT
import Synchronization
import Testing

@testable import FrameFlowFleet

/// A fleet publishing to a real broker, checked by a real subscriber.
@Suite struct FleetMQTTTests {
    @Test func everyFrameOutIsPublishedAndHealthIsRetained() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let dir = try temporaryFolder("fleet-mqtt")
        defer { try? FileManager.default.removeItem(at: dir) }
        // testsrc lasts 10 s: 300 frames each, read as fast as they decode; then a long backoff.
        let config = try Self.fleet(
            in: dir, broker: broker, realtime: false, cameras: [("front/door", "testsrc:64x48@30"), ("yard", "testsrc:32x32@30")])

        let received = Mutex<[String: Int]>([:])
        let subscriber = try MQTTClient(options: .init(host: "127.0.0.1", port: broker.port, clientID: "fleet-test-sub"))
        defer { _ = subscriber.close(timeout: 1) }
        try subscriber.subscribe("frameflow/+/output_video", qos: 1) { m in received.withLock { $0[m.topic, default: 0] += 1 } }
        #expect(subscriber.waitUntilSubscribed(timeout: 10))

        let (mqtt, fleet) = try Self.start(config)
        defer { fleet.stop() }
        let final = Self.finish(mqtt, fleet)
        for h in final {
            let topic = "frameflow/\(MQTTTopic.level(h.camera))/output_video"
            #expect(eventually(within: 10) { received.withLock { $0[topic] } == h.framesOut }, "\(topic): \(received.withLock { $0[topic] ?? 0 })")
        }
        #expect(received.withLock { Set($0.keys) } == ["frameflow/front_door/output_video", "frameflow/yard/output_video"])

        // A subscriber that comes afterwards gets each camera's last health, retained.
        let health = Mutex<[String: String]>([:])
        let late = try MQTTClient(options: .init(host: "127.0.0.1", port: broker.port, clientID: "fleet-test-late"))
        defer { _ = late.close(timeout: 1) }
        try late.subscribe("frameflow/+/health", qos: 1) { m in
            if m.retained { health.withLock { $0[m.topic] = String(decoding: m.payload, as: UTF8.self) } }
        }
        #expect(eventually(within: 10) { health.withLock { $0.count } == 2 })
        for h in final {
            let payload = try #require(health.withLock { $0["frameflow/\(MQTTTopic.level(h.camera))/health"] })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
            #expect(object["camera"] as? String == h.camera)
            #expect(object["state"] as? String == "stopped")
            #expect(object["frames_out"] as? Int == h.framesOut)
        }
    }

    /// The broker restarts while two cameras publish every frame at QoS 1: the cameras never
    /// notice (no reconnect, every frame out), and a subscriber whose session persists gets
    /// every frame of each camera (at least once: QoS 1 may repeat one in flight at the restart).
    @Test func aBrokerRestartLosesThePipelineNothing() throws {
        let broker = try MosquittoBroker(persistent: true)
        defer { broker.stop(removing: true) }
        let dir = try temporaryFolder("fleet-mqtt-restart")
        defer { try? FileManager.default.removeItem(at: dir) }
        // testsrc lasts 10 s: in real time, 300 frames over 10 s, so the restart falls mid-run.
        let config = try Self.fleet(in: dir, broker: broker, realtime: true, cameras: [("a", "testsrc:32x32@30"), ("b", "testsrc:32x24@30")])

        let received = Mutex<[String: Set<String>]>([:])  // topic: distinct payloads (each names its timestamp)
        var subscriberOptions = MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: "fleet-restart-sub")
        subscriberOptions.cleanSession = false
        subscriberOptions.warning = { _ in }
        let subscriber = try MQTTClient(options: subscriberOptions)
        defer { _ = subscriber.close(timeout: 1) }
        try subscriber.subscribe("frameflow/+/output_video", qos: 1) { m in
            _ = received.withLock { $0[m.topic, default: []].insert(String(decoding: m.payload, as: UTF8.self)) }
        }
        #expect(subscriber.waitUntilSubscribed(timeout: 10))

        let (mqtt, fleet) = try Self.start(config)
        defer { fleet.stop() }
        #expect(eventually(within: 10) { fleet.fleet.health().allSatisfy { $0.framesOut >= 60 } })
        let before = received.withLock { $0.values.map(\.count).reduce(0, +) }
        try broker.restart()
        let final = Self.finish(mqtt, fleet)
        for h in final {
            #expect(h.reconnects == 0, "the camera did not notice the broker: \(h)")
            let topic = "frameflow/\(h.camera)/output_video"
            #expect(
                eventually(within: 10) { received.withLock { $0[topic]?.count } == h.framesOut },
                "\(topic): \(received.withLock { $0[topic]?.count ?? 0 }) distinct")
        }
        #expect(before < 600, "the restart came after every frame had been published")
    }

    /// A fleet file in `dir` whose cameras pass their frames through (the graph is written
    /// beside it) and publish `output_video` to `broker` at QoS 1; a camera whose source ends
    /// waits 60 s before it retries.
    static func fleet(in dir: URL, broker: MosquittoBroker, realtime: Bool, cameras: [(name: String, source: String)]) throws -> FleetConfig {
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        let text = """
            defaults { graph: "pass.pbtxt" realtime: \(realtime) reconnect { initial_seconds: 60 max_seconds: 60 } }
            mqtt { host: "127.0.0.1" port: \(broker.port) qos: 1 }
            """
            + cameras.map { "\ncamera { name: \"\($0.name)\" source: \"\($0.source)\" output { stream: \"output_video\" to: \"mqtt\" } }" }.joined()
        return try FleetConfig(text: text, file: dir.appendingPathComponent("m.fleet").path)
    }

    /// Starts `config` with its MQTT block: outputs and health published through one client.
    /// Waits until every camera's source has ended (300 frames each), stops the fleet, and
    /// checks that the client delivered everything and each camera sent all its frames.
    static func finish(_ mqtt: FleetMQTT, _ fleet: RunningFleet, sourceLocation: SourceLocation = #_sourceLocation) -> [CameraHealth] {
        #expect(eventually(within: 30) { fleet.fleet.health().allSatisfy { $0.state == .backoff } }, sourceLocation: sourceLocation)
        let final = fleet.stop()
        let stats = mqtt.close(timeout: 10)
        #expect(stats.queued + stats.inFlight + stats.dropped + stats.lost == 0, "\(stats)", sourceLocation: sourceLocation)
        for h in final { #expect(h.framesOut == 300, "\(h)", sourceLocation: sourceLocation) }
        return final
    }

    static func start(_ config: FleetConfig) throws -> (FleetMQTT, RunningFleet) {
        let mqtt = try FleetMQTT(settings: try #require(config.mqtt))
        var options = FleetRunner.Options()
        options.makeMQTTSink = mqtt.sink
        return (mqtt, RunningFleet(FleetRunner(config: config, registry: .standard, options: options) { mqtt.publish($0) }))
    }
}
