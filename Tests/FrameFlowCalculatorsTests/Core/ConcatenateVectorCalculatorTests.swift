import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's ConcatenateVectorCalculator: elements and vectors joined in input order, missing
/// inputs skipped or (only_emit_if_all_present) suppressing the output.
@Suite struct ConcatenateVectorCalculatorTests {
    func runner(_ calculator: String, inputs: Int, options: String = "") throws -> CalculatorRunner {
        let ins = (0..<inputs).map { "input_stream: \"in\($0)\"" }.joined(separator: "\n")
        let opts = options.isEmpty ? "" : "options { [mediapipe.ConcatenateVectorCalculatorOptions.ext] { \(options) } }"
        return try CalculatorRunner(
            node: """
                node {
                  calculator: "\(calculator)"
                  \(ins)
                  output_stream: "out"
                  \(opts)
                }
                """, registry: CalculatorRegistry.standard)
    }

    func renderData(_ scene: String) -> RenderData { RenderData([], sceneClass: scene) }

    @Test func joinsVectorsAndElementsInInputOrder() throws {
        let r = try runner("ConcatenateRenderDataVectorCalculator", inputs: 3)
        r.add([renderData("a"), renderData("b")], index: 0, at: 1)
        r.add(renderData("c"), index: 1, at: 1)
        r.add([renderData("d")], index: 2, at: 1)
        // Timestamp 2: the middle input is missing and adds nothing.
        r.add([renderData("e")], index: 0, at: 2)
        r.add([RenderData](), index: 2, at: 2)
        try r.run()
        let out = try r.outputs().map { try $0.get([RenderData].self).map { $0.sceneClass ?? "" } }
        #expect(out == [["a", "b", "c", "d"], ["e"]])
        #expect(r.outputs().map(\.timestamp) == [1, 2])
    }

    @Test func onlyEmitIfAllPresentSkipsIncompleteTimestamps() throws {
        let r = try runner("ConcatenateFloatVectorCalculator", inputs: 2, options: "only_emit_if_all_present: true")
        r.add([Float](arrayLiteral: 1), index: 0, at: 1)
        r.add(Float(2), index: 1, at: 1)
        r.add([Float](arrayLiteral: 3), index: 0, at: 2)
        r.add([Float](arrayLiteral: 4), index: 1, at: 3)
        r.add([Float](arrayLiteral: 5), index: 0, at: 4)
        r.add([Float](), index: 1, at: 4)
        try r.run()
        #expect(r.outputs().map(\.timestamp) == [1, 4])
        #expect(try r.outputs().map { try $0.get([Float].self) } == [[1, 2], [5]])

        let all = try runner("ConcatenateFloatVectorCalculator", inputs: 2)
        all.add([Float](arrayLiteral: 3), index: 0, at: 2)
        all.add([Float](arrayLiteral: 4), index: 1, at: 3)
        try all.run()
        #expect(try all.outputs().map { try $0.get([Float].self) } == [[3], [4]], "without the option each part goes out")
    }

    @Test func aWrongPayloadNamesTheStream() throws {
        let r = try runner("ConcatenateDetectionVectorCalculator", inputs: 2)
        r.add([Detection](), index: 0, at: 1)
        r.add("text", index: 1, at: 1)
        #expect { try r.run() } throws: { error in
            let text = "\(error)"
            return text.contains("'in1'") && text.contains("String") && text.contains("Detection")
        }
    }

    @Test func needsAnInputAndOneOutput() throws {
        let r = try CalculatorRunner(
            node: """
                node { calculator: "ConcatenateDetectionVectorCalculator" input_stream: "a" output_stream: "x" output_stream: "y" }
                """, registry: CalculatorRegistry.standard)
        r.add([Detection](), at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("one output stream") }
    }
}

/// MediaPipe's ConcatenateNormalizedLandmarkListCalculator and siblings: the lists' elements
/// joined in input order.
@Suite struct ConcatenateListsCalculatorTests {
    func runner(_ calculator: String, options: String = "") throws -> CalculatorRunner {
        let opts = options.isEmpty ? "" : "options { [mediapipe.ConcatenateVectorCalculatorOptions.ext] { \(options) } }"
        return try CalculatorRunner(
            node: """
                node { calculator: "\(calculator)" input_stream: "a" input_stream: "b" output_stream: "out" \(opts) }
                """, registry: CalculatorRegistry.standard)
    }

    func list(_ xs: [Double]) -> NormalizedLandmarkList { NormalizedLandmarkList(xs.map { NormalizedLandmark(x: $0, y: 0) }) }

    @Test func joinsTheLandmarksInInputOrder() throws {
        let r = try runner("ConcatenateNormalizedLandmarkListCalculator")
        r.add(list([1, 2]), index: 0, at: 1)
        r.add(list([3]), index: 1, at: 1)
        r.add(list([4]), index: 1, at: 2)
        try r.run()
        let out = try r.outputs().map { try $0.get(NormalizedLandmarkList.self).landmark.map(\.x) }
        #expect(out == [[1, 2, 3], [4]])
        #expect(r.outputs().map(\.timestamp) == [1, 2])
    }

    @Test func onlyEmitIfAllPresentAndWrongPayloads() throws {
        let r = try runner("ConcatenateClassificationListCalculator", options: "only_emit_if_all_present: true")
        r.add(ClassificationList([Classification(index: 1, score: 0.5)]), index: 0, at: 1)
        r.add(ClassificationList([Classification(index: 2, score: 0.5)]), index: 1, at: 1)
        r.add(ClassificationList([Classification(index: 3, score: 0.5)]), index: 0, at: 2)
        try r.run()
        #expect(try r.outputs().map { try $0.get(ClassificationList.self).classification.map(\.index) } == [[1, 2]])

        let wrong = try runner("ConcatenateLandmarkListCalculator")
        wrong.add(list([1]), index: 1, at: 0)
        #expect { try wrong.run() } throws: { "\($0)".contains("'b'") && "\($0)".contains("NormalizedCoordinates") }
    }
}
