import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's CollectionHasMinSizeCalculator: `count >= min_size` per packet; the side packet
/// wins over the option; a negative option refused.
@Suite struct CollectionHasMinSizeCalculatorTests {
    func runner(_ calculator: String, _ options: String, side: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                node {
                  calculator: "\(calculator)"
                  input_stream: "ITERABLE:in"
                  output_stream: "out"
                  \(side ? "input_side_packet: \"min\"" : "")
                  options { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] { \(options) } }
                }
                """, registry: CalculatorRegistry.standard)
    }

    @Test func comparesTheSizeWithTheMinimum() throws {
        let r = try runner("ClassificationListVectorHasMinSizeCalculator", "min_size: 2")
        for (t, n) in [1, 2, 3, 0].enumerated() {
            r.add(Array(repeating: ClassificationList(), count: n), tag: "ITERABLE", at: Timestamp(Int64(t)))
        }
        try r.run()
        #expect(try r.outputs().map { try $0.get(Bool.self) } == [false, true, true, false])
        #expect(r.outputs().map(\.timestamp) == [0, 1, 2, 3])
    }

    @Test func theSidePacketWins() throws {
        let r = try runner("NormalizedLandmarkListVectorHasMinSizeCalculator", "min_size: 5", side: true)
        r.setSidePacket(1)
        r.add([NormalizedLandmarkList()], tag: "ITERABLE", at: 0)
        r.add([NormalizedLandmarkList](), tag: "ITERABLE", at: 1)
        try r.run()
        #expect(try r.outputs().map { try $0.get(Bool.self) } == [true, false])
    }

    @Test func aNegativeMinimumIsRefused() throws {
        let r = try runner("NormalizedRectVectorHasMinSizeCalculator", "min_size: -1")
        r.add([NormalizedRect](), tag: "ITERABLE", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("min_size") }
    }

    @Test func aWrongPayloadNamesTheStream() throws {
        let r = try runner("NormalizedRectVectorHasMinSizeCalculator", "")
        // Not empty: an empty Swift array casts to an array of any element type.
        r.add([Detection(relativeBox: Rect(x: 0, y: 0, width: 1, height: 1), score: 1)], tag: "ITERABLE", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("'in'") && "\($0)".contains("NormalizedRect") }
    }
}
