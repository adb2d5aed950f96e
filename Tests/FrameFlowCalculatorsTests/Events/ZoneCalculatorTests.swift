import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct ZoneCalculatorTests {
    /// A pixel square zone 100…200 × 100…200, inertia 3.
    let settings = """
        zone { name: "square" units: "pixels" inertia: 3
          point { x: 100 y: 100 } point { x: 200 y: 100 } point { x: 200 y: 200 } point { x: 100 y: 200 } }
        zone { name: "cars" units: "pixels" inertia: 1 label: "car"
          point { x: 0 y: 0 } point { x: 1000 y: 0 } point { x: 1000 y: 1000 } }
        """

    /// Feeds one track's bottom-centre path (one point a frame) and returns its zones per frame.
    func run(_ path: [(Double, Double)], lostAt: Set<Int> = [], label: String = "person") throws -> [ZonePresence] {
        let runner = try CalculatorRunner(
            ZoneCalculator.self, options: try EventTracks.settings(settings), inputs: ["TRACKS:t"], outputs: ["ZONES:z"])
        var lastMatched = 0
        for (f, p) in path.enumerated() {
            let lost = lostAt.contains(f)
            if !lost { lastMatched = f + 1 }
            let t = EventTracks.standing(id: 7, x: p.0, y: p.1, frame: lastMatched, state: lost ? .lost : .tracked, label: label)
            runner.add([t], tag: "TRACKS", at: Timestamp(Int64(f)))
        }
        try runner.run()
        return try runner.outputs("ZONES").map { try #require(try $0.get([ZonePresence].self).first) }
    }

    /// Inside from frame 2 on: the object counts as in on the third frame inside (frame 4), and
    /// out again on the third frame outside. Worked out by hand from inertia 3.
    @Test func inertiaInBothDirections() throws {
        let inside = (150.0, 150.0), outside = (50.0, 150.0)
        let path = [outside, outside, inside, inside, inside, inside, outside, outside, outside, outside]
        let z = try run(path)
        let inSquare = z.map { $0.currentZones.contains("square") }
        #expect(inSquare == [false, false, false, false, true, true, true, true, false, false])
        #expect(z.last?.enteredZones == ["square"])
    }

    /// A jitter of one or two frames across the edge changes nothing.
    @Test func shortExcursionsAreIgnored() throws {
        let inside = (150.0, 150.0), outside = (250.0, 150.0)
        let z = try run([outside, inside, inside, outside, inside, outside, outside, inside])
        #expect(z.allSatisfy { $0.currentZones.isEmpty && $0.enteredZones.isEmpty })
    }

    /// Lost frames (no new detection) do not count toward inertia.
    @Test func lostFramesDoNotCount() throws {
        let inside = (150.0, 150.0)
        let z = try run([inside, inside, inside, inside], lostAt: [1, 2])
        #expect(z.map { $0.currentZones.contains("square") } == [false, false, false, false])
    }

    /// A zone with labels holds only those labels; the bottom centre is what counts.
    @Test func labelsAndBottomCentre() throws {
        // The box spans y 160…200 at x 150 → bottom centre (150, 200): on the bottom edge, which
        // is outside (half-open edges); at y 199 it is inside.
        let onEdge = try run([(150, 200), (150, 200), (150, 200)])
        #expect(onEdge.allSatisfy { !$0.currentZones.contains("square") })
        let inside = try run([(150, 199), (150, 199), (150, 199)])
        #expect(inside.last?.currentZones == ["square"])
        let car = try run([(500, 100)], label: "car"), person = try run([(500, 100)], label: "person")
        #expect(car.last?.currentZones == ["cars"] && person.last?.currentZones == [])
    }

    /// Normalized zones are scaled by IMAGE_SIZE.
    @Test func normalizedZonesFollowTheFrameSize() throws {
        let s = try EventTracks.settings(
            "zone { name: \"left\" inertia: 1 point { x: 0 y: 0 } point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } point { x: 0 y: 1 } }")
        let runner = try CalculatorRunner(ZoneCalculator.self, options: s, inputs: ["TRACKS:t", "IMAGE_SIZE:size"], outputs: ["ZONES:z"])
        runner.add(
            [EventTracks.standing(id: 1, x: 300, y: 100, frame: 1), EventTracks.standing(id: 2, x: 330, y: 100, frame: 1)], tag: "TRACKS", at: 0)
        runner.add(ImageSize(width: 640, height: 480), tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        let z = try runner.outputs("ZONES")[0].get([ZonePresence].self)
        #expect(z.map(\.currentZones) == [["left"], []])
    }
}
