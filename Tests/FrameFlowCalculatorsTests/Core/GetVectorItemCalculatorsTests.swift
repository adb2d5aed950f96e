import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// The Get…VectorItemCalculators and NormalizedLandmarkListVectorIndicesCalculator against
/// MediaPipe's GetVectorItemCalculator / VectorIndicesCalculator rules.
@Suite struct GetVectorItemCalculatorsTests {
    static let rects = (0..<3).map { NormalizedRect(xCenter: 0.1 * Double($0), yCenter: 0.5, width: 0.1, height: 0.1) }

    func run(_ options: String = "", index: (any Sendable)?, connectIndex: Bool = true) throws -> [NormalizedRect] {
        let runner = try CalculatorRunner(
            node: """
                calculator: "GetNormalizedRectVectorItemCalculator" input_stream: "VECTOR:v"
                \(connectIndex ? "input_stream: \"INDEX:i\"" : "") output_stream: "ITEM:o"
                options { [mediapipe.GetVectorItemCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        runner.add(Self.rects, tag: "VECTOR", at: 0)
        if let index { runner.add(index, tag: "INDEX", at: 0) }
        try runner.run()
        return try runner.outputs("ITEM").map { try $0.get(NormalizedRect.self) }
    }

    @Test func itemByIndexStreamOrOption() throws {
        #expect(try run(index: 2) == [Self.rects[2]])
        #expect(try run(index: UInt64(1)) == [Self.rects[1]])
        #expect(try run("item_index: 0", index: nil, connectIndex: false) == [Self.rects[0]])
        // The stream overrides the option; without either packet nothing comes.
        #expect(try run("item_index: 0", index: 1) == [Self.rects[1]])
        #expect(try run(index: nil).isEmpty)
        #expect(try run("output_empty_on_oob: true", index: 3).isEmpty)
    }

    @Test func badIndexesAreErrors() throws {
        #expect(thrownDescription { _ = try run(index: 3) }?.contains("past the end") == true)
        #expect(thrownDescription { _ = try run(index: -1) }?.contains("negative") == true)
        #expect(thrownDescription { _ = try run(index: "one") }?.contains("Int or a UInt64") == true)
        #expect(thrownDescription { _ = try run(index: nil, connectIndex: false) }?.contains("item_index") == true)
        let e = nodeOptionError(
            """
            calculator: "GetLandmarkListVectorItemCalculator" input_stream: "VECTOR:v" output_stream: "ITEM:o"
            options { [mediapipe.GetVectorItemCalculatorOptions.ext] { item_index: -2 } }
            """)
        expectInvalidOption(e, naming: "item_index", "-2")
    }

    /// Each element type has its calculator.
    @Test func everyElementType() throws {
        let lists = [ClassificationList([Classification(index: 0, score: 1, label: "a")]), ClassificationList([])]
        let c = try CalculatorRunner(GetClassificationListVectorItemCalculator.self, inputs: ["VECTOR:v", "INDEX:i"], outputs: ["ITEM:o"])
        c.add(lists, tag: "VECTOR", at: 0)
        c.add(0, tag: "INDEX", at: 0)
        try c.run()
        #expect(try c.outputs("ITEM").map { try $0.get(ClassificationList.self) } == [lists[0]])
        let hands = [NormalizedLandmarkList([NormalizedLandmark(x: 1, y: 2, z: 3)]), NormalizedLandmarkList([])]
        let n = try CalculatorRunner(GetNormalizedLandmarkListVectorItemCalculator.self, inputs: ["VECTOR:v", "INDEX:i"], outputs: ["ITEM:o"])
        n.add(hands, tag: "VECTOR", at: 0)
        n.add(1, tag: "INDEX", at: 0)
        try n.run()
        #expect(try n.outputs("ITEM").map { try $0.get(NormalizedLandmarkList.self) } == [hands[1]])
        let world = [LandmarkList([Landmark(x: 1, y: 2, z: 3)])]
        let w = try CalculatorRunner(GetLandmarkListVectorItemCalculator.self, inputs: ["VECTOR:v", "INDEX:i"], outputs: ["ITEM:o"])
        w.add(world, tag: "VECTOR", at: 0)
        w.add(0, tag: "INDEX", at: 0)
        try w.run()
        #expect(try w.outputs("ITEM").map { try $0.get(LandmarkList.self) } == world)
        let indices = try CalculatorRunner(NormalizedLandmarkListVectorIndicesCalculator.self, inputs: ["VECTOR:v"], outputs: ["INDICES:o"])
        indices.add(hands + hands, tag: "VECTOR", at: 0)
        indices.add([NormalizedLandmarkList](), tag: "VECTOR", at: 1)
        try indices.run()
        #expect(try indices.outputs("INDICES").map { try $0.get([Int].self) } == [[0, 1, 2, 3], []])
    }
}
