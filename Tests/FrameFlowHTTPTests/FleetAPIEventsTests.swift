import Foundation
import FrameFlowTestSupport
import Testing

@testable import FrameFlowHTTP

/// `/api/events` on cameras running a real events graph: motion boxes (`MotionDetectorCalculator`,
/// cheap even in a debug build) tracked and turned into Frigate-shaped events on the hand clip.
/// What the API serves is checked against the events the same cameras wrote to their JSON
/// Lines outputs.
@Suite struct FleetAPIEventsTests {
    static let graph = """
        input_stream: "input_video"
        output_stream: "events"
        node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:input_video" output_stream: "SIZE:size" }
        node { calculator: "MotionDetectorCalculator" input_stream: "IMAGE:input_video" output_stream: "MOTION:motion" }
        node {
          calculator: "ObjectTrackerCalculator"
          input_stream: "DETECTIONS:motion"
          output_stream: "DETECTIONS:tracked"
          output_stream: "TRACKS:tracks"
          options { [frameflow.ObjectTrackerCalculatorOptions.ext] { track_activation_threshold: 0.05 minimum_consecutive_frames: 2 } }
        }
        node {
          calculator: "EventBuilderCalculator"
          input_stream: "TRACKS:tracks"
          input_stream: "IMAGE_SIZE:size"
          output_stream: "EVENTS:events"
          input_side_packet: "CAMERA:camera"
        }
        """

    /// The (type, id) of every message in a camera's events JSON Lines, oldest first.
    static func written(_ path: String) throws -> [[String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        return try lines.flatMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["events"] as? [[String: Any]]).map(Self.key)
        }
    }

    static func key(_ message: [String: Any]) -> [String] {
        [message["type"] as? String ?? "?", (message["after"] as? [String: Any])?["id"] as? String ?? "?"]
    }

    @Test func eventsOfARealGraphWithFilters() throws {
        let dir = try temporaryFolder("fleet-http-events")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.path
        try Self.graph.write(to: dir.appendingPathComponent("motion_events.pbtxt"), atomically: true, encoding: .utf8)
        let f = try ServedFleet(
            """
            defaults { graph: "\(out)/motion_events.pbtxt" realtime: false reconnect { initial_seconds: 1000 max_seconds: 1000 } }
            camera { name: "door" source: "\(handClip)" output { stream: "events" to: "\(out)/door.jsonl" } }
            camera { name: "yard" source: "\(handClip)" output { stream: "events" to: "\(out)/yard.jsonl" } }

            """)
        defer { f.stop() }
        #expect(
            try eventually(within: 60) {
                try ["door", "yard"].allSatisfy { try f.camera($0).object["state"] as? String == "backoff" }
            })
        func get(_ query: String) throws -> [[String: Any]] {
            let r = try TestClient.json(port: f.port, "/api/events" + query)
            #expect(r.status == 200, "\(query): \(r.text)")
            return r.json as? [[String: Any]] ?? []
        }
        for camera in ["door", "yard"] {
            let file = try Self.written("\(out)/\(camera).jsonl")
            #expect(file.count >= 2, "the moving hand makes events on \(camera)")
            #expect(file.filter { $0[0] == "new" }.count == file.filter { $0[0] == "end" }.count)
            // Newest first, exactly the camera's own messages.
            let served = try get("?camera=\(camera)&limit=1000")
            #expect(served.map(Self.key) == file.reversed())
            #expect(served.allSatisfy { ($0["after"] as? [String: Any])?["camera"] as? String == camera })
            #expect(try get("?camera=\(camera)&limit=2").map(Self.key) == Array(file.reversed().prefix(2)))
            #expect(try get("?camera=\(camera)&label=motion&limit=1000").count == file.count)
        }
        #expect(try get("?label=person").isEmpty)
        #expect(try get("?camera=attic").isEmpty)
        #expect(try get("?limit=1000").count == (try Self.written("\(out)/door.jsonl").count + Self.written("\(out)/yard.jsonl").count))
    }
}
