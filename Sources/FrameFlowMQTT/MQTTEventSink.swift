import Foundation
import FrameFlow
import FrameFlowSinks

/// A `PacketSink` that publishes camera events the way Frigate does, so integrations written
/// for Frigate's MQTT API read them:
///
/// - `[ObjectEvent]` (or one `ObjectEvent`): each event is one message on `<prefix>/events`,
///   its payload the event's JSON alone (`{"type": …, "before": {…}, "after": {…}}`), in order;
/// - `ObjectCounts`: each count is published, retained, on `<prefix>/<camera>/<label>` and
///   `<prefix>/<zone>/<label>`, the payload the number as text (`"all"` is a label too);
/// - any other payload goes to `fallback` (the stream's ordinary topic), or is dropped without it.
///
/// Topic levels are made topic-safe by `MQTTTopic.level`. Like `MQTTPacketSink` it never waits
/// for the broker and leaves the client open.
///
/// ```swift
/// let sink = MQTTEventSink(client: client, fallback: try MQTTPacketSink(client: client, topic: "frameflow/door/events"))
/// try sink.write(Packet(events, at: t))  // each event on frameflow/events
/// ```
public final class MQTTEventSink: PacketSink {
    /// The client messages go through.
    public let client: MQTTClient
    /// The first topic level (`frameflow`; Frigate's is `frigate`).
    public let prefix: String
    /// The QoS of the messages.
    public let qos: Int
    /// Where other payloads go.
    public let fallback: (any PacketSink)?

    /// A sink publishing under `prefix`.
    public init(client: MQTTClient, prefix: String = "frameflow", qos: Int? = nil, fallback: (any PacketSink)? = nil) {
        self.client = client
        self.prefix = prefix
        self.qos = qos ?? client.options.qos
        self.fallback = fallback
    }

    /// `<prefix>/events`.
    public var eventsTopic: String { "\(prefix)/events" }

    /// Publishes `packet`'s events or counts; passes anything else to `fallback`.
    public func write(_ packet: Packet) throws {
        switch packet.payload {
        case let events as [ObjectEvent]:
            for e in events { try publish(e) }
        case let event as ObjectEvent:
            try publish(event)
        case let counts as ObjectCounts:
            for (label, n) in counts.objects.sorted(by: { $0.key < $1.key }) {
                try client.publish(topic: topic(counts.camera, label), payload: Data(String(n).utf8), qos: qos, retain: true)
            }
            for (zone, byLabel) in counts.zones.sorted(by: { $0.key < $1.key }) {
                for (label, n) in byLabel.sorted(by: { $0.key < $1.key }) {
                    try client.publish(topic: topic(zone, label), payload: Data(String(n).utf8), qos: qos, retain: true)
                }
            }
        default:
            try fallback?.write(packet)
        }
    }

    /// The fallback's `prepare`.
    public func prepare() throws { try fallback?.prepare() }

    /// The fallback's `finish`; the client stays open for its other users.
    public func finish() throws { try fallback?.finish() }

    /// The fallback's `discard`.
    public func discard() { fallback?.discard() }

    private func publish(_ event: ObjectEvent) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try client.publish(topic: eventsTopic, payload: try encoder.encode(event), qos: qos, retain: false)
    }

    private func topic(_ a: String, _ b: String) -> String { "\(prefix)/\(MQTTTopic.level(a))/\(MQTTTopic.level(b))" }
}
