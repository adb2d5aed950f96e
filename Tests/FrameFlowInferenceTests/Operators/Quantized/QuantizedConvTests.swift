import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// The integer convolution (`QuantizedConv`, `ff_qgemm_*`) at every kernel level this machine
/// runs: QLinearConv and the fused QDQ form against the integer convolution and onnxruntime's
/// requantisation written out here; an int8 model quantised by onnxruntime's own tool against
/// onnxruntime's outputs (scripts/fixtures/make_int8_fixtures.py); broken quantised models.
@Suite struct QuantizedConvTests {
    /// A seeded generator (SplitMix64), so that a failure repeats.
    struct Seeded {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    /// One convolution's shape: channels in, out, image, kernel, stride, pad, dilation, group.
    struct Shape: Sendable, CustomStringConvertible {
        var cin, cout, h, w, kh, kw, stride, pad, dilation, group: Int
        var description: String { "\(cin)→\(cout) \(h)×\(w) k\(kh)×\(kw) s\(stride) p\(pad) d\(dilation) g\(group)" }
        var oh: Int { (h + 2 * pad - (kh - 1) * dilation - 1) / stride + 1 }
        var ow: Int { (w + 2 * pad - (kw - 1) * dilation - 1) / stride + 1 }
    }

    /// Odd sizes (partial tiles of 4 channels and 16 pixels, odd k), padding, strides, dilation, groups.
    static let shapes = [
        Shape(cin: 3, cout: 5, h: 7, w: 9, kh: 3, kw: 3, stride: 1, pad: 1, dilation: 1, group: 1),
        Shape(cin: 1, cout: 1, h: 1, w: 1, kh: 1, kw: 1, stride: 1, pad: 0, dilation: 1, group: 1),
        Shape(cin: 8, cout: 16, h: 11, w: 13, kh: 3, kw: 3, stride: 2, pad: 1, dilation: 1, group: 1),
        Shape(cin: 17, cout: 9, h: 6, w: 19, kh: 1, kw: 1, stride: 1, pad: 0, dilation: 1, group: 1),
        Shape(cin: 4, cout: 6, h: 9, w: 9, kh: 3, kw: 2, stride: 1, pad: 2, dilation: 2, group: 2),
        Shape(cin: 6, cout: 6, h: 5, w: 8, kh: 3, kw: 3, stride: 1, pad: 1, dilation: 1, group: 6),
        Shape(cin: 12, cout: 6, h: 5, w: 8, kh: 3, kw: 3, stride: 1, pad: 1, dilation: 1, group: 6),
    ]

    /// onnxruntime's requantisation: float(sum) · (x_scale · w_scale / y_scale), clamped to the
    /// output type less the zero point, rounded half to even, plus the zero point.
    static func requantize(_ sum: Int, _ multiplier: Float, zero: Int, lower: Int, upper: Int) -> Int {
        let v = min(max(Float(sum) * multiplier, Float(lower - zero)), Float(upper - zero))
        return Int(v.rounded(.toNearestOrEven)) + zero
    }

    /// Σ (x − zx)(w − zw) + bias over the window, in Int, for output (o, oy, ox).
    static func integerSum(_ s: Shape, x: [Int64], zx: Int64, w: [Int64], zw: [Int64], bias: [Int64], o: Int, oy: Int, ox: Int) -> Int {
        let cpg = s.cin / s.group, opg = s.cout / s.group, g = o / opg
        var sum = Int(bias[o])
        for c in 0..<cpg {
            for ky in 0..<s.kh {
                for kx in 0..<s.kw {
                    let iy = oy * s.stride - s.pad + ky * s.dilation, ix = ox * s.stride - s.pad + kx * s.dilation
                    guard iy >= 0, iy < s.h, ix >= 0, ix < s.w else { continue }
                    let xv = x[((g * cpg + c) * s.h + iy) * s.w + ix] - zx
                    let wv = w[((o * cpg + c) * s.kh + ky) * s.kw + kx] - zw[zw.count == 1 ? 0 : o]
                    sum += Int(xv * wv)
                }
            }
        }
        return sum
    }

