import FrameFlow
import FrameFlowCalculators
import Testing

/// The vector calculators' options from binary graphs (`.binarypb`), through their protobuf
/// schemas: MediaPipe's field and extension numbers, the nested repeated `Range`.
@Suite struct VectorCalculatorsBinaryOptionsTests {
    @Test func splitVector() throws {
        let o = try binaryGraphOptions(
            "SplitNormalizedLandmarkListCalculator", ports: (["in"], ["a"]), ext: 259438222, as: SplitVectorCalculatorOptions.self
        ) { w in
            w.message(1) { r in
                r.int(1, 3)
                r.int(2, 5)
            }
            w.message(1) { r in r.int(2, 2) }
            w.int(3, 1)  // combine_outputs
        }
        #expect(o == SplitVectorCalculatorOptions(ranges: [.init(begin: 3, end: 5), .init(begin: 0, end: 2)], combineOutputs: true))
    }

    @Test func concatenateClipAndMinSize() throws {
        let concat = try binaryGraphOptions(
            "ConcatenateRenderDataVectorCalculator", ports: (["a", "b"], ["out"]), ext: 259397839,
            as: ConcatenateVectorCalculatorOptions.self
        ) { w in w.int(1, 1) }
        #expect(concat == ConcatenateVectorCalculatorOptions(onlyEmitIfAllPresent: true))

        let clip = try binaryGraphOptions(
            "ClipDetectionVectorSizeCalculator", ports: (["in"], ["out"]), ext: 274674998, as: ClipVectorSizeCalculatorOptions.self
        ) { w in w.int(1, 4) }
        #expect(clip == ClipVectorSizeCalculatorOptions(maxVecSize: 4))

        let minSize = try binaryGraphOptions(
            "NormalizedRectVectorHasMinSizeCalculator", ports: (["ITERABLE:in"], ["out"]), ext: 259397840,
            as: CollectionHasMinSizeCalculatorOptions.self
        ) { w in w.int(1, 2) }
        #expect(minSize == CollectionHasMinSizeCalculatorOptions(minSize: 2))
    }
}
