import Foundation
import FrameFlowTestSupport
import FrameFlow
import FrameFlowMedia
import Testing

@testable import FrameFlowMQTT

/// MQTTPacketSink: each packet is one message whose payload is `PacketJSON.object`'s bytes.
@Suite struct MQTTPacketSinkTests {
    static let face = Detection(relativeBox: Rect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), score: 0.9, label: "face")

    @Test func eachPacketIsOneMessageOfItsJSON() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/cam1/#", qos: 1)
        defer { sub.close(timeout: 0) }
        let client = try MQTTClient(options: MQTTClientTests.options(broker))
        let detections = try MQTTPacketSink(client: client, topic: "frameflow/cam1/detections")
        let counts = try MQTTPacketSink(client: client, topic: "frameflow/cam1/count", qos: 0)
        var expected: [String: [String]] = [:]
        for i in 0..<20 {
            let t = Timestamp(Int64(i) * 66_667)
            let d = Packet(i % 3 == 0 ? [Detection]() : [Self.face], at: t)
            let c = Packet(i, at: t)
            try detections.write(d)
            try counts.write(c)
            try detections.write(Packet(emptyAt: t))  // empty: nothing published
            expected["frameflow/cam1/detections", default: []].append(
                String(decoding: try #require(try PacketJSON.object(d, stream: "detections")), as: UTF8.self))
            expected["frameflow/cam1/count", default: []].append(
                String(decoding: try #require(try PacketJSON.object(c, stream: "count")), as: UTF8.self))
        }
        try detections.finish()
        try counts.finish()
        let stats = client.close(timeout: 5)
        #expect(stats.accepted == 40 && stats.delivered == 40, "\(stats)")
        #expect(got.wait(timeout: 10) { $0.count >= 40 })
        for (topic, payloads) in expected {
            #expect(got.all.filter { $0.0 == topic }.map(\.1) == payloads, "\(topic)")
        }
        // The payload read back independently: MediaPipe's field names, the packet's time.
        let second = try #require(got.all.first { $0.0 == "frameflow/cam1/detections" && $0.1.contains("face") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(second.1.utf8)) as? [String: Any])
        #expect(json["stream"] as? String == "detections" && json["timestamp_us"] as? Int == 66_667)
        let first = try #require((json["detections"] as? [[String: Any]])?.first)
        #expect(first["label"] as? [String] == ["face"])
        let box = (first["location_data"] as? [String: Any])?["relative_bounding_box"] as? [String: Any]
        #expect(box?["width"] as? Double == 0.3, "\(second.1)")
    }

    @Test func anInvalidTopicIsRefused() throws {
        var o = MQTTClient.Options(host: "127.0.0.1", port: try LoopbackPort.free())
        o.warning = { _ in }
        let client = try MQTTClient(options: o)
        defer { client.close(timeout: 0) }
        #expect(throws: MQTTError.self) { _ = try MQTTPacketSink(client: client, topic: "frameflow/+/detections") }
        #expect(throws: MQTTError.self) { _ = try MQTTPacketSink(client: client, topic: "frameflow/cam", qos: 7) }
    }
}