    static func conv(_ s: Shape, name: String = "conv") -> ONNXNode {
        ONNXNode(
            name: name, opType: "QLinearConv", domain: "", inputs: [], outputs: [],
            attributes: [
                "kernel_shape": .ints([Int64(s.kh), Int64(s.kw)]), "strides": .ints([Int64(s.stride), Int64(s.stride)]),
                "pads": .ints([Int64(s.pad), Int64(s.pad), Int64(s.pad), Int64(s.pad)]), "dilations": .ints([Int64(s.dilation), Int64(s.dilation)]),
                "group": .int(Int64(s.group)),
            ])
    }

    /// QLinearConv with uint8 and int8 activations, x zero points 0 and 128 (and 0 / −128 for
    /// int8), per-channel and single weight scales and zero points, and multipliers large enough
    /// that many outputs saturate at both ends of the type.
    @Test(arguments: KernelLevel.available)
    func qlinearConvMatchesTheIntegerFormula(level: KernelLevel) throws {
        var rng = Seeded(state: 46)
        for (index, s) in Self.shapes.enumerated() {
            for variant in 0..<4 {
                let signed = variant == 3
                let (lo, hi): (Int64, Int64) = signed ? (-128, 127) : (0, 255)
                let zx: Int64 = signed ? -128 : variant % 2 == 0 ? 0 : 128, zy: Int64 = signed ? 5 : variant == 2 ? 255 : 128
                let x = (0..<(s.cin * s.h * s.w)).map { _ in Int64(rng.next(256)) + lo }
                // Weights at the int8 extremes included.
                let w = (0..<(s.cout * s.cin / s.group * s.kh * s.kw)).map { i in i % 7 == 0 ? (i % 2 == 0 ? -128 : 127) : Int64(rng.next(256) - 128)
                }
                let perChannel = variant != 1
                let zw: [Int64] = perChannel ? (0..<s.cout).map { _ in Int64(rng.next(5) - 2) } : [0]
                let ws: [Float] = perChannel ? (0..<s.cout).map { _ in Float(rng.next(100) + 1) * 1e-3 } : [0.02]
                let bias = (0..<s.cout).map { _ in Int64(rng.next(20001) - 10000) }
                let xs: Float = 0.05, ys: Float = variant == 0 ? 0.9 : 0.07
                let ins: [Tensor?] = [
                    Tensor(shape: [1, s.cin, s.h, s.w], ints: x, type: signed ? .int8 : .uint8), Tensor(shape: [], floats: [xs]),
                    Tensor(shape: [], ints: [zx], type: signed ? .int8 : .uint8),
                    Tensor(shape: [s.cout, s.cin / s.group, s.kh, s.kw], ints: w, type: .int8),
                    Tensor(shape: [ws.count], floats: ws), Tensor(shape: [zw.count], ints: zw, type: .int8), Tensor(shape: [], floats: [ys]),
                    Tensor(shape: [], ints: [zy], type: signed ? .int8 : .uint8), Tensor(shape: [s.cout], ints: bias, type: .int32),
                ]
                let y = try KernelLevel.withThreadLevel(level) { try Ops.runQuantized(Self.conv(s), ins, opset: 13)[0] }
                #expect(y.shape == [1, s.cout, s.oh, s.ow], "\(s)")
                #expect(y.type == (signed ? .int8 : .uint8))
                var wrong = 0, saturated = 0
                for o in 0..<s.cout {
                    let m = xs * ws[ws.count == 1 ? 0 : o] / ys
                    for oy in 0..<s.oh {
                        for ox in 0..<s.ow {
                            let sum = Self.integerSum(s, x: x, zx: zx, w: w, zw: zw, bias: bias, o: o, oy: oy, ox: ox)
                            let want = Self.requantize(sum, m, zero: Int(zy), lower: Int(lo), upper: Int(hi))
                            if want == Int(lo) || want == Int(hi) { saturated += 1 }
                            if Int(y.ints[(o * s.oh + oy) * s.ow + ox]) != want { wrong += 1 }
                        }
                    }
                }
                #expect(wrong == 0, "shape \(index) \(s), variant \(variant), \(level): \(wrong) outputs differ")
                if index == 2 && variant == 2 { #expect(saturated > 0, "the saturating variant saturated nothing") }
            }
        }
    }

    /// A QDQ convolution built as onnxruntime's quantizer writes it: Q → DQ → Conv (weights and
    /// bias DequantizeLinear) → Q → DQ.
    static func qdqGraph(_ s: Shape, ws: [Float], wz: Tensor? = nil, xScale: Float = 0.04, seed: UInt64 = 7) throws -> (ONNXModel, Tensor) {
        var rng = Seeded(state: seed)
        var g = try ONNXModel(empty: ())
        g.opsetVersion = 13
        let k = s.cin / s.group * s.kh * s.kw
        let w = (0..<(s.cout * k)).map { _ in Int64(rng.next(255) - 127) }
        let bias = (0..<s.cout).map { _ in Int64(rng.next(2001) - 1000) }
        g.initializers = [
            "xs": Tensor(shape: [], floats: [xScale]), "xz": Tensor(shape: [], ints: [128], type: .uint8),
            "wq": Tensor(shape: [s.cout, s.cin / s.group, s.kh, s.kw], ints: w, type: .int8), "ws": Tensor(shape: [ws.count], floats: ws),
            "wz": wz ?? Tensor(shape: [ws.count], ints: [Int64](repeating: 0, count: ws.count), type: .int8),
            "bq": Tensor(shape: [s.cout], ints: bias, type: .int32),
            "bs": Tensor(shape: [s.cout], floats: (0..<s.cout).map { xScale * ws[min($0, ws.count - 1)] }),
            "bz": Tensor(shape: [s.cout], ints: [Int64](repeating: 0, count: s.cout), type: .int32),
            "ys": Tensor(shape: [], floats: [0.1]), "yz": Tensor(shape: [], ints: [120], type: .uint8),
        ]
        var convNode = conv(s, name: "the_conv")
        convNode.opType = "Conv"
        convNode.inputs = ["xd", "wd", "bd"]
        convNode.outputs = ["c"]
        func node(_ name: String, _ op: String, _ i: [String], _ o: String, axis: Int64? = nil) -> ONNXNode {
            ONNXNode(name: name, opType: op, domain: "", inputs: i, outputs: [o], attributes: axis.map { ["axis": .int($0)] } ?? [:])
        }
        g.nodes = [
            node("xq_node", "QuantizeLinear", ["x", "xs", "xz"], "xq"), node("xd_node", "DequantizeLinear", ["xq", "xs", "xz"], "xd"),
            node("wd_node", "DequantizeLinear", ["wq", "ws", "wz"], "wd", axis: 0),
            node("bd_node", "DequantizeLinear", ["bq", "bs", "bz"], "bd", axis: 0),
            convNode, node("yq_node", "QuantizeLinear", ["c", "ys", "yz"], "yq"), node("y_node", "DequantizeLinear", ["yq", "ys", "yz"], "y"),
        ]
        g.inputs = [ValueInfo(name: "x", type: .float32, shape: [1, s.cin, s.h, s.w])]
        g.outputs = [ValueInfo(name: "y", type: .float32, shape: nil)]
        let x = Tensor(shape: [1, s.cin, s.h, s.w], floats: (0..<(s.cin * s.h * s.w)).map { _ in Float(rng.next(2001) - 1000) * 0.006 })
        return (g, x)
    }

    /// The QDQ group becomes one integer convolution (and the input's Q → DQ one float pass),
    /// whose output is the integer formula's, dequantised, at every level.
    @Test(arguments: KernelLevel.available)
    func qdqConvolutionRunsOnIntegers(level: KernelLevel) throws {
        // A depthwise convolution (one input channel per group) stays float (see the fusion).
        for s in Self.shapes where !(s.group > 1 && s.cin == s.group) {
            let ws = (0..<s.cout).map { Float($0 + 1) * 0.003 }
            let (g, x) = try Self.qdqGraph(s, ws: ws)
            let plan = try ONNXPlan(graph: g, file: "qdq.onnx")
            let ops = plan.order.map { plan.graph.nodes[$0].opType }
            #expect(ops == [Ops.fakeQuantizeOp, QuantizedConv.fusedOp], "\(ops)")
            let y = try KernelLevel.withThreadLevel(level) { try plan.run(["x": x], timing: nil)["y"]! }
            // The reference: quantise x (round half to even), integer sums, requantise, dequantise.
            let xq = x.floats.map { Int64(min(max(($0 / 0.04).rounded(.toNearestOrEven) + 128, 0), 255)) }
            let w = g.initializers["wq"]!.ints, bias = g.initializers["bq"]!.ints
            var wrong = 0
            for o in 0..<s.cout {
                for oy in 0..<s.oh {
                    for ox in 0..<s.ow {
                        let sum = Self.integerSum(s, x: xq, zx: 128, w: w, zw: [0], bias: bias, o: o, oy: oy, ox: ox)
                        let q = Self.requantize(sum, 0.04 * ws[o] / 0.1, zero: 120, lower: 0, upper: 255)
                        if y.floats[(o * s.oh + oy) * s.ow + ox] != Float(q - 120) * 0.1 { wrong += 1 }
                    }
                }
            }
            #expect(wrong == 0, "\(s), \(level): \(wrong) outputs differ")
        }
    }

    /// Broken quantisation parameters are a ModelError naming the node, at load or run, never a crash.
    @Test func brokenQuantizationIsAnErrorNamingTheNode() throws {
        let s = Self.shapes[0]
        let cases: [(String, ONNXModel, Tensor, String)] = try [
            ("weight scale 0", Self.qdqGraph(s, ws: [0.01, 0, 0.01, 0.01, 0.01]), "the_conv"),
            ("weight scale NaN", Self.qdqGraph(s, ws: [0.01, .nan, 0.01, 0.01, 0.01]), "the_conv"),
            ("weight scale negative", Self.qdqGraph(s, ws: [0.01, -0.01, 0.01, 0.01, 0.01]), "the_conv"),
            ("per-channel length", Self.qdqGraph(s, ws: [0.01, 0.01]), "the_conv"),
            ("weight zero point uint8", Self.qdqGraph(s, ws: [0.01], wz: Tensor(shape: [1], ints: [3], type: .uint8)), "the_conv"),
            ("x scale 0", Self.qdqGraph(s, ws: [0.01], xScale: 0), "xq_node"),
            ("x scale infinite", Self.qdqGraph(s, ws: [0.01], xScale: .infinity), "xq_node"),
        ].map { ($0.0, $0.1.0, $0.1.1, $0.2) }
        for (what, graph, x, node) in cases {
            do {
                let plan = try ONNXPlan(graph: graph, file: "broken.onnx")
                _ = try plan.run(["x": x], timing: nil)
                Issue.record("\(what): no error")
            } catch let e as ModelError {
                #expect(e.message.contains(node) || node == "xq_node" && e.message.contains("xd_node"), "\(what): \(e.message)")
            }
        }
        // QLinearConv with a wrong zero-point type, a zero scale, mismatched per-channel lengths.
        let x = Tensor(shape: [1, 3, 7, 9], ints: [Int64](repeating: 3, count: 189), type: .uint8)
        let w = Tensor(shape: [5, 3, 3, 3], ints: [Int64](repeating: 1, count: 135), type: .int8)
        func ins(xz: Tensor = Tensor(shape: [], ints: [0], type: .uint8), ws: [Float] = [0.1], wzCount: Int = 1) -> [Tensor?] {
            [
                x, Tensor(shape: [], floats: [0.1]), xz, w, Tensor(shape: [ws.count], floats: ws),
                Tensor(shape: [wzCount], ints: [Int64](repeating: 0, count: wzCount), type: .int8), Tensor(shape: [], floats: [0.1]),
                Tensor(shape: [], ints: [0], type: .uint8),
            ]
        }
        for (what, i) in [
            ("x zero point int8 for uint8 x", ins(xz: Tensor(shape: [], ints: [0], type: .int8))), ("w scale 0", ins(ws: [0])),
            ("w scale length", ins(ws: [0.1, 0.1])), ("w zero point length", ins(wzCount: 2)),
        ] {
            #expect(throws: ModelError.self, "\(what)") { try Ops.runQuantized(Self.conv(Self.shapes[0]), i, opset: 13) }
        }
    }

    /// P-Net quantised by onnxruntime's `quantize_static` (QDQ, per-channel int8 weights, uint8
    /// activations, reduce_range) against onnxruntime's outputs on a photo: its convolutions
    /// run fused on integers here and in onnxruntime (QLinearConv).
    @Test func int8PNetMatchesOnnxRuntime() throws {
        let dir = URL(fileURLWithPath: RepositoryFiles.built("models"))
        let url = dir.appendingPathComponent("pnet_int8.onnx")
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("\(url.path) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let model = try Model(contentsOf: url)
        let plan = try #require(model.onnxPlan)
        let ops = plan.order.map { plan.graph.nodes[$0].opType }
        #expect(ops.filter { $0 == QuantizedConv.fusedOp }.count == 5 && !ops.contains("Conv"), "\(ops)")
        let input = try loadTensorProto(contentsOfFile: dir.appendingPathComponent("pnet_int8.input_0.pb").path).tensor
        let outs = try model.run([model.inputs[0].name: input])
        for (k, o) in model.outputs.enumerated() {
            let want = try loadTensorProto(contentsOfFile: dir.appendingPathComponent("pnet_int8.output_\(k).pb").path).tensor
            let got = try #require(outs[o.name])
            #expect(got.shape == want.shape)
            var worst: Float = 0, differing = 0
            for i in 0..<want.floats.count where got.floats[i] != want.floats[i] {
                worst = max(worst, abs(got.floats[i] - want.floats[i]))
                differing += 1
            }
            // Within one quantisation step of the last quantised tensor (see docs/performance.md).
            #expect(worst <= Self.pnetTolerance[k], "output \(o.name): \(differing) of \(want.count) differ, worst by \(worst)")
        }
    }

    /// conv2d_4 (a fused convolution, dequantised) is exact; softmax within one step of its
    /// quantisation (1/255): onnxruntime runs QLinearSoftmax (a table), FrameFlow a float
    /// Softmax quantised after.
    static let pnetTolerance: [Float] = [0, 1 / 255 + 1e-6]

    /// YOLOv8n and PP-OCRv4 det quantised the same way, against onnxruntime: in the optimised
    /// (release) pass of make test only, as their debug runs take many seconds. The convolutions
    /// are exact; the ops between them differ from onnxruntime's integer QLinearSigmoid /
    /// QLinearMul / QLinearConcat by a step where their rounding does, and YOLOv8n's box head
    /// (DFL softmax, then a sum in pixels) carries such a step into a few outputs: at most
    /// `share` of the elements may differ, none by more than `worst` (measured 0.56 % and 22.5
    /// pixels for YOLOv8n; see docs/performance.md). Float noise under 1e-4 is not counted.
    @Test(arguments: [("yolov8n_int8", Float(0.01), Float(32)), ("ch_PP-OCRv4_det_infer_int8", Float(0.001), Float(0.02))])
    func int8ModelsMatchOnnxRuntime(name: String, share: Float, worst tolerance: Float) throws {
        #if DEBUG
            return
        #else
            let dir = URL(fileURLWithPath: RepositoryFiles.built("models"))
            let url = dir.appendingPathComponent("\(name).onnx")
            guard FileManager.default.fileExists(atPath: url.path) else {
                Issue.record("\(url.path) is missing: run scripts/setup.sh test (make test does)")
                return
            }
            let model = try Model(contentsOf: url)
            let input = try loadTensorProto(contentsOfFile: dir.appendingPathComponent("\(name).input_0.pb").path).tensor
            let outs = try model.run([model.inputs[0].name: input])
            let want = try loadTensorProto(contentsOfFile: dir.appendingPathComponent("\(name).output_0.pb").path).tensor
            let got = try #require(outs[model.outputs[0].name])
            #expect(got.shape == want.shape)
            var worst: Float = 0, differing = 0
            for i in 0..<want.floats.count where abs(got.floats[i] - want.floats[i]) > 1e-4 {
                worst = max(worst, abs(got.floats[i] - want.floats[i]))
                differing += 1
            }
            #expect(
                worst <= tolerance && Float(differing) <= share * Float(want.count),
                "\(name): \(differing) of \(want.count) differ, worst by \(worst)")
        #endif
    }
}
