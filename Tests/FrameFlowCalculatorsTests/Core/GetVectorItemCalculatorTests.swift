import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's GetVectorItemCalculator, after the cases of its C++ test
/// (get_vector_item_calculator_test.cc): the INDEX stream wins over item_index; no index, no
/// output; out of range an error unless output_empty_on_oob; bad options refused at build.
@Suite struct GetVectorItemCalculatorTests {
    let registry = CalculatorRegistry.standard
    let lists = (0..<5).map { k in NormalizedLandmarkList([NormalizedLandmark(x: Double(k), y: 0)]) }

    func runner(index: Bool = false, _ options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "GetNormalizedLandmarkListVectorItemCalculator"
                input_stream: "VECTOR:vector"
                \(index ? "input_stream: \"INDEX:index\"" : "")
                output_stream: "ITEM:item"
                \(options.isEmpty ? "" : "options { [mediapipe.GetVectorItemCalculatorOptions.ext] { \(options) } }")
                """, registry: registry)
    }

    func xs(_ r: CalculatorRunner) throws -> [Double] {
        try r.outputs("ITEM").map { try $0.get(NormalizedLandmarkList.self).landmark[0].x }
    }

    @Test func itemIndexFromTheOptions() throws {
        let r = try runner("item_index: 3")
        r.add(lists, tag: "VECTOR", at: 1)
        r.add(Array(lists.reversed()), tag: "VECTOR", at: 2)
        try r.run()
        #expect(try xs(r) == [3, 1])
        #expect(r.outputs("ITEM").map(\.timestamp) == [1, 2])
    }

    @Test func theIndexStreamWinsAndTakesEveryIntegerType() throws {
        let r = try runner(index: true, "item_index: 2")
        r.add(lists, tag: "VECTOR", at: 1)
        r.add(4, tag: "INDEX", at: 1)
        r.add(lists, tag: "VECTOR", at: 2)
        r.add(UInt64(1), tag: "INDEX", at: 2)
        r.add(lists, tag: "VECTOR", at: 3)
        r.add(Int32(0), tag: "INDEX", at: 3)
        r.add(lists, tag: "VECTOR", at: 4)  // no INDEX packet: the option's
        try r.run()
        #expect(try xs(r) == [4, 1, 0, 2])
    }

    @Test func anEmptyIndexStreamWithoutOptionGivesNothing() throws {
        let r = try runner(index: true)
        r.add(lists, tag: "VECTOR", at: 1)
        try r.run()
        #expect(r.outputs("ITEM").isEmpty)
    }

    @Test func pastTheEndFailsUnlessEmptyOnOob() throws {
        let strict = try runner("item_index: 5")
        strict.add(lists, tag: "VECTOR", at: 1)
        #expect { try strict.run() } throws: { e in "\(e)".contains("index 5") && "\(e)".contains("vector of 5") }
        let lenient = try runner("item_index: 5 output_empty_on_oob: true")
        lenient.add(lists, tag: "VECTOR", at: 1)
        lenient.add([NormalizedLandmarkList](), tag: "VECTOR", at: 2)
        try lenient.run()
        #expect(lenient.outputs("ITEM").isEmpty)
    }

    @Test(arguments: [Int.min, -1, Int(Int32.min)])
    func aNegativeIndexStreamFails(index: Int) throws {
        let r = try runner(index: true)
        r.add(lists, tag: "VECTOR", at: 1)
        r.add(index, tag: "INDEX", at: 1)
        #expect { try r.run() } throws: { e in "\(e)".contains("negative") }
    }

    @Test func aNonIntegerIndexFails() throws {
        let r = try runner(index: true)
        r.add(lists, tag: "VECTOR", at: 1)
        r.add(1.5, tag: "INDEX", at: 1)
        #expect { try r.run() } throws: { e in "\(e)".contains("INDEX must hold") }
    }

    @Test(arguments: ["", "item_index: -1", "item_index: 1e308", "item_index: nan", "item_index: inf", "item_index: 99999999999999999999"])
    func badOptionsAreRefusedAtBuild(options: String) throws {
        #expect(throws: (any Error).self) {
            let r = try runner(options)
            r.add(lists, tag: "VECTOR", at: 1)
            try r.run()
        }
    }

    @Test func optionsFromTheBinarySchema() {
        #expect(GetVectorItemCalculatorOptions.protoSchema?.extensionNumber == 463_538_543)
    }
}
