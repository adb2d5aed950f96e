import Foundation
import FrameFlow

/// An op's kernel: the node (its attributes), its inputs (nil for an omitted optional one) and
/// the context; returns the node's outputs in order.
typealias OpKernel = @Sendable (_ node: ONNXNode, _ inputs: [Tensor?], _ context: OpContext) throws -> [Tensor]

/// What a kernel needs besides its node and inputs.
struct OpContext {
    /// The model's ai.onnx opset: some attributes became inputs over the versions.
    let opset: Int64
    /// Where a Conv keeps what its shapes decide between runs (see `Conv.Setup`).
    var memo: Conv.SetupMemo? = nil
}

/// The ONNX ops FrameFlow runs, by op type: one table from op type to kernel, merged from the
/// op families (`Ops+ElementWise`, `Ops+Reduce`, …). `Model` looks each node's kernel up once,
/// when it plans the run. Float tensors are computed in Float, integer tensors in Int64.
enum Ops {
    /// Every op's kernel by op type, the families' tables merged at first use.
    static let table: [String: OpKernel] = {
        let families: [[String: OpKernel]] = [
            elementWiseKernels, reduceKernels, shapeKernels, normalizationKernels, linearAlgebraKernels, spatialKernels,
            einsumKernels, gridSampleKernels, indexingKernels, quantizedKernels, recurrentKernels, regionKernels,
            lossKernels, controlFlowKernels,
        ]
        return families.reduce(into: [:]) { table, family in
            table.merge(family, uniquingKeysWith: twice)
        }
    }()

    /// For merging tables: an op type may have one kernel only.
    static func twice(_: OpKernel, _: OpKernel) -> OpKernel { preconditionFailure("an op type registered twice") }

