import Foundation
import FrameFlow
import Testing

@testable import FrameFlowInference

/// The element-wise helpers written for speed, against Foundation and the plain loops.
@Suite struct OpsTests {
    /// `Ops.broadcastFloats` against the index formula (each output element from the operands'
    /// broadcast coordinates): whole × per-channel run (both orders, the pointer-step path),
    /// same shapes, a middle-axis broadcast, scalars and rank differences.
    @Test(arguments: [
        ([2, 3, 4, 5], [1, 1, 1, 5]), ([1, 1, 1, 5], [2, 3, 4, 5]), ([2, 3, 4, 5], [5]), ([3, 4, 5], [3, 4, 5]),
        ([2, 3, 4, 5], [2, 1, 4, 5]), ([2, 3, 1, 5], [1, 3, 4, 1]), ([4, 5], [1]), ([6], [6]), ([2, 1, 6], [1, 4, 1]),
    ])
    func broadcastMatchesTheIndexFormula(_ shapes: ([Int], [Int])) {
        let (xs, ys) = shapes
        let r = max(xs.count, ys.count)
        let px = Array(repeating: 1, count: r - xs.count) + xs, py = Array(repeating: 1, count: r - ys.count) + ys
        let shape = zip(px, py).map { max($0, $1) }
        let x = (0..<xs.reduce(1, *)).map { Float($0) * 0.5 + 1 }, y = (0..<ys.reduce(1, *)).map { Float($0) * 0.25 - 3 }
        let got = Ops.broadcastFloats(x, xs, y, ys, shape, SubOp.self)
        func index(_ coord: [Int], _ dims: [Int]) -> Int { zip(coord, dims).reduce(0) { $0 * $1.1 + ($1.1 == 1 ? 0 : $1.0) } }
        var coord = Array(repeating: 0, count: r), worst: Float = 0
        for i in 0..<shape.reduce(1, *) {
            var rest = i
            for d in stride(from: r - 1, through: 0, by: -1) { (rest, coord[d]) = rest.quotientAndRemainder(dividingBy: shape[d]) }
            worst = max(worst, abs(got[i] - (x[index(coord, px)] - y[index(coord, py)])))
        }
        #expect(got.count == shape.reduce(1, *) && worst == 0, "\(xs) − \(ys): off by \(worst)")
    }

    /// The vectorisable exp against Foundation's on a dense sweep of its range and at the
    /// edges, and the Sigmoid built on it.
    /// Cubic Resize taps (`Ops.cubicTaps`) against properties of Keys' kernel, apart from
    /// ONNX's own cubic cases: the weights sum to one for any coefficient, and with Keys'
    /// a = −0.5 a ramp 2 + 3·i is reproduced exactly inside the axis (with ONNX's default
    /// −0.75 only where the taps are symmetric, half-way between pixels). With
    /// `excludeOutside` near an edge, the index past it gets no weight and the rest still sum
    /// to one.
    @Test func cubicTapsReproduceARamp() {
        for a in [-0.75, -0.5] {
            for s: Float in [1, 1.25, 2.5, 3.9, 4] {
                let taps = Ops.cubicTaps(s, length: 8, a: a, excludeOutside: false)
                #expect(abs(taps.reduce(0) { $0 + $1.1 } - 1) < 1e-6)
                guard a == -0.5 || s == 2.5 || s == s.rounded() else { continue }
                let value = taps.reduce(Float(0)) { $0 + $1.1 * (2 + 3 * Float($1.0)) }
                #expect(abs(value - (2 + 3 * s)) < 1e-4, "a \(a), s \(s): \(value)")
            }
        }
        let edge = Ops.cubicTaps(0.3, length: 8, a: -0.75, excludeOutside: true)
        #expect(edge.count == 4 && edge[0].1 == 0 && abs(edge.reduce(0) { $0 + $1.1 } - 1) < 1e-6)
    }

