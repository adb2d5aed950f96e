import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct LineCounterCalculatorTests {
    /// A vertical line from A (100, 0) down to B (100, 200). Walking from A to B, the image's
    /// left (x < 100) is on your right: crossing right to left (x decreasing) is `in`.
    func run(_ paths: [Int: [(Double, Double)]], minFrames: Int = 2, labels: [Int: String] = [:]) throws -> (
        crossings: [[LineCrossing]], counts: [[LineCount]]
    ) {
        let s = try EventTracks.settings(
            "line { name: \"gate\" units: \"pixels\" min_frames: \(minFrames) point { x: 100 y: 0 } point { x: 100 y: 200 } }")
        let runner = try CalculatorRunner(
            LineCounterCalculator.self, options: s, inputs: ["TRACKS:t"], outputs: ["CROSSINGS:c", "COUNTS:n"])
        let frames = paths.values.map(\.count).max() ?? 0
        for f in 0..<frames {
            let tracks = paths.keys.sorted().compactMap { id -> TrackedObject? in
                guard f < paths[id]!.count else { return nil }
                let p = paths[id]![f]
                return EventTracks.standing(id: id, x: p.0, y: p.1, frame: f + 1, label: labels[id] ?? "person")
            }
            runner.add(tracks, tag: "TRACKS", at: Timestamp(Int64(f)))
        }
        try runner.run()
        return (
            try runner.outputs("CROSSINGS").map { try $0.get([LineCrossing].self) },
            try runner.outputs("COUNTS").map { try $0.get([LineCount].self) }
        )
    }

    @Test func directionsByHand() throws {
        // Track 1 walks right to left at y = 100 (crosses between A and B): `in` on its second
        // frame past the line (frame 4). Track 2 walks left to right: `out` at frame 3.
        let r = try run([
            1: [(150, 100), (140, 100), (120, 100), (90, 100), (80, 100), (70, 100)],
            2: [(60, 150), (80, 150), (110, 150), (120, 150), (130, 150), (140, 150)],
        ])
        let found = r.crossings.enumerated().flatMap { f, c in c.map { (f, $0.trackID, $0.direction) } }
        #expect(found.map { "\($0.0):\($0.1):\($0.2)" } == ["3:2:out", "4:1:in"])
        let last = try #require(r.counts.last?.first)
        #expect(last.inCount == 1 && last.outCount == 1 && last.inByLabel == ["person": 1] && last.outByLabel == ["person": 1])
        // Counts are emitted at the start (all 0) and on each change only.
        #expect(r.counts.map { [$0[0].inCount, $0[0].outCount] } == [[0, 0], [0, 1], [1, 1]])
    }

    /// Passing beyond B (y = 300 > 200) is not a crossing of the segment.
    @Test func passingBeyondTheEndDoesNotCount() throws {
        let r = try run([1: [(150, 300), (120, 300), (90, 300), (80, 300), (70, 300)]])
        let none = r.crossings.allSatisfy(\.isEmpty)
        #expect(none)
    }

    /// Stepping back and forth for fewer than min_frames frames on the other side counts nothing;
    /// staying there counts once.
    @Test func jitterNeedsMinFrames() throws {
        let jitter = [(120.0, 100.0), (90, 100), (120, 100), (90, 100), (120, 100), (110, 100)]
        let quiet = try run([1: jitter]).crossings.allSatisfy(\.isEmpty)
        #expect(quiet)
        let r1 = try run([1: jitter], minFrames: 1)
        #expect(r1.crossings.flatMap { $0 }.map(\.direction) == ["in", "out", "in", "out"])
        let settle = jitter + [(90, 100), (80, 100), (70, 100)]
        let settled = try run([1: settle]).crossings.flatMap { $0 }.map(\.direction)
        #expect(settled == ["in"])
    }

    /// A point exactly on the line keeps the old side; the step across is from the last point
    /// before to the first after.
    @Test func pointsOnTheLine() throws {
        let r = try run([1: [(120, 100), (100, 100), (100, 100), (80, 100), (70, 100)]])
        #expect(r.crossings.enumerated().flatMap { f, c in c.map { "\(f):\($0.direction)" } } == ["4:in"])
    }

    /// Labels are counted separately, and a line with labels counts only those.
    @Test func labels() throws {
        let path = [(150.0, 100.0), (120, 100), (90, 100), (80, 100)]
        let r = try run([1: path, 2: path], labels: [2: "car"])
        let last = try #require(r.counts.last?.first)
        #expect(last.inCount == 2 && last.inByLabel == ["person": 1, "car": 1])
    }
}