    /// One kernel for each of `names`: a family whose function tells its few ops apart.
    static func kernels(_ names: Set<String>, _ kernel: @escaping OpKernel) -> [String: OpKernel] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, kernel) })
    }

    static func supports(_ op: String, domain: String) -> Bool {
        (domain.isEmpty || domain == "ai.onnx") && table[op] != nil
    }

    /// The kernel of `op`; for an op not in the table, one that throws.
    static func kernel(_ op: String) -> OpKernel {
        table[op] ?? fusedKernels[op] ?? { n, _, _ in throw ModelError("op '\(n.opType)' is not implemented") }
    }

    /// Runs one node (constant folding, nested ops, tests); a planned model calls the
    /// kernel it looked up instead. `memo`: see `OpContext`.
    static func run(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64, memo: Conv.SetupMemo? = nil) throws -> [Tensor] {
        try kernel(n.opType)(n, ins, OpContext(opset: opset, memo: memo))
    }
    /// `a` (negative counts from the end) as an axis of a rank-`rank` tensor, or an error:
    /// model files are untrusted, and an out-of-range axis would index past the shape.
    /// `inclusive` allows `rank` itself (Flatten's axis); negative axes count from `rank`.
    static func axis(_ a: Int64, rank: Int, inclusive: Bool = false, _ what: String = "axis") throws -> Int {
        let limit = inclusive ? rank + 1 : rank
        let v = a < 0 ? a + Int64(rank) : a
        guard v >= 0 && v < Int64(limit) else { throw ModelError("\(what) \(a) is out of range for rank \(rank)") }
        return Int(v)
    }

    static func need(_ ins: [Tensor?], _ i: Int) throws -> Tensor {
        guard i < ins.count, let t = ins[i] else { throw ModelError("input \(i) is missing") }
        return t
    }

    /// Numpy broadcasting of two shapes.
    static func broadcastShape(_ a: [Int], _ b: [Int]) throws -> [Int] {
        let r = max(a.count, b.count)
        let pa = Array(repeating: 1, count: r - a.count) + a, pb = Array(repeating: 1, count: r - b.count) + b
        return try zip(pa, pb).map { x, y in
            guard x == y || x == 1 || y == 1 else { throw ModelError("shapes \(a) and \(b) do not broadcast") }
            return max(x, y)
        }
    }

    /// Index maps from the output of a broadcast to each operand.
    /// Advances a row-major multi-index by one within `shape` (last axis fastest), wrapping to zeros after the end.
    @inline(__always)
    static func advance(_ index: inout [Int], within shape: [Int]) {
        var d = index.count - 1
        while d >= 0 {
            index[d] += 1
            if index[d] < shape[d] { return }
            index[d] = 0
            d -= 1
        }
    }

    static func broadcastIndex(_ shape: [Int], to out: [Int]) -> [Int] {
        stridedOffsets(out, strides: broadcastStrides(shape, rank: out.count))
    }

    /// Row-major strides of `shape` seen as a tensor of `rank` dimensions broadcast along its
    /// size-1 (and missing leading) axes, which get stride 0.
    static func broadcastStrides(_ shape: [Int], rank r: Int) -> [Int] {
        let s = Array(repeating: 1, count: r - shape.count) + shape
        var strides = Array(repeating: 0, count: r)
        var acc = 1
        for i in stride(from: r - 1, through: 0, by: -1) {
            strides[i] = s[i] == 1 ? 0 : acc
            acc *= s[i]
        }
        return strides
    }

    /// The source offset of every element of `shape`, visited in row-major order, when axis `d`
    /// advances by `strides[d]` in the source (a stride of 0 repeats: broadcasting).
    static func stridedOffsets(_ shape: [Int], strides: [Int]) -> [Int] {
        let total = shape.reduce(1, *)
        var offsets = [Int](repeating: 0, count: total)
        var counter = [Int](repeating: 0, count: shape.count)
        var off = 0
        for k in 0..<total {
            offsets[k] = off
            var d = shape.count - 1
            while d >= 0 {
                counter[d] += 1
                off += strides[d]
                if counter[d] < shape[d] { break }
                off -= strides[d] * counter[d]
                counter[d] = 0
                d -= 1
            }
        }
        return offsets
    }

    // MARK: Values in Double (the ops written for clarity)

    /// The values of `t` as Doubles, whatever its type.
    static func values(_ t: Tensor) -> [Double] { t.isFloat ? t.floats.map(Double.init) : t.ints.map(Double.init) }

    /// A tensor of `type` holding `v`: floats rounded to the type (float16 to half
    /// precision), integers rounded toward zero and clamped, booleans 0 or 1.
    static func tensor(_ shape: [Int], _ v: [Double], type: ElementType) -> Tensor {
        switch type {
        case .float32, .double: return Tensor(shape: shape, floats: v.map { Float($0) }, type: type)
        case .float16: return Tensor(shape: shape, floats: v.map { Float(Float16($0)) }, type: .float16)
        case .bool: return Tensor(shape: shape, ints: v.map { $0 != 0 ? 1 : 0 }, type: .bool)
        default:
            return Tensor(
                shape: shape, ints: v.map { Int64(saturating: $0) }, type: type)
        }
    }

    /// `f` over the numpy broadcast of `inputs`, one output value per element.
    static func broadcast(_ inputs: [Tensor], _ f: ([Double]) -> Double) throws -> (shape: [Int], values: [Double]) {
        var shape: [Int] = []
        for t in inputs { shape = try Ops.broadcastShape(shape, t.shape) }
        guard let count = ONNXModel.elementCount(shape) else { throw ModelError("broadcast shape \(shape) is too large") }
        let offsets = inputs.map { Ops.broadcastIndex($0.shape, to: shape) }, vals = inputs.map(values)
        var args = [Double](repeating: 0, count: inputs.count), out = [Double](repeating: 0, count: count)
        for k in 0..<count {
            for j in inputs.indices { args[j] = vals[j][offsets[j][k]] }
            out[k] = f(args)
        }
        return (shape, out)
    }

    /// For each element of `shape` in row-major order, `source(coordinate)`.
    static func offsets(_ shape: [Int], _ source: ([Int]) -> Int) -> [Int] {
        let count = shape.reduce(1, *)
        var c = [Int](repeating: 0, count: shape.count), out = [Int](repeating: 0, count: count)
        for k in 0..<count {
            out[k] = source(c)
            Ops.advance(&c, within: shape)
        }
        return out
    }

    /// A tensor of `shape` whose element k is `x`'s element `offsets[k]`.
    static func gather(_ x: Tensor, shape: [Int], offsets: [Int]) -> Tensor {
        x.isFloat
            ? Tensor(shape: shape, floats: offsets.map { x.floats[$0] }, type: x.type)
            : Tensor(shape: shape, ints: offsets.map { x.ints[$0] }, type: x.type)
    }
}
