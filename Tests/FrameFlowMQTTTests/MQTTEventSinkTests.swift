import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowMQTT

/// MQTTEventSink: events on `frameflow/events` in order, counts retained per camera/zone and
/// label, as Frigate publishes them; and a consumer written from Frigate's docs reads them.
@Suite struct MQTTEventSinkTests {
    /// Events and counts from EventBuilderCalculator on 60 frames of 6 walking tracks (each
    /// 20 frames long, zones entered on the way).
    static func eventsAndCounts() throws -> ([Packet], [Packet]) {
        let runner = try CalculatorRunner(
            node: """
                calculator: "EventBuilderCalculator" input_stream: "TRACKS:t" input_stream: "ZONES:z"
                output_stream: "EVENTS:e" output_stream: "COUNTS:c"
                options { [frameflow.EventBuilderCalculatorOptions.ext] { camera: "yard" time_base: 1700000000 } }
                """, registry: .standard)
        for f in 0..<60 {
            var tracks: [TrackedObject] = []
            var zones: [ZonePresence] = []
            for id in 1...6 where (id * 7...id * 7 + 20).contains(f) {
                let age = f - id * 7
                let x = 10.0 + Double(age) * 5
                tracks.append(
                    TrackedObject(
                        id: id, box: .init(x1: x, y1: 50, x2: x + 20, y2: 100), score: 0.5 + Double(age) / 50, firstSeen: Int64(id * 7) * 100_000,
                        lastSeen: Int64(f) * 100_000, label: id % 3 == 0 ? "car" : "person"))
                zones.append(ZonePresence(trackID: id, currentZones: age >= 10 ? ["drive"] : [], enteredZones: age >= 10 ? ["drive"] : []))
            }
            runner.add(tracks, tag: "TRACKS", at: Timestamp(Int64(f) * 100_000))
            runner.add(zones, tag: "ZONES", at: Timestamp(Int64(f) * 100_000))
        }
        try runner.run()
        return (runner.outputs("EVENTS"), runner.outputs("COUNTS"))
    }

    @Test func eventsInOrderAndRetainedCounts() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/#", qos: 1)
        defer { sub.close(timeout: 0) }
        let client = try MQTTClient(options: MQTTClientTests.options(broker))
        let fallback = try MQTTPacketSink(client: client, topic: "frameflow/yard/other")
        let sink = MQTTEventSink(client: client, fallback: fallback)
        let (events, counts) = try Self.eventsAndCounts()
        var expected: [String] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for p in events {
            try sink.write(p)
            for e in try p.get([ObjectEvent].self) { expected.append(String(decoding: try encoder.encode(e), as: UTF8.self)) }
        }
        for p in counts { try sink.write(p) }
        try sink.write(Packet(7, at: 0))  // not an event: the fallback's topic
        try sink.finish()
        let lastCounts = try #require(counts.last).get(ObjectCounts.self)
        let countMessages = counts.reduce(0) { n, p in
            let c = try! p.get(ObjectCounts.self)
            return n + c.objects.count + c.zones.values.reduce(0) { $0 + $1.count }
        }
        let stats = client.close(timeout: 5)
        #expect(stats.delivered == expected.count + countMessages + 1, "\(stats)")
        #expect(got.wait(timeout: 10) { $0.count >= expected.count + countMessages + 1 })
        // Every event, in order, on frameflow/events, its payload the event's JSON alone.
        let received = got.all.filter { $0.0 == "frameflow/events" }.map(\.1)
        #expect(received == expected)
        #expect(expected.count >= 18, "6 tracks: new, zone entry, end at least")
        #expect(got.all.contains { $0.0 == "frameflow/yard/other" })
        // A subscriber arriving later gets the retained counts: the last value of each topic.
        let (late, lateGot) = try MQTTClientTests.subscriber(broker, "frameflow/+/+", qos: 1)
        defer { late.close(timeout: 0) }
        var retained: [String: String] = [:]
        for (label, n) in lastCounts.objects { retained["frameflow/yard/\(label)"] = String(n) }
        for (zone, byLabel) in lastCounts.zones { for (label, n) in byLabel { retained["frameflow/\(zone)/\(label)"] = String(n) } }
        #expect(retained["frameflow/yard/person"] == "0" && retained["frameflow/drive/car"] == "0" && retained.count == 6)
        #expect(lateGot.wait(timeout: 10) { $0.count >= retained.count })
        #expect(Dictionary(lateGot.all.filter { $0.0 != "frameflow/events" }.map { ($0.0, $0.1) }, uniquingKeysWith: { $1 }) == retained)
        // Counts seen on the way: two people at once in the frame at some point.
        #expect(got.all.contains { $0.0 == "frameflow/yard/person" && $0.1 == "2" })
    }

    /// scripts/frigate_events_subscriber.py, written from Frigate's documented `frigate/events`
    /// payload, reads what a subscriber received and finds every event whole.
    @Test func aFrigateConsumerReadsTheMessages() throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try MQTTClientTests.subscriber(broker, "frameflow/events", qos: 1)
        defer { sub.close(timeout: 0) }
        let client = try MQTTClient(options: MQTTClientTests.options(broker))
        let sink = MQTTEventSink(client: client)
        let (events, _) = try Self.eventsAndCounts()
        var sent = 0
        for p in events {
            try sink.write(p)
            sent += try p.get([ObjectEvent].self).count
        }
        _ = client.close(timeout: 5)
        #expect(got.wait(timeout: 10) { $0.count >= sent })
        let input = got.all.map(\.1).joined(separator: "\n") + "\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFiles.path("scripts/frigate_events_subscriber.py")]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(err)")
        let summary = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any], "\(err)")
        #expect(summary["messages"] as? Int == sent)
        #expect(summary["events"] as? Int == 6 && summary["ended"] as? Int == 6 && summary["open"] as? Int == 0, "\(summary)")
        #expect(summary["labels"] as? [String: Int] == ["person": 4, "car": 2], "\(summary)")
        #expect(summary["zones"] as? [String] == ["drive"], "\(summary)")
    }
}
