import FrameFlow
import FrameFlowCalculators
import Testing

@testable import FrameFlowFleet

/// A fleet file's `events { … }` blocks: read by the events calculators' parser, handed to the
/// camera's graph as side packets, errors at the fleet file's line and column.
@Suite struct FleetEventsConfigTests {
    static let text = """
        defaults {
          graph: "Graphs/people_events_hog.pbtxt"
          events { line { name: "gate" point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } } }
        }
        camera { name: "lobby" source: "testsrc" }
        camera {
          name: "street"
          source: "testsrc"
          events {
            zone { name: "walkway" inertia: 2 point { x: 0 y: 0.25 } point { x: 0.45 y: 0.25 } point { x: 0.45 y: 0.75 } }
            filter { label: "person" min_area: 2000 }
          }
        }
        camera { name: "plain" source: "testsrc" graph: "Graphs/people_detection_hog.pbtxt" events { } }
        """

    @Test func blocksReachTheGraphAsSidePackets() throws {
        let config = try FleetConfig(text: Self.text, file: "site.fleet")
        let lobby = config.cameras[0], street = config.cameras[1]
        // A camera without its own block takes the defaults'.
        #expect(lobby.events?.line.map(\.name) == ["gate"] && lobby.events?.zone == [])
        // A camera's own block replaces the defaults' (no merging).
        #expect(street.events?.zone.map(\.name) == ["walkway"] && street.events?.line == [] && street.events?.filter[0].minArea == 2000)
        // The side packets: the settings as text (which reads back equal) and the camera's name.
        let text = try #require(street.sidePackets["event_settings"])
        #expect(try EventSettings.parse(text, what: "side packet") == street.events)
        #expect(street.sidePackets["camera"] == "street" && lobby.sidePackets["camera"] == "lobby")
        #expect(config.cameras[2].events == EventSettings())
    }

    /// (text, line, words): each error names the fleet file's line.
    static let broken: [(String, Int, String)] = [
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n events {\n zone { name: \"z\" point { x: 0 y: 0 } } } }", 3, "at least 3 points"),
        (
            "camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n events { line { name: \"l\"\n point { x: 0 y: 0 }\n point { x: nan y: 1 } } } }",
            4, "finite"
        ),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n events {\n zones { } } }", 3, "unknown option 'zones'"),
        ("defaults { events {\n filter {\n min_score: 1.5 } } }", 3, "filter[0].min_score"),
        (
            "camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n events {\n mask { units: \"pixels\" point { x: -1 y: 0 } point { x: 5 y: 0 } point { x: 5 y: 5 } } } }",
            3, "mask[0].point[0].x"
        ),
        (
            "camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n side_packet { name: \"camera\" value: \"x\" } events { } }", 1,
            "set by the events block"
        ),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n events: 3 }", 2, "must be a message"),
    ]

    @Test(arguments: broken.indices)
    func brokenBlocksNameTheLine(index: Int) {
        let (text, line, words) = Self.broken[index]
        do {
            _ = try FleetConfig(text: text, file: "site.fleet")
            Issue.record("no error for: \(text)")
        } catch let e as FleetConfigError {
            #expect(e.location?.line == line, "\(e)")
            #expect(e.description.hasPrefix("site.fleet:\(line):"), "\(e)")
            #expect(e.message.contains(words), "\(e)")
        } catch {
            Issue.record("not a FleetConfigError: \(error)")
        }
    }
}
