import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct EventSettingsTests {
    /// A graph with one ZoneCalculator whose options are `body` (starting on line 5).
    func graph(_ body: String) -> String {
        """
        input_stream: "tracks"
        node {
          calculator: "ZoneCalculator"
          input_stream: "TRACKS:tracks" output_stream: "ZONES:zones"
          options { [frameflow.EventSettings.ext] {
        \(body)
          } }
        }
        """
    }

    let good = """
        zone { name: "door" units: "pixels" inertia: 2 label: "person"
          point { x: 10 y: 20 } point { x: 300 y: 20 } point { x: 300 y: 200 } }
        line { name: "gate" point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } }
        filter { label: "person" min_area: 100 min_score: 0.4 }
        mask { point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 0.1 } }
        track: "person"
        """

    @Test func readsEveryBlock() throws {
        let s = try EventSettings.parse(good, what: "settings")
        #expect(s.zone.count == 1 && s.zone[0].name == "door" && s.zone[0].units == "pixels" && s.zone[0].inertia == 2)
        #expect(s.zone[0].label == ["person"] && s.zone[0].point.map(\.x) == [10, 300, 300])
        // Left out: the element type's defaults.
        #expect(s.line[0].minFrames == 2 && s.line[0].units == "normalized")
        #expect(s.filter[0].maxArea == 100_000_000 && s.filter[0].minArea == 100 && s.filter[0].minScore == 0.4)
        #expect(s.mask[0].point.count == 3 && s.track == ["person"])
        // The text form reads back to the same settings.
        #expect(try EventSettings.parse(s.textFormat, what: "round trip") == s)
        #expect(GraphBuildErrors.of(graph(good), registry: .standard).isEmpty)
    }

    /// Each broken setting: the error, the line it points at (in the graph, where the body
    /// starts on line 6) and words it must contain.
    @Test(arguments: [
        ("zone { name: \"a\" point { x: 0 y: 0 } point { x: 1 y: 0 } }", 6, "at least 3 points"),
        ("zone { name: \"a\"\n point { x: 0 y: 0 }\n point { x: nan y: 0 }\n point { x: 1 y: 1 } }", 8, "zone[0].point[1].x must be a finite"),
        ("zone { name: \"a\" point { x: 0 y: 0 } point { x: 1 y: 0 }\n point { x: 1.5 y: 1 } }", 7, "zone[0].point[2].x must be from 0"),
        ("zone { name: \"a\" point { x: 0 y: 0 } point { x: 0.5 y: 0.5 } point { x: 1 y: 1 } }", 6, "no area"),
        ("zone { name: \"a\" point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 1 }\n colour: 3 }", 7, "unknown option 'zone.colour'"),
        ("zone { name: \"a\" point { x: 0 y: 0 z: 1 } point { x: 1 y: 0 } point { x: 1 y: 1 } }", 6, "unknown option 'zone.point.z'"),
        ("zone { name: \"a b\" point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 1 } }", 6, "letters, digits"),
        ("zone { point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 1 } }", 6, "zone[0].name is missing"),
        ("zone { name: \"a\" inertia: 0 point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 1 } }", 6, "zone[0].inertia must be from 1"),
        ("zone { name: \"a\" units: \"inches\" point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 1 } }", 6, "units must be"),
        ("line { name: \"l\" point { x: 0 y: 0 } }", 6, "exactly 2 points"),
        ("line { name: \"l\" point { x: 0 y: 0 }\n point { x: 1e308 y: 0 } }", 7, "line[0].point[1].x must be from 0"),
        ("line { name: \"l\" point { x: 0.2 y: 0.2 } point { x: 0.2 y: 0.2 } }", 6, "the same"),
        ("filter {\n min_area: -1 }", 7, "filter[0].min_area must be from 0"),
        ("filter {\n max_area: 0 }", 7, "filter[0].max_area must be from 1"),
        ("filter {\n min_score: inf }", 7, "filter[0].min_score must be a finite"),
        ("filter {\n max_ratio: 0 }", 7, "filter[0].max_ratio must be from"),
        ("filter { min_area: 50 max_area: 10 }", 6, "above max_area"),
        ("mask { point { x: 0 y: 0 } point { x: 1 y: 0 } }", 6, "mask[0].point: a polygon needs at least 3"),
        ("zones { name: \"a\" }", 6, "unknown option 'zones' (did you mean 'zone'?)"),
    ])
    func brokenSettingsNameTheirLine(body: String, line: Int, words: String) throws {
        let error = try #require(GraphBuildErrors.firstOptionError(graph(body), registry: .standard), "\(body)")
        #expect(error.description.contains(words), "\(error)")
        #expect(error.location?.line == line, "\(error)")
        #expect(error.node == "ZoneCalculator", "\(error)")
    }

    /// The side-packet text goes through the same parser, its errors naming its own lines.
    @Test func sidePacketTextIsCheckedAlike() throws {
        let runner = try CalculatorRunner(ZoneCalculator.self, inputs: ["TRACKS:t"], outputs: ["ZONES:z"], sideInputs: ["EVENT_SETTINGS:s"])
        runner.setSidePacket("zone { name: \"a\"\n point { x: 0 y: 0 } }", tag: "EVENT_SETTINGS")
        runner.add([TrackedObject](), tag: "TRACKS", at: 0)
        #expect {
            try runner.run()
        } throws: { e in
            "\(e)".contains("at least 3 points") && "\(e)".contains("EVENT_SETTINGS of ZoneCalculator:")
        }
    }
}
