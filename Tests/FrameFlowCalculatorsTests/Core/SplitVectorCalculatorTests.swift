import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's SplitVectorCalculator and SplitNormalizedLandmarkListCalculator: ranges out as
/// lists, single elements or one combined list; bad ranges refused; short inputs an error.
@Suite struct SplitVectorCalculatorTests {
    let registry = CalculatorRegistry.standard

    /// A runner for `calculator` on input `in` with `outputs` untagged outputs and `options`.
    func runner(_ calculator: String, outputs: Int, _ options: String) throws -> CalculatorRunner {
        let outs = (0..<outputs).map { "output_stream: \"out\($0)\"" }.joined(separator: "\n")
        return try CalculatorRunner(
            node: """
                node {
                  calculator: "\(calculator)"
                  input_stream: "in"
                  \(outs)
                  options { [mediapipe.SplitVectorCalculatorOptions.ext] { \(options) } }
                }
                """, registry: registry)
    }

    @Test func rangesGoOutAsListsInOrder() throws {
        let r = try runner(
            "SplitFloatVectorCalculator", outputs: 3,
            "ranges: { begin: 0 end: 1 } ranges: { begin: 1 end: 4 } ranges: { begin: 4 end: 5 }")
        r.add([Float](arrayLiteral: 10, 11, 12, 13, 14), at: 7)
        r.add([Float](arrayLiteral: 20, 21, 22, 23, 24, 25), at: 8)
        try r.run()
        #expect(try r.outputs("", 0).map { try $0.get([Float].self) } == [[10], [20]])
        #expect(try r.outputs("", 1).map { try $0.get([Float].self) } == [[11, 12, 13], [21, 22, 23]])
        #expect(try r.outputs("", 2).map { try $0.get([Float].self) } == [[14], [24]])
        #expect(r.outputs("", 1).map(\.timestamp) == [7, 8])
    }

    @Test func overlappingRangesAreFineWhenCopying() throws {
        let r = try runner("SplitFloatVectorCalculator", outputs: 2, "ranges: { begin: 0 end: 3 } ranges: { begin: 1 end: 4 }")
        r.add([Float](arrayLiteral: 0, 1, 2, 3), at: 0)
        try r.run()
        #expect(try r.outputs("", 0).map { try $0.get([Float].self) } == [[0, 1, 2]])
        #expect(try r.outputs("", 1).map { try $0.get([Float].self) } == [[1, 2, 3]])
    }

    @Test func elementOnlySendsTheElement() throws {
        let r = try runner(
            "SplitDetectionVectorCalculator", outputs: 2, "ranges: { begin: 2 end: 3 } ranges: { begin: 0 end: 1 } element_only: true")
        let detections = (0..<3).map { Detection(relativeBox: Rect(x: 0, y: 0, width: 1, height: 1), score: Double($0)) }
        r.add(detections, at: 3)
        try r.run()
        #expect(try r.outputs("", 0).map { try $0.get(Detection.self) } == [detections[2]])
        #expect(try r.outputs("", 1).map { try $0.get(Detection.self) } == [detections[0]])
    }

    @Test func combineOutputsJoinsTheRanges() throws {
        let r = try runner(
            "SplitFloatVectorCalculator", outputs: 1,
            "ranges: { begin: 4 end: 5 } ranges: { begin: 0 end: 1 } ranges: { begin: 2 end: 3 } combine_outputs: true")
        r.add([Float](arrayLiteral: 0, 1, 2, 3, 4), at: 0)
        try r.run()
        #expect(try r.outputs().map { try $0.get([Float].self) } == [[4, 0, 2]], "in range order")
    }

    @Test func landmarkListsSplitTheirLandmarks() throws {
        let r = try runner(
            "SplitNormalizedLandmarkListCalculator", outputs: 2, "ranges: { begin: 0 end: 2 } ranges: { begin: 3 end: 4 }")
        let list = NormalizedLandmarkList((0..<5).map { NormalizedLandmark(x: Double($0), y: 0) })
        r.add(list, at: 1)
        try r.run()
        let first = try r.outputs("", 0).map { try $0.get(NormalizedLandmarkList.self) }
        #expect(first.map { $0.landmark.map(\.x) } == [[0, 1]])
        let second = try r.outputs("", 1).map { try $0.get(NormalizedLandmarkList.self) }
        #expect(second.map { $0.landmark.map(\.x) } == [[3]])

        let single = try runner("SplitLandmarkListCalculator", outputs: 1, "ranges: { begin: 1 end: 2 } element_only: true")
        single.add(LandmarkList([Landmark(x: 5, y: 6), Landmark(x: 7, y: 8)]), at: 0)
        try single.run()
        #expect(try single.outputs().map { try $0.get(Landmark.self) } == [Landmark(x: 7, y: 8)])
    }

    @Test(arguments: [
        ("ranges: { begin: 0 end: 0 }", 1, "begin less than end"),
        ("ranges: { begin: -1 end: 1 }", 1, "≥ 0"),
        ("ranges: { begin: 0 end: 2 } element_only: true", 1, "element_only"),
        ("ranges: { begin: 0 end: 3 } ranges: { begin: 1 end: 4 } combine_outputs: true", 1, "overlap"),
        ("ranges: { begin: 0 end: 1 }", 2, "expected 1"),
        ("ranges: { begin: 0 end: 1 } ranges: { begin: 1 end: 2 } combine_outputs: true", 2, "combine_outputs"),
    ])
    func badRangesAreRefused(options: String, outputs: Int, message: String) throws {
        let r = try runner("SplitNormalizedRectVectorCalculator", outputs: outputs, options)
        r.add([NormalizedRect](), at: 0)
        #expect { try r.run() } throws: { error in
            "\(error)".contains(message) && "\(error)".contains("SplitNormalizedRectVectorCalculator")
        }
    }

    @Test func aShortInputIsAnErrorNamingTheStream() throws {
        let r = try runner("SplitClassificationListVectorCalculator", outputs: 1, "ranges: { begin: 1 end: 3 }")
        r.add([ClassificationList(), ClassificationList()], at: 4)
        #expect { try r.run() } throws: { error in
            let text = "\(error)"
            return text.contains("'in'") && text.contains("2 elements") && text.contains("need 3")
        }
    }

    @Test func aWrongPayloadIsAnErrorNamingTheStream() throws {
        let r = try runner("SplitDetectionVectorCalculator", outputs: 1, "ranges: { begin: 0 end: 1 }")
        r.add([NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)], at: 0)
        #expect { try r.run() } throws: { error in
            let text = "\(error)"
            return text.contains("'in'") && text.contains("Detection")
        }
    }

    @Test func aRangeWithoutBeginStartsAtZero() throws {
        // proto2 defaults: a missing `begin` is 0.
        let r = try runner("SplitFloatVectorCalculator", outputs: 1, "ranges: { end: 2 }")
        r.add([Float](arrayLiteral: 5, 6, 7), at: 0)
        try r.run()
        #expect(try r.outputs().map { try $0.get([Float].self) } == [[5, 6]])
    }
}
