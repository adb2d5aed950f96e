import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

/// HandLandmarksDeduplicationCalculator against MediaPipe's rule worked out by hand: a hand is a
/// duplicate of a kept one when ≥ 10 of its 21 landmarks lie closer than 0.2 × the larger
/// baseline (pixels) and the landmark boxes have IoU > 0.2.
@Suite struct HandLandmarksDeduplicationCalculatorTests {
    typealias Calc = HandLandmarksDeduplicationCalculator
    static let size = ImageSize(width: 200, height: 100)

    /// A hand: 21 points on a 7 × 3 grid 0.01 apart from (x, y), wrist (0) at the corner, index
    /// MCP (5) at column 5, pinky MCP (17) at (column 3, row 2). In pixels (200 × 100):
    /// wrist → index MCP 10 px, index MCP → pinky MCP √(4² + 2²) = 4.47 px, pinky MCP → wrist
    /// √(6² + 2²) = 6.32 px: baseline 10 px, so landmarks closer than 2 px match.
    static func hand(_ x: Double, _ y: Double) -> NormalizedLandmarkList {
        var points: [NormalizedLandmark] = []
        for i in 0..<21 {
            let column = Double(i % 7), row = Double(i / 7)
            points.append(NormalizedLandmark(x: x + 0.01 * column, y: y + 0.01 * row, z: 0))
        }
        return NormalizedLandmarkList(points)
    }

    func run(_ hands: [NormalizedLandmarkList], extra: Bool = true) throws -> (landmarks: [[NormalizedLandmarkList]], labels: [[String]]) {
        let inputs = ["MULTI_LANDMARKS:l", "IMAGE_SIZE:s"] + (extra ? ["MULTI_CLASSIFICATIONS:c"] : [])
        let runner = try CalculatorRunner(
            Calc.self, inputs: inputs, outputs: ["MULTI_LANDMARKS:ol"] + (extra ? ["MULTI_CLASSIFICATIONS:oc"] : []))
        runner.add(hands, tag: "MULTI_LANDMARKS", at: 0)
        runner.add(Self.size, tag: "IMAGE_SIZE", at: 0)
        if extra {
            let labels = hands.indices.map { ClassificationList([Classification(index: 0, score: 1, label: "hand\($0)")]) }
            runner.add(labels, tag: "MULTI_CLASSIFICATIONS", at: 0)
        }
        try runner.run()
        let l = try runner.outputs("MULTI_LANDMARKS").map { try $0.get([NormalizedLandmarkList].self) }
        let c =
            extra
            ? try runner.outputs("MULTI_CLASSIFICATIONS").map { try $0.get([ClassificationList].self).map { $0.classification[0].label ?? "" } } : []
        return (l, c)
    }

    /// A copy moved by 1.5 px (< 2 px) duplicates the first hand; moved by 2.5 px it does not.
    /// A far hand is kept; the other lists are filtered alike.
    @Test func duplicatesAreDroppedWithTheirEntries() throws {
        let a = Self.hand(0.3, 0.3), far = Self.hand(0.7, 0.6)
        let near = Self.hand(0.3 + 1.5 / 200, 0.3), apart = Self.hand(0.3 + 2.5 / 200, 0.3)
        let dropped = try run([a, near, far])
        #expect(dropped.landmarks == [[a, far]] && dropped.labels == [["hand0", "hand2"]])
        let kept = try run([a, apart, far])
        #expect(kept.landmarks == [[a, apart, far]] && kept.labels == [["hand0", "hand1", "hand2"]])
        // No duplicate: the inputs go out as they came.
        #expect(try run([a, far]).landmarks == [[a, far]])
        #expect(try run([]).landmarks == [[]])
    }

    /// Close landmarks are not enough: the boxes must overlap (IoU > 0.2) too. A hand whose
    /// first 10 points coincide with the first hand's but which is stretched 10× (box IoU
    /// ≈ 0.04) stays.
    @Test func boxesMustOverlapToo() throws {
        let a = Self.hand(0.3, 0.3)
        var stretched = a
        for i in 10..<21 {
            let column = Double(i % 7), row = Double(i / 7)
            stretched.landmark[i].x = 0.3 + 0.1 * column
            stretched.landmark[i].y = 0.3 + 0.1 * row
        }
        #expect(try run([a, stretched]).landmarks == [[a, stretched]])
    }

    @Test func malformedInputsAreErrors() throws {
        var short = Self.hand(0.3, 0.3)
        short.landmark.removeLast()
        #expect(TasksCalculatorTesting.thrown { _ = try run([short]) }?.contains("21") == true)
        // A list of another length than the hands', once something is dropped.
        let runner = try CalculatorRunner(
            Calc.self, inputs: ["MULTI_LANDMARKS:l", "IMAGE_SIZE:s", "MULTI_ROIS:r"], outputs: ["MULTI_LANDMARKS:o", "MULTI_ROIS:or"])
        let a = Self.hand(0.3, 0.3)
        runner.add([a, a], tag: "MULTI_LANDMARKS", at: 0)
        runner.add(Self.size, tag: "IMAGE_SIZE", at: 0)
        runner.add([NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)], tag: "MULTI_ROIS", at: 0)
        #expect(TasksCalculatorTesting.thrown { try runner.run() }?.contains("MULTI_ROIS has 1 entries for 2 hands") == true)
    }
}
