import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// AssociationNormRectCalculator on the cases of MediaPipe's association_calculator_test.cc
/// (rects nr_0 … nr_5, threshold 0.1) and on IoUs worked out here.
@Suite struct AssociationNormRectCalculatorTests {
    typealias Calc = AssociationNormRectCalculator

    // MediaPipe's test rects (centre x, centre y, width, height).
    static let nr0 = NormalizedRect(xCenter: 0.2, yCenter: 0.2, width: 0.2, height: 0.2)
    static let nr1 = NormalizedRect(xCenter: 0.4, yCenter: 0.2, width: 0.2, height: 0.2)
    static let nr2 = NormalizedRect(xCenter: 1.0, yCenter: 0.3, width: 0.2, height: 0.2)
    static let nr3 = NormalizedRect(xCenter: 0.35, yCenter: 0.15, width: 0.3, height: 0.3)
    static let nr4 = NormalizedRect(xCenter: 1.1, yCenter: 0.3, width: 0.2, height: 0.2)
    static let nr5 = NormalizedRect(xCenter: 0.45, yCenter: 0.05, width: 0.3, height: 0.3)

    /// Runs a node with `inputs.count` untagged inputs; `inputs[i][t]` is input i's packet at
    /// timestamp t (nil: none). Returns the output packets.
    func run(_ inputs: [[[NormalizedRect]?]], threshold: Double? = 0.1, prev: [NormalizedRect]? = nil) throws -> [Packet] {
        var o = Calc.Options()
        if let threshold { o.minSimilarityThreshold = threshold }
        let names = inputs.indices.map { "in\($0)" } + (prev == nil ? [] : ["PREV:prev"])
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: names, outputs: ["out"])
        for (i, packets) in inputs.enumerated() {
            for (t, rects) in packets.enumerated() {
                if let rects { runner.add(rects, index: i, at: Timestamp(Int64(t))) }
            }
        }
        if let prev { runner.add(prev, tag: "PREV", at: 0) }
        try runner.run()
        return runner.outputs()
    }

    func rects(_ packets: [Packet]) throws -> [[NormalizedRect]] { try packets.map { try $0.get([NormalizedRect].self) } }

    /// NormRectAssocTest: nr_3 overlaps nr_0 and nr_1 and is dropped for nr_5; nr_4 replaces
    /// nr_2. Output in the order added: nr_4, nr_5.
    @Test func laterInputsWin() throws {
        let out = try rects(run([[[Self.nr0, Self.nr1, Self.nr2]], [[Self.nr3, Self.nr4]], [[Self.nr5]]]))
        #expect(out == [[Self.nr4, Self.nr5]])
    }

    /// NormRectAssocTestReverse: the same rects in reverse priority keep nr_0, nr_1, nr_2.
    @Test func reversedPriorityKeepsTheOthers() throws {
        let out = try rects(run([[[Self.nr5]], [[Self.nr3, Self.nr4]], [[Self.nr0, Self.nr1, Self.nr2]]]))
        #expect(out == [[Self.nr0, Self.nr1, Self.nr2]])
    }

    /// NormRectAssocSingleInputStream: within one input the later rect wins too.
    @Test func laterInTheSameInputWins() throws {
        #expect(try rects(run([[[Self.nr3, Self.nr5]]])) == [[Self.nr5]])
    }

    /// a = [0.4, 0.6]², b the same moved right by 0.1: intersection 0.1 × 0.2 = 0.02, union
    /// 0.04 + 0.04 − 0.02 = 0.06, IoU 1/3. Merged only when the threshold is below 1/3; at the
    /// default 1.0 even identical rects stay apart (IoU is never above 1).
    @Test func thresholdIsOnIoUStrictlyAbove() throws {
        let a = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2)
        let b = NormalizedRect(xCenter: 0.6, yCenter: 0.5, width: 0.2, height: 0.2)
        let far = NormalizedRect(xCenter: 0.1, yCenter: 0.1, width: 0.05, height: 0.05)
        #expect(try rects(run([[[a, far]], [[b]]], threshold: 0.33)) == [[far, b]], "survivors keep their order, the new rect goes last")
        #expect(try rects(run([[[a, far]], [[b]]], threshold: 0.34)) == [[a, far, b]])
        #expect(try rects(run([[[a]], [[a]]], threshold: nil)) == [[a, a]])
        #expect(try rects(run([[[a]], [[a]]], threshold: 0)) == [[a]])
        // Rotation is ignored: the boxes are axis-aligned.
        var turned = b
        turned.rotation = 1
        #expect(try rects(run([[[a]], [[turned]]], threshold: 0.33)) == [[turned]])
        // Touching edges: zero intersection, never above a threshold of 0.
        // (Sides of 0.25 at multiples of 0.125: exact in binary, so the edges meet exactly.)
        let p = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.25, height: 0.25)
        let touching = NormalizedRect(xCenter: 0.75, yCenter: 0.5, width: 0.25, height: 0.25)
        #expect(try rects(run([[[p]], [[touching]]], threshold: 0)) == [[p, touching]])
        // A negative side is an empty box: it overlaps nothing.
        let negative = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: -0.2, height: 0.2)
        #expect(try rects(run([[[a]], [[negative]]], threshold: 0)) == [[a, negative]])
    }

    /// Inputs with no packet or an empty list add nothing; each timestamp with any packet
    /// gives a list, perhaps empty. PREV changes nothing for rects.
    @Test func missingAndEmptyInputs() throws {
        let out = try run([
            [[Self.nr0], nil, [], nil],
            [nil, [Self.nr3], nil, []],
            [[Self.nr1], [], nil, nil],
        ])
        #expect(out.map(\.timestamp.microseconds) == [0, 1, 2, 3])
        #expect(try rects(out) == [[Self.nr0, Self.nr1], [Self.nr3], [], []])
        let withPrev = try run([[[Self.nr0, Self.nr2]]], prev: [Self.nr0, Self.nr4])
        #expect(try rects(withPrev) == [[Self.nr0, Self.nr2]])
    }

    @Test func optionsInTextAndBinary() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "AssociationNormRectCalculator" input_stream: "a" input_stream: "b" output_stream: "out"
                options { [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.1 } }
                """, registry: .standard)
        runner.add([Self.nr0, Self.nr1, Self.nr2], index: 0, at: 0)
        runner.add([Self.nr3, Self.nr4], index: 1, at: 0)
        try runner.run()
        #expect(try rects(runner.outputs()) == [[Self.nr3, Self.nr4]])

        let o = try binaryGraphOptions(
            "AssociationNormRectCalculator", ports: (["a", "b"], ["out"]), ext: 275124847, as: Calc.Options.self
        ) { w in w.float(1, 0.5) }
        #expect(o == Calc.Options(minSimilarityThreshold: 0.5))
        let unset = try binaryGraphOptions(
            "AssociationNormRectCalculator", ports: (["a"], ["out"]), ext: 275124847, as: Calc.Options.self
        ) { _ in }
        #expect(unset?.minSimilarityThreshold == 1)
    }

    @Test func badOptionsPortsAndPayloadsAreErrors() throws {
        let negative = #expect(throws: GraphError.self) { try Calc.Options(minSimilarityThreshold: -0.1).validate() }
        #expect(negative?.kind == .invalidOption && negative?.message.contains("min_similarity_threshold") == true)
        let onlyPrev = try CalculatorRunner(Calc.self, inputs: ["PREV:p"], outputs: ["out"])
        let noInputs = thrownDescription { try onlyPrev.run() }
        #expect(noInputs?.contains("AssociationNormRectCalculator") == true)
        let runner = try CalculatorRunner(Calc.self, inputs: ["a"], outputs: ["out"])
        runner.add([Self.nr0], at: 0)
        runner.add("not rects", at: 1)
        let wrongType = thrownDescription { try runner.run() }
        #expect(wrongType?.contains("node 'AssociationNormRectCalculator'") == true)
    }

    /// An IoU threshold outside 0…1 is refused when the graph is built.
    @Test(arguments: ["min_similarity_threshold: -0.1", "min_similarity_threshold: 1.5", "min_similarity_threshold: 1e308"])
    func refusesThresholdsOutsideTheirRange(options: String) {
        let e = nodeOptionError(
            """
            calculator: "AssociationNormRectCalculator" input_stream: "a" output_stream: "o"
            options { [mediapipe.AssociationCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: "min_similarity_threshold", options)
    }
}
