import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// mediapipe.tasks.TensorsToSegmentationCalculator: the activations against their formulas,
/// the confidence masks' resize against OpenCV's cv2.resize (the committed fixture of the
/// legacy calculator's test), the category mask against hand-worked corner-aligned samples and
/// a double-precision evaluation of the rule, and the input it refuses.
@Suite struct TasksTensorsToSegmentationCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(activation: String = "NONE", sized: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "mediapipe.tasks.TensorsToSegmentationCalculator"
                input_stream: "TENSORS:tensors"
                \(sized ? "input_stream: \"OUTPUT_SIZE:size\"" : "")
                output_stream: "CONFIDENCE_MASKS:confidence"
                output_stream: "CATEGORY_MASK:category"
                output_stream: "QUALITY_SCORES:quality"
                options { [mediapipe.tasks.TensorsToSegmentationCalculatorOptions.ext] { segmenter_options { activation: \(activation) } } }
                """, registry: registry)
    }

    func category(_ r: CalculatorRunner) throws -> [UInt8] {
        let m = try #require(r.outputs("CATEGORY_MASK").first).get(ImageFrame.self)
        #expect(m.format == .gray8)
        return (0..<m.height).flatMap { Array(m.row($0).prefix(m.width)) }
    }

    @Test func isRegisteredUnderMediaPipesTasksName() {
        #expect(registry.calculator(named: "mediapipe.tasks.TensorsToSegmentationCalculator") == TasksTensorsToSegmentationCalculator.self)
        #expect(registry.calculator(named: "TensorsToSegmentationCalculator") == TensorsToSegmentationCalculator.self)
    }

    @Test func activationsOfEachChannel() throws {
        let x: [Float] = [0, 3, -2, 10, 1, -1]  // 1 × 3 pixels × 2 channels
        for activation in ["NONE", "SIGMOID", "SOFTMAX"] {
            let r = try runner(activation: activation)
            r.add([Tensor(shape: [1, 1, 3, 2], floats: x)], tag: "TENSORS", at: 0)
            try r.run()
            let masks = try #require(r.outputs("CONFIDENCE_MASKS").first).get([ImageFrame].self)
            try #require(masks.count == 2)
            for c in 0..<2 {
                let got = try masks[c].grayFloatValues()
                let want: [Double] = (0..<3).map { p in
                    let (a, b) = (Double(x[2 * p]), Double(x[2 * p + 1]))
                    let v = c == 0 ? a : b
                    switch activation {
                    case "SIGMOID": return 1 / (1 + exp(-v))
                    case "SOFTMAX": return exp(v) / (exp(a) + exp(b))
                    default: return v
                    }
                }
                #expect(zip(got, want).allSatisfy { abs(Double($0) - $1) < 1e-6 }, "\(activation) channel \(c): \(got) vs \(want)")
            }
            #expect(try r.outputs("QUALITY_SCORES").first?.get([Float].self) == [1, 1])
        }
    }

    struct Fixture: Decodable {
        struct Mask: Decodable {
            var width: Int
            var height: Int
            var values: [Float]
        }
        var source: Mask
        var cases: [Mask]
    }

    @Test func confidenceMasksResizeAsOpenCV() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("segmentation/opencv_linear_resize.json")))
        let f = try JSONDecoder().decode(Fixture.self, from: data)
        let cases = f.cases.filter { $0.width > 1 && $0.height > 1 }
        try #require(!cases.isEmpty)
        let r = try runner(sized: true)
        for (i, c) in cases.enumerated() {
            r.add([Tensor(shape: [1, f.source.height, f.source.width, 1], floats: f.source.values)], tag: "TENSORS", at: Timestamp(Int64(i)))
            r.add(ImageSize(width: c.width, height: c.height), tag: "OUTPUT_SIZE", at: Timestamp(Int64(i)))
        }
        try r.run()
        let out = r.outputs("CONFIDENCE_MASKS")
        try #require(out.count == cases.count)
        for (p, c) in zip(out, cases) {
            let m = try #require(try p.get([ImageFrame].self).first)
            #expect(m.width == c.width && m.height == c.height)
            let worst = zip(try m.grayFloatValues(), c.values).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-6, "\(c.width)×\(c.height)")
        }
    }

    @Test func categoryMaskSamplesWithCornersAligned() throws {
        // 2×2 tensor [[0, 1], [1, 1]] to 3×3: the sample points are 0, 0.5, 1 on each axis, so
        // the centre is 0.75 (> 0.5: 0), the top and left midpoints exactly 0.5 (not > 0.5: 255),
        // the top-left corner 0 (255), every other pixel ≥ 0.75 (0).
        let r = try runner(sized: true)
        r.add([Tensor(shape: [1, 2, 2, 1], floats: [0, 1, 1, 1])], tag: "TENSORS", at: 0)
        r.add(ImageSize(width: 3, height: 3), tag: "OUTPUT_SIZE", at: 0)
        try r.run()
        #expect(try category(r) == [255, 255, 0, 255, 0, 0, 0, 0, 0])
    }

    @Test func categoryMaskFollowsTheRuleAtOddSizes() throws {
        let (w, h) = (5, 4)
        let values: [Float] = (0..<(w * h)).map { Float(($0 * 37) % 23) / 22 - 0.1 }
        for (ow, oh) in [(7, 3), (13, 11), (5, 4), (2, 9)] {
            let r = try runner(sized: true)
            r.add([Tensor(shape: [h, w, 1], floats: values)], tag: "TENSORS", at: 0)
            r.add(ImageSize(width: ow, height: oh), tag: "OUTPUT_SIZE", at: 0)
            try r.run()
            let got = try category(r)
            var want: [UInt8] = []
            for y in 0..<oh {
                for x in 0..<ow {
                    let fx = Double(x) * Double(w - 1) / Double(ow - 1), fy = Double(y) * Double(h - 1) / Double(oh - 1)
                    let (x0, y0) = (Int(fx), Int(fy))
                    let (x1, y1) = (min(x0 + 1, w - 1), min(y0 + 1, h - 1))
                    let (tx, ty) = (fx - Double(x0), fy - Double(y0))
                    func v(_ a: Int, _ b: Int) -> Double { Double(values[b * w + a]) }
                    let s =
                        (1 - tx) * (1 - ty) * v(x0, y0) + tx * (1 - ty) * v(x1, y0) + (1 - tx) * ty * v(x0, y1) + tx * ty * v(x1, y1)
                    // Values within float rounding of 0.5 could go either way; none are here.
                    want.append(s > 0.5 ? 0 : 255)
                }
            }
            #expect(got == want, "\(ow)×\(oh)")
        }
    }

    @Test func categoryMaskOfSeveralChannelsIsTheArgmax() throws {
        let r = try runner(activation: "SOFTMAX")
        r.add([Tensor(shape: [1, 1, 3, 3], floats: [0, 5, 1, 9, 0, 0, 1, 2, 3])], tag: "TENSORS", at: 0)
        try r.run()
        #expect(try category(r) == [1, 0, 2])
    }

    @Test func refusesInputItCannotRead() throws {
        let cases: [(String, Tensor, String)] = [
            ("SOFTMAX", Tensor(shape: [1, 2, 2, 1], floats: [0, 0, 0, 0]), "SOFTMAX needs two channels"),
            ("NONE", Tensor(shape: [2, 2, 2, 1], floats: Array(repeating: 0, count: 8)), "[H, W, C] or [1, H, W, C]"),
            ("NONE", Tensor(shape: [4], floats: [0, 0, 0, 0]), "[H, W, C] or [1, H, W, C]"),
            ("NONE", Tensor(shape: [1, 1, 1, 1], ints: [1]), "must hold floats"),
        ]
        for (activation, tensor, message) in cases {
            let r = try runner(activation: activation)
            r.add([tensor], tag: "TENSORS", at: 0)
            #expect { try r.run() } throws: { "\($0)".contains("stream 'tensors'") && "\($0)".contains(message) }
        }
        let empty = try runner()
        empty.add([Tensor](), tag: "TENSORS", at: 0)
        #expect { try empty.run() } throws: { "\($0)".contains("empty vector") }
        for size in [ImageSize(width: 0, height: 4), ImageSize(width: -3, height: 4), ImageSize(width: 1 << 40, height: 1 << 40)] {
            let r = try runner(sized: true)
            r.add([Tensor(shape: [1, 2, 2, 1], floats: [0, 0, 0, 0])], tag: "TENSORS", at: 0)
            r.add(size, tag: "OUTPUT_SIZE", at: 0)
            #expect { try r.run() } throws: { "\($0)".contains("empty or exceeds the image limit") }
        }
    }

    /// MediaPipe's `CONFIDENCE_MASK:i` outputs (its expanded graphs' form) carry channel i's mask,
    /// the same image as `CONFIDENCE_MASKS`' element i; `label_items` is accepted; an index past
    /// the last channel is refused naming it.
    @Test func indexedConfidenceMasksAreTheChannels() throws {
        func node(_ outputs: String) throws -> CalculatorRunner {
            try CalculatorRunner(
                node: """
                    calculator: "mediapipe.tasks.TensorsToSegmentationCalculator"
                    input_stream: "TENSORS:tensors"
                    \(outputs)
                    options { [mediapipe.tasks.TensorsToSegmentationCalculatorOptions.ext] {
                      segmenter_options { activation: SIGMOID } label_items { key: 0 value { name: "a" } } } }
                    """, registry: registry)
        }
        let tensor = Tensor(shape: [1, 2, 3, 2], floats: [0, 3, -2, 10, 1, -1, 0.5, 2, -4, 1, 7, 0])
        let r = try node("output_stream: \"CONFIDENCE_MASKS:all\" output_stream: \"CONFIDENCE_MASK:0:c0\" output_stream: \"CONFIDENCE_MASK:1:c1\"")
        r.add([tensor], tag: "TENSORS", at: 0)
        try r.run()
        let all = try #require(r.outputs("CONFIDENCE_MASKS").first).get([ImageFrame].self)
        for i in 0..<2 {
            let one = try #require(r.outputs("CONFIDENCE_MASK", i).first).get(ImageFrame.self)
            #expect(try one.grayFloatValues() == all[i].grayFloatValues(), "channel \(i)")
        }
        let past = try node("output_stream: \"CONFIDENCE_MASK:0:c0\" output_stream: \"CONFIDENCE_MASK:2:c2\"")
        past.add([tensor], tag: "TENSORS", at: 0)
        #expect { try past.run() } throws: { "\($0)".contains("CONFIDENCE_MASK:2 has no channel") }
    }

    @Test func refusesAnUnknownActivation() {
        #expect {
            let r = try runner(activation: "RELU")
            r.add([Tensor(shape: [1, 1, 1, 1], floats: [0])], tag: "TENSORS", at: 0)
            try r.run()
        } throws: { "\($0)".contains("RELU") }
    }
}
