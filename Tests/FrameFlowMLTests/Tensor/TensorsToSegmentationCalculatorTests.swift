import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// TensorsToSegmentationCalculator: each activation against its formula, the resize to
/// OUTPUT_SIZE against OpenCV's cv2.resize (the committed fixture), and the tensors it refuses.
@Suite struct TensorsToSegmentationCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(options: String = "", sized: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "TensorsToSegmentationCalculator"
                input_stream: "TENSORS:tensors"
                \(sized ? "input_stream: \"OUTPUT_SIZE:size\"" : "")
                output_stream: "MASK:mask"
                \(options)
                """, registry: registry)
    }

    func mask(_ r: CalculatorRunner) throws -> ImageFrame {
        let out = r.outputs("MASK")
        try #require(out.count == 1)
        return try out[0].get(ImageFrame.self)
    }

    @Test func noneKeepsTheValuesAtTheTensorSize() throws {
        let r = try runner(options: "options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: NONE } }")
        let values: [Float] = [0.1, 0.9, -0.5, 1.5, 0.25, 0.75]
        r.add([Tensor(shape: [1, 2, 3, 1], floats: values)], tag: "TENSORS", at: 5)
        try r.run()
        let m = try mask(r)
        #expect(m.width == 3 && m.height == 2 && m.format == .grayFloat32)
        #expect(try m.grayFloatValues() == values)
        #expect(r.outputs("MASK")[0].timestamp == 5)
    }

    @Test func sigmoidOfEachValue() throws {
        let r = try runner(options: "options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: SIGMOID } }")
        let x: [Float] = [0, 3, -2, 10]
        r.add([Tensor(shape: [2, 2, 1], floats: x)], tag: "TENSORS", at: 0)
        try r.run()
        let got = try mask(r).grayFloatValues()
        let want = x.map { 1 / (1 + exp(-Double($0))) }
        #expect(zip(got, want).allSatisfy { abs(Double($0) - $1) < 1e-7 })
        #expect(got[0] == 0.5)
    }

    @Test(arguments: [0, 1]) func softmaxOfTheChosenChannel(layer: Int) throws {
        let r = try runner(
            options: "options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: SOFTMAX output_layer_index: \(layer) } }"
        )
        let pairs: [(Float, Float)] = [(0, 0), (2, -1), (-3, 4), (50, 49)]
        r.add([Tensor(shape: [1, 1, 4, 2], floats: pairs.flatMap { [$0.0, $0.1] })], tag: "TENSORS", at: 0)
        try r.run()
        let got = try mask(r).grayFloatValues()
        let want = pairs.map { a, b in
            let (ea, eb) = (exp(Double(a)), exp(Double(b)))
            return (layer == 0 ? ea : eb) / (ea + eb)
        }
        #expect(zip(got, want).allSatisfy { abs(Double($0) - $1) < 1e-6 }, "\(got) vs \(want)")
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

    @Test func outputSizeResizesAsOpenCV() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("segmentation/opencv_linear_resize.json")))
        let f = try JSONDecoder().decode(Fixture.self, from: data)
        let r = try runner(sized: true)
        let cases = f.cases.filter { $0.width > 1 }
        for (i, c) in cases.enumerated() {
            r.add([Tensor(shape: [1, f.source.height, f.source.width, 1], floats: f.source.values)], tag: "TENSORS", at: Timestamp(Int64(i)))
            r.add(ImageSize(width: c.width, height: c.height), tag: "OUTPUT_SIZE", at: Timestamp(Int64(i)))
        }
        try r.run()
        let out = r.outputs("MASK")
        try #require(out.count == cases.count)
        for (p, c) in zip(out, cases) {
            let m = try p.get(ImageFrame.self)
            #expect(m.width == c.width && m.height == c.height)
            let worst = zip(try m.grayFloatValues(), c.values).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-6, "\(c.width)×\(c.height)")
        }
    }

    @Test func refusesTensorsItCannotRead() throws {
        let cases: [(String, Tensor, String)] = [
            ("", Tensor(shape: [1, 2, 2, 2], floats: Array(repeating: 0, count: 8)), "activation NONE needs 1 channel(s)"),
            (
                "options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: SOFTMAX } }",
                Tensor(shape: [1, 2, 2, 1], floats: [0, 0, 0, 0]), "activation SOFTMAX needs 2 channel(s)"
            ),
            ("", Tensor(shape: [2, 2, 2, 1], floats: Array(repeating: 0, count: 8)), "[H, W, C] or [1, H, W, C]"),
            ("", Tensor(shape: [4], floats: [0, 0, 0, 0]), "[H, W, C] or [1, H, W, C]"),
            ("", Tensor(shape: [1, 1, 1, 1], ints: [1]), "must hold floats"),
        ]
        for (options, tensor, message) in cases {
            let r = try runner(options: options)
            r.add([tensor], tag: "TENSORS", at: 0)
            #expect { try r.run() } throws: { "\($0)".contains("stream 'tensors'") && "\($0)".contains(message) }
        }
        let empty = try runner()
        empty.add([Tensor](), tag: "TENSORS", at: 0)
        #expect { try empty.run() } throws: { "\($0)".contains("empty vector") }
    }

    @Test func refusesAnOutputLayerOutsideTheTwoChannels() throws {
        #expect {
            let r = try runner(
                options: "options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: SOFTMAX output_layer_index: 2 } }")
            r.add([Tensor(shape: [1, 1, 1, 2], floats: [0, 1])], tag: "TENSORS", at: 0)
            try r.run()
        } throws: { "\($0)".contains("output_layer_index must be 0 or 1") }
    }
}

extension TensorsToSegmentationCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let type = "mediapipe.TensorsToSegmentationCalculatorOptions"
        let ports = "input_stream: \"TENSORS:tensors\"\noutput_stream: \"MASK:mask\""
        expectRefused("TensorsToSegmentationCalculator", type, "output_layer_index: -9223372036854775808", field: "output_layer_index", ports: ports)
    }
}
