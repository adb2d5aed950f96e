import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's Get…VectorItemCalculators: the item at INDEX (int or uint64) or item_index,
/// at the vector's timestamp; out of range refused unless output_empty_on_oob (then nothing);
/// bad options and a missing index refused when the graph is built. Cases from MediaPipe's
/// get_vector_item_calculator_test.cc (index stream, option, out of bounds, negative).
@Suite struct VectorItemCalculatorTests {
    func lists(_ n: Int) -> [NormalizedLandmarkList] {
        (0..<n).map { NormalizedLandmarkList([NormalizedLandmark(x: Double($0), y: 0, z: 0)]) }
    }

    func runner(_ calculator: String = "GetNormalizedLandmarkListVectorItemCalculator", index: Bool, _ options: String = "") throws
        -> CalculatorRunner
    {
        try CalculatorRunner(
            node: """
                node {
                  calculator: "\(calculator)"
                  input_stream: "VECTOR:vector"
                  \(index ? "input_stream: \"INDEX:index\"" : "")
                  output_stream: "ITEM:item"
                  \(options.isEmpty ? "" : "options { [mediapipe.GetVectorItemCalculatorOptions.ext] { \(options) } }")
                }
                """, registry: CalculatorRegistry.standard)
    }

    @Test func takesTheItemTheIndexStreamNames() throws {
        let r = try runner(index: true)
        r.add(lists(3), tag: "VECTOR", at: 1)
        r.add(2, tag: "INDEX", at: 1)
        r.add(lists(3), tag: "VECTOR", at: 2)
        r.add(UInt64(0), tag: "INDEX", at: 2)
        try r.run()
        let items = try r.outputs("ITEM").map { try $0.get(NormalizedLandmarkList.self).landmark[0].x }
        #expect(items == [2, 0])
        #expect(r.outputs("ITEM").map(\.timestamp) == [1, 2])
    }

    @Test func theOptionGivesTheIndexWithoutAStream() throws {
        let r = try runner(index: false, "item_index: 1")
        r.add(lists(2), tag: "VECTOR", at: 0)
        try r.run()
        #expect(try r.outputs("ITEM").map { try $0.get(NormalizedLandmarkList.self).landmark[0].x } == [1])
    }

    @Test func otherElementTypes() throws {
        let world = try runner("GetLandmarkListVectorItemCalculator", index: false, "item_index: 0")
        world.add([LandmarkList([Landmark(x: 7, y: 0, z: 0)])], tag: "VECTOR", at: 0)
        try world.run()
        #expect(try world.outputs("ITEM").first?.get(LandmarkList.self).landmark[0].x == 7)
        let rects = try runner("GetNormalizedRectVectorItemCalculator", index: false, "item_index: 1")
        let two = [0.1, 0.2].map { NormalizedRect(xCenter: $0, yCenter: 0, width: 1, height: 1) }
        rects.add(two, tag: "VECTOR", at: 0)
        try rects.run()
        #expect(try rects.outputs("ITEM").first?.get(NormalizedRect.self).xCenter == 0.2)
    }

    @Test func pastTheEndIsAnErrorUnlessAllowed() throws {
        let strict = try runner(index: false, "item_index: 3")
        strict.add(lists(3), tag: "VECTOR", at: 0)
        #expect { try strict.run() } throws: { "\($0)".contains("past the end of a vector of 3") }
        let lenient = try runner(index: true, "output_empty_on_oob: true")
        lenient.add(lists(0), tag: "VECTOR", at: 0)
        lenient.add(0, tag: "INDEX", at: 0)
        try lenient.run()
        #expect(lenient.outputs("ITEM").isEmpty)
    }

    @Test func badIndexesAreRefused() throws {
        let negative = try runner(index: true)
        negative.add(lists(2), tag: "VECTOR", at: 0)
        negative.add(-1, tag: "INDEX", at: 0)
        #expect { try negative.run() } throws: { "\($0)".contains("negative") }
        let notAnInteger = try runner(index: true)
        notAnInteger.add(lists(2), tag: "VECTOR", at: 0)
        notAnInteger.add("first", tag: "INDEX", at: 0)
        #expect { try notAnInteger.run() } throws: { "\($0)".contains("INDEX must be an integer") }
        let huge = try runner(index: true, "output_empty_on_oob: true")
        huge.add(lists(2), tag: "VECTOR", at: 0)
        huge.add(UInt64.max, tag: "INDEX", at: 0)
        try huge.run()
        #expect(huge.outputs("ITEM").isEmpty)
    }

    @Test func neitherIndexNorOptionIsRefused() throws {
        let r = try runner(index: false)
        r.add(lists(1), tag: "VECTOR", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("INDEX stream or the item_index option") }
    }

    @Test func badOptionsAreRefusedNamingTheField() throws {
        for options in ["item_index: -1", "item_index: 1e308", "item_index: nan", "item_index: inf", "item_index: 99999999999999999999999"] {
            #expect(throws: (any Error).self, "\(options)") {
                let r = try runner(index: false, options)
                r.add(lists(1), tag: "VECTOR", at: 0)
                try r.run()
            }
        }
        #expect { try runner(index: false, "item_index: -1").run() } throws: { "\($0)".contains("item_index") }
    }
}
