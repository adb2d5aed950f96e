import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

/// HandAssociationCalculator on the case of MediaPipe's hand_association_calculator_test.cc
/// (rects nr_0 … nr_5, threshold 0.1) and on IoUs worked out here.
@Suite struct HandAssociationCalculatorTests {
    typealias Calc = HandAssociationCalculator

    // MediaPipe's test rects (centre x, centre y, width, height).
    static let nr0 = NormalizedRect(xCenter: 0.2, yCenter: 0.2, width: 0.2, height: 0.2)
    static let nr1 = NormalizedRect(xCenter: 0.4, yCenter: 0.2, width: 0.2, height: 0.2)
    static let nr2 = NormalizedRect(xCenter: 1.0, yCenter: 0.3, width: 0.2, height: 0.2)
    static let nr3 = NormalizedRect(xCenter: 0.35, yCenter: 0.15, width: 0.3, height: 0.3)
    static let nr4 = NormalizedRect(xCenter: 1.1, yCenter: 0.3, width: 0.2, height: 0.2)
    static let nr5 = NormalizedRect(xCenter: 0.5, yCenter: 0.05, width: 0.3, height: 0.3)

    static func withID(_ r: NormalizedRect, _ id: Int64) -> NormalizedRect {
        var r = r
        r.rectID = id
        return r
    }

    /// Runs one node; `packets[port]` lists (timestamp, rects) for ports written as in graph files.
    func run(_ ports: [String], _ packets: [[(Int64, [NormalizedRect])]], threshold: Double = 0.1) throws -> [[NormalizedRect]] {
        let runner = try CalculatorRunner(Calc.self, options: Calc.Options(minSimilarityThreshold: threshold), inputs: ports, outputs: ["out"])
        for (k, port) in ports.enumerated() {
            let ref = try StreamRef(parsing: port)
            for (t, rects) in packets[k] { runner.add(rects, tag: ref.tag, index: ref.index, at: Timestamp(t)) }
        }
        try runner.run()
        return try runner.outputs().map { try $0.get([NormalizedRect].self) }
    }

    /// NormRectAssocTest: every base rect stays (ids 1, 2, 3); nr_3 overlaps nr_0, nr_4 nr_2 and
    /// nr_5 nr_1, so no new rect is added.
    @Test func baseRectsStayAndOverlappingNewOnesAreDropped() throws {
        let out = try run(
            ["BASE_RECTS:b", "RECTS:0:r0", "RECTS:1:r1"],
            [[(1, [Self.nr0, Self.nr1, Self.nr2])], [(1, [Self.nr3, Self.nr4])], [(1, [Self.nr5])]])
        #expect(out == [[Self.withID(Self.nr0, 1), Self.withID(Self.nr1, 2), Self.withID(Self.nr2, 3)]])
    }

    /// New rects are checked against those added before them too, and keep an id they have; ids
    /// count on across timestamps.
    @Test func newRectsAreComparedWithEachOtherAndIDsCountOn() throws {
        let tagged = Self.withID(Self.nr2, 42)
        let out = try run(["RECTS:r"], [[(0, [Self.nr0, Self.nr3, tagged]), (1, [Self.nr4])]])
        // nr_3 overlaps nr_0 (IoU 0.02/0.11 ≈ 0.18 > 0.1); nr_2 keeps its id 42.
        #expect(out == [[Self.withID(Self.nr0, 1), tagged], [Self.withID(Self.nr4, 2)]])
    }

    /// a = [0.4, 0.6]², b the same moved right by 0.1: IoU = 0.02 / 0.06 = 1/3. b is added only
    /// when the threshold is at least 1/3 (overlap means IoU strictly above it).
    @Test func thresholdIsOnIoUStrictlyAbove() throws {
        let a = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2)
        let b = NormalizedRect(xCenter: 0.6, yCenter: 0.5, width: 0.2, height: 0.2)
        #expect(try run(["BASE_RECTS:x", "RECTS:y"], [[(0, [a])], [(0, [b])]], threshold: 0.33) == [[Self.withID(a, 1)]])
        #expect(
            try run(["BASE_RECTS:x", "RECTS:y"], [[(0, [a])], [(0, [b])]], threshold: 0.34) == [[Self.withID(a, 1), Self.withID(b, 2)]])
        // Rotation is ignored.
        var turned = b
        turned.rotation = 1
        #expect(try run(["BASE_RECTS:x", "RECTS:y"], [[(0, [a])], [(0, [turned])]], threshold: 0.33).first?.count == 1)
    }

    @Test func negativeSizesAndMissingInputsAreErrors() throws {
        let bad = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: -0.1, height: 0.2)
        let e = TasksCalculatorTesting.thrown { _ = try run(["RECTS:r"], [[(0, [bad])]]) }
        #expect(e?.contains("negative") == true && e?.contains("HandAssociationCalculator") == true)
        let none = try CalculatorRunner(Calc.self, inputs: [], outputs: ["out"])
        #expect(TasksCalculatorTesting.thrown { try none.run() }?.contains("BASE_RECTS or RECTS") == true)
    }

    /// The threshold must be in (0, 1]: refused when the graph is built.
    @Test(arguments: ["0", "-0.1", "1.5", "1e308", "nan", "inf"])
    func refusesThresholdsOutsideTheirRange(value: String) {
        let e = TasksCalculatorTesting.nodeError(
            """
            calculator: "HandAssociationCalculator" input_stream: "RECTS:r" output_stream: "o"
            options { [mediapipe.HandAssociationCalculatorOptions.ext] { min_similarity_threshold: \(value) } }
            """, inputs: ["r"])
        TasksCalculatorTesting.expectInvalidOption(e, naming: "min_similarity_threshold", value)
    }
}
