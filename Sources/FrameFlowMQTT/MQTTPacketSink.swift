import Foundation
import FrameFlow
import FrameFlowSinks

/// A `PacketSink` that publishes each packet of one stream as one MQTT message: the JSON
/// object of `PacketJSON.object` (the line a `.jsonl` output would hold, without its newline)
/// on a fixed topic. Empty packets publish nothing.
///
/// `write` never waits for the broker (see `MQTTClient`); `finish` leaves the client open,
/// since it may be shared (one client for every camera of a fleet): whoever made the client
/// closes it.
///
/// ```swift
/// let client = try MQTTClient(options: .init(host: "127.0.0.1", port: 1883))
/// let sink = try MQTTPacketSink(client: client, topic: "frameflow/door/detections")
/// try sink.write(Packet([Detection](), at: 0))
/// ```
public final class MQTTPacketSink: PacketSink {
    /// The client messages go through.
    public let client: MQTTClient
    /// The topic every message goes to.
    public let topic: String
    /// The QoS of the messages (0, 1 or 2).
    public let qos: Int
    /// Whether the broker keeps the last message as the topic's retained one.
    public let retain: Bool
    /// The stream name written in each message's `"stream"` member.
    public let stream: String

    /// A sink publishing to `topic`; `stream` defaults to the topic's last level.
    ///
    /// - Throws: `MQTTError.invalidTopic` for a topic that may not be published to,
    ///   `MQTTError.invalidOption` for a QoS other than 0…2.
    public init(client: MQTTClient, topic: String, qos: Int? = nil, retain: Bool = false, stream: String? = nil) throws {
        try MQTTTopic.validate(topic)
        let q = qos ?? client.options.qos
        guard (0...2).contains(q) else { throw MQTTError.invalidOption("qos", "must be 0, 1 or 2 (got \(q))") }
        self.client = client
        self.topic = topic
        self.qos = q
        self.retain = retain
        self.stream = stream ?? String(topic.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }

    /// Publishes `packet` as JSON; throws only if the client is closed.
    public func write(_ packet: Packet) throws {
        guard let payload = try PacketJSON.object(packet, stream: stream) else { return }
        try client.publish(topic: topic, payload: payload, qos: qos, retain: retain)
    }

    /// Nothing to finish: the client stays open for its other users.
    public func finish() throws {}
}
