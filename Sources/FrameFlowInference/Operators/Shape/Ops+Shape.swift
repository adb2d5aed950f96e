import Foundation
import FrameFlow

/// Shape and indexing ops: reshapes, layout changes, copies, gathers and constants. Values are
/// moved, not computed, so every element type goes through the same code.
extension Ops {
    /// Shape and indexing ops by op type.
    static let shapeKernels: [String: OpKernel] = [
        "Identity": runIdentity,
        "Constant": runConstant,
        "Shape": runShape,
        "Reshape": runReshape,
        "Flatten": runFlatten,
        "Squeeze": runSqueeze,
        "Unsqueeze": runUnsqueeze,
        "Transpose": runTranspose,
        "Concat": runConcat,
        "Cast": runCast,
        "CastLike": runCastLike,
        "Slice": runSlice,
        "Split": runSplit,
        "Pad": runPad,
        "ConstantOfShape": runConstantOfShape,
        "Range": runRange,
        "Size": runSize,
        "Dropout": runDropout,
        "Expand": runExpand,
        "Tile": runTile,
        "Trilu": runTrilu,
        "DepthToSpace": runDepthToSpace,
        "SpaceToDepth": runDepthToSpace,
    ]

    static func runIdentity(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try need(ins, 0)]
    }

    static func runConstant(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        guard case .tensor(let t)? = n.attributes["value"] else {
            if case .float(let f)? = n.attributes["value_float"] { return [Tensor(shape: [], floats: [f])] }
            if case .floats(let f)? = n.attributes["value_floats"] { return [Tensor(shape: [f.count], floats: f)] }
            if case .int(let i)? = n.attributes["value_int"] { return [Tensor(shape: [], ints: [i])] }
            if case .ints(let i)? = n.attributes["value_ints"] { return [Tensor(shape: [i.count], ints: i)] }
            throw ModelError("Constant without a supported value")
        }
        return [t]
    }

    static func runShape(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try need(ins, 0)
        var s = x.shape.map { Int64($0) }
        let r = Int64(s.count)
        var start = n.int("start", 0), end = n.int("end", r)
        if start < 0 { start += r }
        if end < 0 { end += r }
        start = min(max(start, 0), r)
        end = min(max(end, 0), r)
        s = start < end ? Array(s[Int(start)..<Int(end)]) : []
        return [Tensor(shape: [s.count], ints: s)]
    }

    static func runReshape(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try reshape(try need(ins, 0), try need(ins, 1).asInts, allowZero: n.int("allowzero", 0) != 0)]
    }

    static func runFlatten(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        var x = try need(ins, 0)
        let axis = try axis(n.int("axis", 1), rank: x.shape.count, inclusive: true)
        let a = x.shape[..<axis].reduce(1, *), b = x.shape[axis...].reduce(1, *)
        x.shape = [a, b]
        return [x]
    }

    static func runSqueeze(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        var x = try need(ins, 0)
        let axes = try (opset >= 13 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("axes"))?.map {
            try axis($0, rank: x.shape.count, "Squeeze axis")
        }
        if let axes, let a = axes.first(where: { x.shape[$0] != 1 }) { throw ModelError("Squeeze axis \(a) has size \(x.shape[a]), not 1") }
        x.shape = x.shape.enumerated().filter { axes == nil ? $0.element != 1 : !axes!.contains($0.offset) }.map(\.element)
        return [x]
    }

    static func runUnsqueeze(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        var x = try need(ins, 0)
        let raw = (opset >= 13 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("axes")) ?? []
        let rank = x.shape.count + raw.count
        let axes = try raw.map { try axis($0, rank: rank, "Unsqueeze axis") }.sorted()
        guard Set(axes).count == axes.count else { throw ModelError("Unsqueeze axes \(raw) repeat an axis") }
        for a in axes { x.shape.insert(1, at: a) }
        return [x]
    }

    static func runTranspose(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try need(ins, 0)
        let perm = n.ints("perm")?.map { Int($0) } ?? Array((0..<x.shape.count).reversed())
        guard perm.sorted() == Array(0..<x.shape.count) else {
            throw ModelError("Transpose perm \(perm) is not a permutation of the \(x.shape.count) axes")
        }
        return [transpose(x, perm)]
    }

    static func runConcat(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try concat(ins.compactMap { $0 }, axis: n.int("axis", 0))]
    }

    static func runCast(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try need(ins, 0)
        guard let to = ElementType(rawValue: Int(n.int("to", 1))) else { throw ModelError("Cast to an unsupported type") }
        switch to {
        case .float32, .double, .float16:
            return [Tensor(shape: x.shape, floats: to == .float16 ? x.asFloats.map { Float(Float16($0)) } : x.asFloats, type: to)]
        case .bool: return [Tensor(shape: x.shape, ints: x.asFloats.map { $0 != 0 ? 1 : 0 }, type: .bool)]
        default:
            let v: [Int64] = x.isFloat ? x.floats.map(toInt64) : x.ints
            let wrapped: [Int64] = v.map { i in
                switch to {
                case .uint8: return Int64(UInt8(truncatingIfNeeded: i))
                case .int8: return Int64(Int8(truncatingIfNeeded: i))
                case .uint16: return Int64(UInt16(truncatingIfNeeded: i))
                case .int16: return Int64(Int16(truncatingIfNeeded: i))
                case .int32: return Int64(Int32(truncatingIfNeeded: i))
                case .uint32: return Int64(UInt32(truncatingIfNeeded: i))
                default: return i
                }
            }
            return [Tensor(shape: x.shape, ints: wrapped, type: to)]
        }
    }

    static func runCastLike(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        var cast = n
        cast.opType = "Cast"
        cast.attributes["to"] = .int(Int64(try Ops.need(ins, 1).type.rawValue))
        return try Ops.run(cast, [try Ops.need(ins, 0)], opset: opset)
    }

    static func runSlice(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        return [try slice(n, ins, opset: opset)]
    }

    static func runSplit(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        return try split(n, ins, opset: opset)
    }

    static func runPad(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        return [try pad(n, ins, opset: opset)]
    }

    static func runConstantOfShape(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let shape = try Ops.need(ins, 0).asInts.map { Int(clamping: $0) }
        let count = try Checked.elements(shape, "ConstantOfShape output")
        if case .tensor(let t)? = n.attributes["value"] {
            guard let v = values(t).first else { throw ModelError("ConstantOfShape: the value tensor is empty") }
            return [tensor(shape, Array(repeating: v, count: count), type: t.type)]
        }
        return [Tensor(shape: shape, floats: Array(repeating: 0, count: count))]
    }

    static func runRange(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let s = try Ops.need(ins, 0)
        guard let start = values(s).first, let limit = values(try Ops.need(ins, 1)).first, let delta = values(try Ops.need(ins, 2)).first
        else { throw ModelError("Range needs scalar start, limit and delta") }
        guard delta != 0, start.isFinite, limit.isFinite else { throw ModelError("Range: delta is 0 or a bound is not finite") }
        let steps = ((limit - start) / delta).rounded(.up)
        guard steps < Double(1 << 31) else { throw ModelError("Range from \(start) to \(limit) by \(delta): too many elements") }
        let count = max(Int(steps), 0)
        _ = try Checked.elements([count], "Range output")
        return [tensor([count], (0..<count).map { start + Double($0) * delta }, type: s.type)]
    }

    static func runSize(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [Tensor(shape: [], ints: [Int64(try Ops.need(ins, 0).count)])]
    }

    static func runDropout(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let ratio = ins.count > 1 ? ins[1].flatMap { values($0).first } ?? 0.5 : Double(n.float("ratio", 0.5))
        let training = ins.count > 2 ? (ins[2].flatMap { values($0).first } ?? 0) != 0 : false
        guard !training || ratio == 0 else { throw ModelError("Dropout in training mode (random masks) is not implemented") }
        var outs = [x]
        if n.outputs.count > 1 && !n.outputs[1].isEmpty {
            outs.append(Tensor(shape: x.shape, ints: Array(repeating: 1, count: x.count), type: .bool))
        }
        return outs
    }

    static func runExpand(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let shape = try Ops.broadcastShape(x.shape, try Ops.need(ins, 1).asInts.map { Int(clamping: $0) })
        _ = try Checked.elements(shape, "Expand output")
        return [gather(x, shape: shape, offsets: Ops.broadcastIndex(x.shape, to: shape))]
    }

    static func runTile(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let repeats = try Ops.need(ins, 1).asInts.map { Int(clamping: $0) }
        guard repeats.count == x.shape.count, repeats.allSatisfy({ $0 >= 0 }) else {
            throw ModelError("Tile repeats \(repeats) do not fit shape \(x.shape)")
        }
        let shape = try zip(x.shape, repeats).map { try Checked.product($0, $1, "Tile of \(x.shape) by \(repeats)") }
        _ = try Checked.elements(shape, "Tile output")
        let strides = x.strides
        return [gather(x, shape: shape, offsets: offsets(shape) { c in zip(c.indices, c).reduce(0) { $0 + ($1.1 % x.shape[$1.0]) * strides[$1.0] } })]
    }

    static func runTrilu(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        guard x.shape.count >= 2 else { throw ModelError("Trilu needs rank ≥ 2, got \(x.shape)") }
        let k = ins.count > 1 ? ins[1].flatMap { $0.asInts.first } ?? 0 : 0
        let upper = n.int("upper", 1) != 0
        let (rows, cols) = (x.shape[x.shape.count - 2], x.shape[x.shape.count - 1])
        let v = values(x).enumerated().map { (i, value) -> Double in
            let d = Int64(i % cols) - Int64((i / cols) % rows)  // column − row
            return (upper ? d >= k : d <= k) ? value : 0
        }
        return [tensor(x.shape, v, type: x.type)]
    }

    static func runDepthToSpace(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let x = try Ops.need(ins, 0)
        let b = Int(n.int("blocksize", 0))
        guard x.shape.count == 4, b > 0, b <= 1 << 20 else { throw ModelError("\(op) needs a 4-D input and a blocksize, got \(x.shape), \(b)") }
        let (N, C, H, W) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        if op == "DepthToSpace" {
            guard C % (b * b) == 0 else { throw ModelError("DepthToSpace: \(C) channels are not a multiple of \(b * b)") }
            let oc = C / (b * b), crd = n.string("mode", "DCR") == "CRD"
            let shape = [N, oc, H * b, W * b]
            _ = try Checked.elements(shape, "DepthToSpace output")
            return [
                gather(
                    x, shape: shape,
                    offsets: offsets(shape) { c in
                        let (i, j) = (c[2] % b, c[3] % b)
                        let src = crd ? (c[1] * b + i) * b + j : (i * b + j) * oc + c[1]
                        return ((c[0] * C + src) * H + c[2] / b) * W + c[3] / b
                    })
            ]
        }
        guard H % b == 0, W % b == 0 else { throw ModelError("SpaceToDepth: \(H) × \(W) is not a multiple of \(b)") }
        let shape = [N, C * b * b, H / b, W / b]
        return [
            gather(
                x, shape: shape,
                offsets: offsets(shape) { c in
                    let block = c[1] / C, ch = c[1] % C
                    return ((c[0] * C + ch) * H + c[2] * b + block / b) * W + c[3] * b + block % b
                })
        ]
    }

    static func reshape(_ x: Tensor, _ spec: [Int64], allowZero: Bool) throws -> Tensor {
        var shape = spec.enumerated().map { i, v -> Int in v == 0 && !allowZero && i < x.shape.count ? x.shape[i] : Int(v) }
        // Products checked: the spec comes from the model (a -1 other than the first, or any
        // other negative size, fails the count).
        if let k = shape.firstIndex(of: -1) {
            var rest = shape
            rest.remove(at: k)
            guard let n = ResourceLimits.elementCount(rest), n > 0, x.count % n == 0 else { throw ModelError("cannot reshape \(x.shape) to \(spec)") }
            shape[k] = x.count / n
        }
        guard ResourceLimits.elementCount(shape) == x.count else { throw ModelError("cannot reshape \(x.shape) (\(x.count) values) to \(spec)") }
        var y = x
        y.shape = shape
        return y
    }

    static func transpose(_ x: Tensor, _ perm: [Int]) -> Tensor {
        let outShape = perm.map { x.shape[$0] }
        let r = perm.count
        // A block of trailing axes moved in front of the block before it (NHWC ↔ NCHW, a
        // matrix transpose): batches of one 2-D transpose, in 8 × 8 register blocks, instead
        // of the general offset table below.
        if x.isFloat, x.count > 0, x.asFloats.count == x.count {
            for p in 0..<r {
                for q in (p + 1)..<max(p + 1, r) where perm == Array(0..<p) + Array(q..<r) + Array(p..<q) {
                    let outer = x.shape[..<p].reduce(1, *), a = x.shape[p..<q].reduce(1, *), b = x.shape[q...].reduce(1, *)
                    var out = Scratch.uninitialized(x.count)
                    x.floats.withUnsafeBufferPointer { X in
                        out.withUnsafeMutableBufferPointer { Y in
                            for o in 0..<outer {
                                Microkernel.transpose(X.baseAddress! + o * a * b, rows: a, columns: b, into: Y.baseAddress! + o * a * b)
                            }
                        }
                    }
                    return Tensor(shape: outShape, floats: out, type: x.type)
                }
            }
        }
        let inStrides = x.strides
        let src = stridedOffsets(outShape, strides: perm.map { inStrides[$0] })
        if x.isFloat { return Tensor(shape: outShape, floats: src.map { x.floats[$0] }, type: x.type) }
        return Tensor(shape: outShape, ints: src.map { x.ints[$0] }, type: x.type)
    }

    /// Concatenation with the axis and the inputs' shapes checked (untrusted models).
    static func concat(_ ts: [Tensor], axis raw: Int64) throws -> Tensor {
        guard let first = ts.first else { throw ModelError("Concat has no inputs") }
        let axis = try axis(raw, rank: first.shape.count)
        for t in ts
        where t.shape.count != first.shape.count || t.isFloat != first.isFloat
            || zip(t.shape, first.shape).enumerated().contains(where: { $0.offset != axis && $0.element.0 != $0.element.1 })
        {
            throw ModelError("Concat input \(t.shape) does not fit \(first.shape) along axis \(axis)")
        }
        let outer = ts[0].shape[..<axis].reduce(1, *)
        var shape = ts[0].shape
        shape[axis] = ts.map { $0.shape[axis] }.reduce(0, +)
        _ = try Checked.elements(shape, "Concat output")
        let isFloat = ts[0].isFloat
        if isFloat, ts.allSatisfy({ $0.asFloats.count == $0.count }) {
            // Straight into a pooled array (appending grew a fresh one piece by piece).
            var f = Scratch.uninitialized(shape.reduce(1, *))
            f.withUnsafeMutableBufferPointer { F in
                guard var dst = F.baseAddress else { return }
                for o in 0..<outer {
                    for t in ts {
                        let chunk = t.shape[axis...].reduce(1, *)
                        if chunk == 0 { continue }
                        t.floats.withUnsafeBufferPointer { src in dst.update(from: src.baseAddress! + o * chunk, count: chunk) }
                        dst += chunk
                    }
                }
            }
            return Tensor(shape: shape, floats: f, type: ts[0].type)
        }
        var f: [Float] = [], i: [Int64] = []
        for o in 0..<outer {
            for t in ts {
                let chunk = t.shape[axis...].reduce(1, *)
                if isFloat { f += t.asFloats[(o * chunk)..<((o + 1) * chunk)] } else { i += t.asInts[(o * chunk)..<((o + 1) * chunk)] }
            }
        }
        return isFloat ? Tensor(shape: shape, floats: f, type: ts[0].type) : Tensor(shape: shape, ints: i, type: ts[0].type)
    }

    static func slice(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try need(ins, 0)
        let r = x.shape.count
        let starts: [Int64], ends: [Int64]
        var axes: [Int64], steps: [Int64]
        if opset >= 10 {
            starts = try need(ins, 1).asInts
            ends = try need(ins, 2).asInts
            axes = ins.count > 3 ? ins[3]?.asInts ?? Array(0..<Int64(starts.count)) : Array(0..<Int64(starts.count))
            steps = ins.count > 4 ? ins[4]?.asInts ?? Array(repeating: 1, count: starts.count) : Array(repeating: 1, count: starts.count)
        } else {
            starts = n.ints("starts") ?? []
            ends = n.ints("ends") ?? []
            axes = n.ints("axes") ?? Array(0..<Int64(starts.count))
            steps = Array(repeating: 1, count: starts.count)
        }
        guard ends.count == starts.count, axes.count == starts.count, steps.count == starts.count else {
            throw ModelError("Slice has \(starts.count) starts, \(ends.count) ends, \(axes.count) axes and \(steps.count) steps")
        }
        var lo = Array(repeating: 0, count: r), step = Array(repeating: 1, count: r), count = x.shape
        for (k, a0) in axes.enumerated() {
            let a = try axis(a0, rank: r, "Slice axis")
            let dim = x.shape[a]
            let st = Int(steps[k])
            guard st != 0 else { throw ModelError("Slice step 0") }
            func clampIndex(_ v: Int64, _ isEnd: Bool) -> Int {
                var i = v < 0 ? v + Int64(dim) : v
                if st > 0 { i = min(max(i, 0), Int64(dim)) } else { i = min(max(i, -1), Int64(dim - 1)) }
                return Int(i)
            }
            let s = clampIndex(starts[k], false), e = clampIndex(ends[k], true)
            lo[a] = s
            step[a] = st
            // Elements from s toward e, |st| apart, without forming s + st or −st (a step of
            // Int64.min or near Int64.max comes from the model).
            let span = st > 0 ? e - s : s - e
            count[a] = span <= 0 ? 0 : Int((UInt(span - 1) / st.magnitude) + 1)
        }
        let strides = x.strides
        var f: [Float] = [], iv: [Int64] = []
        let total = count.reduce(1, *)
        if x.isFloat, r > 0, total > 0, step.allSatisfy({ $0 == 1 }) {
            // Unit steps: the output is runs of whole trailing axes below axis k (k's range
            // included), copied one run at a time (Split of a YOLO C2f block: two runs).
            var k = r - 1
            while k > 0 && lo[k] == 0 && count[k] == x.shape[k] { k -= 1 }
            let run = count[k...].reduce(1, *), outerCount = Array(count[..<k])
            f.reserveCapacity(total)
            var c = [Int](repeating: 0, count: k)
            x.floats.withUnsafeBufferPointer { src in
                for _ in 0..<(total / run) {
                    var off = lo[k] * strides[k]
                    for d in 0..<k { off += (lo[d] + c[d]) * strides[d] }
                    f.append(contentsOf: src[off..<(off + run)])
                    if k > 0 { advance(&c, within: outerCount) }
                }
            }
            return Tensor(shape: count, floats: f, type: x.type)
        }
        var c = [Int](repeating: 0, count: r)
        for _ in 0..<total {
            var off = 0
            for d in 0..<r { off += (lo[d] + c[d] * step[d]) * strides[d] }
            if x.isFloat { f.append(x.floats[off]) } else { iv.append(x.ints[off]) }
            advance(&c, within: count)
        }
        return x.isFloat ? Tensor(shape: count, floats: f, type: x.type) : Tensor(shape: count, ints: iv, type: x.type)
    }

    static func split(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        let x = try need(ins, 0)
        let axis = try axis(n.int("axis", 0), rank: x.shape.count)
        let outputs = n.outputs.count
        var sizes = (opset >= 13 ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("split"))?.map { Int($0) }
        if sizes == nil {
            let dim = x.shape[axis]
            let numOut = Int(n.int("num_outputs", Int64(outputs)))
            guard numOut > 0, numOut <= max(outputs, 1) else { throw ModelError("Split into \(numOut) parts for \(outputs) outputs") }
            let chunk = (dim + numOut - 1) / numOut
            sizes = (0..<numOut).map { min(chunk, dim - $0 * chunk) }
        }
        var result: [Tensor] = []
        var start = 0
        for s in sizes! {
            guard s >= 0, s <= x.shape[axis] - start else { throw ModelError("Split sizes \(sizes!) do not fit axis \(axis) of \(x.shape)") }
            var starts = Array(repeating: Int64(0), count: x.shape.count), ends = x.shape.map { Int64($0) }
            starts[axis] = Int64(start)
            ends[axis] = Int64(start + s)
            var node = n
            node.attributes = [:]
            result.append(try slice(node, [x, Tensor(shape: [starts.count], ints: starts), Tensor(shape: [ends.count], ints: ends)], opset: 13))
            start += s
        }
        return result
    }

    static func pad(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try need(ins, 0)
        let r = x.shape.count
        var pads = (opset >= 11 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("pads")) ?? Array(repeating: 0, count: 2 * r)
        let value: Float = opset >= 11 ? (ins.count > 2 ? ins[2]?.asFloats.first ?? 0 : 0) : n.float("value", 0)
        if opset >= 18, ins.count > 3, let axesT = ins[3] {
            var full = Array(repeating: Int64(0), count: 2 * r)
            let axes = try axesT.asInts.map { try axis($0, rank: r, "Pad axis") }
            guard pads.count == 2 * axes.count else { throw ModelError("Pad has \(pads.count) pads for \(axes.count) axes") }
            for (k, a) in axes.enumerated() {
                full[a] = pads[k]
                full[a + r] = pads[k + axes.count]
            }
            pads = full
        }
        let mode = n.string("mode", "constant")
        guard pads.count == 2 * r else { throw ModelError("Pad has \(pads.count) pads for rank \(r)") }
        // Sizes checked: pads come from the model (2⁶² overflows the sum).
        let outShape = try (0..<r).map { d in
            try Checked.sum(try Checked.sum(x.shape[d], Int(pads[d]), "Pad axis \(d)"), Int(pads[d + r]), "Pad axis \(d)")
        }
        let total = try Checked.elements(outShape, "Pad output")
        if mode != "constant", total > 0, x.shape.contains(0) { throw ModelError("Pad mode '\(mode)' on an empty axis of \(x.shape)") }
        let strides = x.strides
        let vals = x.asFloats
        var out = Scratch.filled(total, value)
        if mode == "constant" && r > 0 && pads.allSatisfy({ $0 >= 0 }) && x.count > 0 {
            // Growing with a constant: copy each innermost row of the input into place.
            let outStrides = Tensor(shape: outShape, floats: []).strides
            let row = x.shape[r - 1]
            let outer = Array(x.shape[0..<(r - 1)])
            var c = [Int](repeating: 0, count: r - 1)
            vals.withUnsafeBufferPointer { V in
                out.withUnsafeMutableBufferPointer { O in
                    for k in 0..<(x.count / row) {
                        var off = Int(pads[r - 1])
                        for d in 0..<(r - 1) { off += (c[d] + Int(pads[d])) * outStrides[d] }
                        (O.baseAddress! + off).update(from: V.baseAddress! + k * row, count: row)
                        advance(&c, within: outer)
                    }
                }
            }
            return x.isFloat ? Tensor(shape: outShape, floats: out, type: x.type) : Tensor(shape: outShape, ints: out.map(toInt64), type: x.type)
        }
        var c = [Int](repeating: 0, count: r)
        for k in 0..<out.count {
            var off = 0
            var inside = true
            for d in 0..<r {
                var i = c[d] - Int(pads[d])
                let dim = x.shape[d]
                if i < 0 || i >= dim {
                    switch mode {
                    case "reflect":
                        // Reflected back and forth (period 2·(dim − 1)): pads as wide as the
                        // axis, or wider, stay inside it.
                        let period = 2 * (dim - 1)
                        if period == 0 { i = 0 } else { i %= period; if i < 0 { i += period }; if i >= dim { i = period - i } }
                    case "edge": i = min(max(i, 0), dim - 1)
                    case "wrap": i = ((i % dim) + dim) % dim
                    default: inside = false
                    }
                }
                off += i * strides[d]
            }
            if inside { out[k] = vals[off] }
            advance(&c, within: outShape)
        }
        return x.isFloat ? Tensor(shape: outShape, floats: out, type: x.type) : Tensor(shape: outShape, ints: out.map(toInt64), type: x.type)
    }

}