    /// The Double ops in Ops given inputs that do not fit: each a ModelError naming the op,
    /// never a trap (model files and their inputs are untrusted).
    @Test func extraOpsRejectInputsThatDoNotFit() {
        func node(_ op: String, _ attributes: [String: AttributeValue] = [:]) -> ONNXNode {
            ONNXNode(name: "", opType: op, domain: "", inputs: [], outputs: ["y"], attributes: attributes)
        }
        let x = Tensor(shape: [2, 3], floats: [1, 2, 3, 4, 5, 6])
        func scalar(_ v: Float) -> Tensor { Tensor(shape: [], floats: [v]) }
        let cases: [(String, ONNXNode, [Tensor?])] = [
            ("Range", node("Range"), [scalar(0), scalar(1e30), scalar(1)]),
            ("Range", node("Range"), [scalar(0), scalar(1), scalar(0)]),
            ("Tile", node("Tile"), [x, Tensor(shape: [1], ints: [2])]),
            ("Tile", node("Tile"), [x, Tensor(shape: [2], ints: [1 << 20, 1 << 20])]),
            ("Expand", node("Expand"), [x, Tensor(shape: [2], ints: [4, 3])]),
            ("GatherElements", node("GatherElements", ["axis": .int(1)]), [x, Tensor(shape: [2, 1], ints: [0, 3])]),
            ("TopK", node("TopK"), [x, Tensor(shape: [1], ints: [4])]),
            ("DepthToSpace", node("DepthToSpace", ["blocksize": .int(2)]), [Tensor(shape: [1, 3, 1, 1], floats: [1, 2, 3])]),
            ("ConstantOfShape", node("ConstantOfShape"), [Tensor(shape: [2], ints: [-1, 3])]),
            ("Where", node("Where"), [Tensor(shape: [2], ints: [1, 0], type: .bool), x, x]),
            ("ReduceSum", node("ReduceSum"), [x, Tensor(shape: [1], ints: [2])]),
            ("Min", node("Min"), []),
            (
                "NonMaxSuppression", node("NonMaxSuppression"),
                [Tensor(shape: [1, 2, 4], floats: Array(repeating: 0, count: 8)), Tensor(shape: [1, 1, 3], floats: [1, 2, 3])]
            ),
            ("GatherND", node("GatherND"), [x, Tensor(shape: [1, 2], ints: [0, 3])]),
            ("ScatterND", node("ScatterND"), [x, Tensor(shape: [1, 1], ints: [0]), Tensor(shape: [2], floats: [1, 2])]),
            ("OneHot", node("OneHot"), [Tensor(shape: [1], ints: [0]), scalar(0), Tensor(shape: [2], floats: [0, 1])]),
            ("QuantizeLinear", node("QuantizeLinear"), [x, Tensor(shape: [4], floats: [1, 1, 1, 1])]),
            ("BitShift", node("BitShift", ["direction": .string("LEFT")]), [x, x]),
            ("QLinearMatMul", node("QLinearMatMul"), [x, scalar(1), scalar(0)]),
            (
                "MaxUnpool", node("MaxUnpool", ["kernel_shape": .ints([2])]),
                [Tensor(shape: [1, 1, 2], floats: [1, 2]), Tensor(shape: [1, 1, 2], ints: [0, 9])]
            ),
            (
                "RoiAlign", node("RoiAlign"),
                [
                    Tensor(shape: [1, 1, 2, 3], floats: [1, 2, 3, 4, 5, 6]), Tensor(shape: [1, 4], floats: [0, 0, 1e30, 1]),
                    Tensor(shape: [1], ints: [0]),
                ]
            ),
            ("Det", node("Det"), [x]),
            ("If", node("If"), [Tensor(shape: [], ints: [1], type: .bool)]),
            ("Loop", node("Loop"), [nil, nil]),
            ("NegativeLogLikelihoodLoss", node("NegativeLogLikelihoodLoss"), [x, Tensor(shape: [2], ints: [0, 3])]),
            ("SoftmaxCrossEntropyLoss", node("SoftmaxCrossEntropyLoss"), [x, Tensor(shape: [3], ints: [0, 1, 2])]),
            ("Einsum", node("Einsum", ["equation": .string("ij,jk->ik")]), [x, x]),
            ("Einsum", node("Einsum", ["equation": .string("ij->iz")]), [x]),
            ("Einsum", node("Einsum", ["equation": .string("i1,j")]), [x, x]),
            (
                "GridSample", node("GridSample"),
                [Tensor(shape: [1, 1, 2, 3], floats: [1, 2, 3, 4, 5, 6]), Tensor(shape: [1, 2, 2, 3], floats: Array(repeating: 0, count: 12))]
            ),
            (
                "MatMulInteger", node("MatMulInteger"),
                [x, Tensor(shape: [3, 2], ints: [1, 2, 3, 4, 5, 6], type: .uint8), Tensor(shape: [3], ints: [1, 2, 3], type: .uint8)]
            ),
        ]
        for (op, n, ins) in cases {
            #expect(throws: ModelError.self, "\(op) \(ins.map { $0?.shape ?? [] })") { try Ops.run(n, ins, opset: 17) }
        }
    }

