import FrameFlowMQTT
import FrameFlowMedia
import Foundation

/// A fleet's connection to its broker (`mqtt { … }` in the fleet file): one `MQTTClient`
/// shared by every camera.
///
/// Outputs written `to: "mqtt"` publish each packet as JSON on `frameflow/<camera>/<stream>`
/// (names made topic-safe by `MQTTTopic.level`), except camera events, which go where Frigate
/// puts them: each event on `frameflow/events`, object counts retained on
/// `frameflow/<camera>/<label>` and `frameflow/<zone>/<label>`; each camera's health report is published,
/// retained, on `frameflow/<camera>/health`, so a subscriber that comes later sees every
/// camera's last state at once. Publishing never waits for the broker: while it is away,
/// messages queue in the client (bounded) and the cameras run on.
///
/// ```swift
/// let mqtt = try FleetMQTT(settings: config.mqtt!)
/// var options = FleetRunner.Options()
/// options.makeMQTTSink = mqtt.sink
/// let fleet = FleetRunner(config: config, registry: registry, options: options) { mqtt.publish($0) }
/// fleet.run()
/// mqtt.close()
/// ```
public final class FleetMQTT: Sendable {
    /// The client every camera publishes through.
    public let client: MQTTClient
    /// The quality of service of outputs and health reports.
    public let qos: Int

    /// Connects (in the background) to the broker `settings` name.
    ///
    /// - Throws: `MQTTError` for settings libmosquitto refuses.
    public init(settings: MQTTSettings) throws {
        var options = MQTTClient.Options(host: settings.host, port: settings.port, clientID: settings.clientID.isEmpty ? nil : settings.clientID)
        options.qos = settings.qos
        client = try MQTTClient(options: options)
        qos = settings.qos
    }

    /// `frameflow/<camera>/<level>`.
    public static func topic(camera: String, _ level: String) -> String {
        "frameflow/\(MQTTTopic.level(camera))/\(MQTTTopic.level(level))"
    }

    /// A sink publishing `camera`'s `stream` on `frameflow/<camera>/<stream>`; events
    /// (`[ObjectEvent]`) go to `frameflow/events` and object counts (`ObjectCounts`) to retained
    /// `frameflow/<camera>/<label>` and `frameflow/<zone>/<label>`, as Frigate publishes them
    /// (`MQTTEventSink`).
    @Sendable public func sink(camera: String, stream: String) throws -> any PacketSink {
        let plain = try MQTTPacketSink(client: client, topic: Self.topic(camera: camera, stream), qos: qos, stream: stream)
        return MQTTEventSink(client: client, prefix: "frameflow", qos: qos, fallback: plain)
    }

    /// Publishes `health`, retained, on `frameflow/<camera>/health`. A client already closed
    /// drops it.
    @Sendable public func publish(_ health: CameraHealth) {
        try? client.publish(topic: Self.topic(camera: health.camera, "health"), payload: Data(health.jsonLine.utf8), qos: qos, retain: true)
    }

    /// The connection's state and counts now, for health lines.
    public var link: MQTTLinkHealth {
        let s = client.statistics
        return MQTTLinkHealth(
            connected: client.isConnected, queued: s.queued + s.inFlight, delivered: s.delivered, dropped: s.dropped, lost: s.lost,
            refused: s.failed, lastError: s.lastError)
    }

    /// The warning for what `close` could not deliver (nil when every message was delivered).
    public static func closingWarning(_ s: MQTTClient.Statistics, broker: String) -> String? {
        let missed = s.dropped + s.lost + s.unsent + s.failed + s.queued + s.inFlight
        guard missed > 0 else { return nil }
        return
            "warning: MQTT broker \(broker): \(missed) of \(s.accepted) messages not delivered (\(s.unsent + s.queued + s.inFlight) unsent at exit, "
            + "\(s.dropped) dropped by max_queued, \(s.lost) lost, \(s.failed) refused)" + (s.lastError.map { "; last error: \($0)" } ?? "")
    }

    /// Sends what is queued (waiting at most `timeout` seconds) and disconnects.
    @discardableResult
    public func close(timeout: Double = 2) -> MQTTClient.Statistics { client.close(timeout: timeout) }
}