    @Test func expMatchesFoundation() {
        var worst: Float = 0
        var x: Float = -87
        while x < 88.5 {
            let want = Foundation.exp(x), got = Ops.exp(x)
            worst = max(worst, abs(got - want) / want)
            x += 0.0173
        }
        #expect(worst <= 1e-6, "largest relative error \(worst)")
        #expect(Ops.exp(0) == 1)
        #expect(Ops.exp(100) == .infinity)
        #expect(Ops.exp(-100) == 0)
        #expect(Ops.exp(.nan).isNaN)
        #expect(Ops.exp(-.infinity) == 0)
        var sigmoidWorst: Float = 0
        for i in -2000...2000 {
            let v = Float(i) / 100
            sigmoidWorst = max(sigmoidWorst, abs(1 / (1 + Ops.exp(-v)) - 1 / (1 + Foundation.exp(-v))))
        }
        #expect(sigmoidWorst <= 2e-7)
    }

    /// The array form (ONNX Sigmoid and Exp, TFLite LOGISTIC) on lengths with and without a
    /// vector tail.
    @Test func exponentialOfArrays() {
        for n in [0, 5, 37] {
            let x = (0..<n).map { Float($0) * 0.7 - 12 }
            let e = Ops.exponential(x, sigmoid: false), s = Ops.exponential(x, sigmoid: true)
            #expect(e.count == n && s.count == n)
            for i in 0..<n {
                #expect(abs(e[i] - Foundation.exp(x[i])) <= 1e-6 * Foundation.exp(x[i]), "exp at \(i) of \(n)")
                #expect(abs(s[i] - 1 / (1 + Foundation.exp(-x[i]))) <= 2e-7, "sigmoid at \(i) of \(n)")
            }
        }
    }

    /// `ff_exp_f32` and `ff_sigmoid_f32` (behind `Ops.exponential`) at every kernel level this
    /// machine runs against the scalar `Ops.exp` and `Foundation.exp`: lengths around the
    /// vector widths (tails through the padded vector), the whole range, and the values at and
    /// past its ends.
    @Test(arguments: KernelLevel.available)
    func exponentialMatchesTheScalarFormAtEveryLevel(level: KernelLevel) {
        KernelLevel.withThreadLevel(level) {
            for n in [0, 1, 5, 15, 16, 17, 37, 100, 10_300] {
                let x = (0..<n).map { Float(-90 + Double($0) * 181 / Double(max(n, 1))) }
                let e = Ops.exponential(x, sigmoid: false), s = Ops.exponential(x, sigmoid: true)
                var worst: Float = 0, sigmoidWorst: Float = 0
                for i in 0..<n {
                    let want = Ops.exp(x[i])
                    worst = max(worst, want == 0 || want.isInfinite ? (e[i] == want ? 0 : .infinity) : abs(e[i] - want) / want)
                    sigmoidWorst = max(sigmoidWorst, abs(s[i] - 1 / (1 + Foundation.exp(-x[i]))))
                }
                #expect(worst <= 1e-6 && sigmoidWorst <= 2e-7, "\(level), \(n) values: exp \(worst), sigmoid \(sigmoidWorst)")
            }
            let special = Ops.exponential([0, 100, -100, .nan, -.infinity, .infinity, 88.7, -87.2], sigmoid: false)
            #expect(special[0] == 1 && special[1] == .infinity && special[2] == 0 && special[3].isNaN && special[4] == 0, "\(level): \(special)")
            #expect(special[5] == .infinity && abs(special[6] / Foundation.exp(88.7) - 1) <= 1e-6, "\(level): \(special)")
            #expect(abs(special[7] / Foundation.exp(-87.2) - 1) <= 1e-6, "\(level): \(special)")
        }
    }

    /// `NHWC.preluRows` (`ff_prelu_rows_f32`) at every kernel level this machine runs against
    /// the formula: channel counts under 8 (one by one), a multiple of 8, and between (the last
    /// block overlapping), and in place.
    @Test(arguments: KernelLevel.available)
    func preluRowsMatchTheFormula(level: KernelLevel) {
        KernelLevel.withThreadLevel(level) {
            for c in [1, 3, 8, 13, 24, 36] {
                let rows = 5
                let x = GEMMTests.random(rows * c, seed: 91), alpha = GEMMTests.random(c, seed: 92)
                var y = [Float](repeating: .nan, count: rows * c), inPlace = x
                x.withUnsafeBufferPointer { X in
                    alpha.withUnsafeBufferPointer { A in
                        y.withUnsafeMutableBufferPointer { Y in
                            NHWC.preluRows(X.baseAddress!, alpha: A.baseAddress!, rows: rows, channels: c, Y.baseAddress!)
                        }
                        inPlace.withUnsafeMutableBufferPointer { Y in
                            NHWC.preluRows(UnsafePointer(Y.baseAddress!), alpha: A.baseAddress!, rows: rows, channels: c, Y.baseAddress!)
                        }
                    }
                }
                let want = x.indices.map { x[$0] < 0 ? x[$0] * alpha[$0 % c] : x[$0] }
                #expect(y == want && inPlace == want, "\(level): \(c) channels")
            }
        }
    }

    /// The vectorised sum and maximum against `reduce` and `max()` on lengths around their
    /// vector widths (0, tails of 1–15, whole blocks of 16 and 32), with a NaN-free input, at
    /// every kernel level this machine runs.
    @Test(arguments: KernelLevel.available)
    func sumAndMaximumMatchThePlainLoops(level: KernelLevel) {
        KernelLevel.withThreadLevel(level) {
            for n in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 384] {
                let a = (0..<n).map { Float(sin(Double($0) * 1.7)) * 10 }
                a.withUnsafeBufferPointer { p in
                    let base = p.baseAddress ?? UnsafePointer(bitPattern: 16)!
                    #expect(abs(Ops.sum(base, count: n) - a.reduce(0, +)) <= 1e-4, "sum of \(n) at \(level)")
                    #expect(Ops.maximum(base, count: n) == (a.max() ?? 0), "maximum of \(n) at \(level)")
                }
            }
        }
    }

    /// The block-swap fast path of Transpose (NHWC ↔ NCHW, a 2-D transpose, with odd sizes)
    /// against the index formula.
    @Test(arguments: [[0, 3, 1, 2], [0, 2, 3, 1], [1, 0, 2, 3], [2, 3, 0, 1], [0, 1, 3, 2]])
    func transposeMatchesTheFormula(perm: [Int]) {
        let shape = [2, 5, 9, 3]
        let x = Tensor(shape: shape, floats: (0..<270).map { Float($0) })
        let y = Ops.transpose(x, perm)
        #expect(y.shape == perm.map { shape[$0] })
        var wrong = 0
        for i in 0..<2 {
            for j in 0..<5 {
                for k in 0..<9 {
                    for l in 0..<3 {
                        let src = [i, j, k, l], dst = perm.map { src[$0] }
                        let yi = ((dst[0] * y.shape[1] + dst[1]) * y.shape[2] + dst[2]) * y.shape[3] + dst[3]
                        if y.floats[yi] != x.floats[((i * 5 + j) * 9 + k) * 3 + l] { wrong += 1 }
                    }
                }
            }
        }
        #expect(wrong == 0, "perm \(perm)")
    }

    /// The op table: a node's kernel by op type, only in the ONNX domain; an op type not in it
    /// is the same error as before the table.
    @Test func opTableDispatchesByOpType() throws {
        #expect(Ops.supports("Conv", domain: "") && Ops.supports("Conv", domain: "ai.onnx"))
        #expect(!Ops.supports("Conv", domain: "com.microsoft") && !Ops.supports("NoSuchOp", domain: ""))
        let relu = ONNXNode(name: "", opType: "Relu", domain: "", inputs: ["x"], outputs: ["y"], attributes: [:])
        let y = try Ops.run(relu, [Tensor(shape: [3], floats: [-1, 0, 2])], opset: 13)
        #expect(y.first?.floats == [0, 0, 2])
        let unknown = ONNXNode(name: "", opType: "NoSuchOp", domain: "", inputs: [], outputs: ["y"], attributes: [:])
        let e = #expect(throws: ModelError.self) { try Ops.run(unknown, [], opset: 13) }
        #expect(e?.message == "op 'NoSuchOp' is not implemented")
    }
}
