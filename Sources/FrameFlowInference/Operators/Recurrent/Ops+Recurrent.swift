import Foundation

/// ONNX's recurrent layers — RNN, GRU and LSTM — for sequence models such as CRNN text
/// recognisers: forward, reverse and bidirectional, `sequence_lens`, initial states, biases,
/// LSTM peepholes and `input_forget`, GRU's `linear_before_reset`, cell `clip`, both layouts,
/// and the activation functions the spec names. Plain loops in Double, one time step after
/// another (a step depends on the last).
extension Ops {
    /// Recurrent layers by op type.
    static let recurrentKernels = kernels(["RNN", "GRU", "LSTM"]) { n, ins, _ in try runRecurrent(n, ins) }

    static func runRecurrent(_ n: ONNXNode, _ ins: [Tensor?]) throws -> [Tensor] {
        let op = n.opType
        guard recurrentKernels[op] != nil else { throw ModelError("op '\(op)' is not implemented") }
        let gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1
        let batchFirst = n.int("layout", 0) != 0
        let x = try Ops.need(ins, 0), w = try Ops.need(ins, 1), rw = try Ops.need(ins, 2)
        guard x.shape.count == 3, w.shape.count == 3, rw.shape.count == 3 else {
            throw ModelError("\(op) needs X, W and R of rank 3, got \(x.shape), \(w.shape), \(rw.shape)")
        }
        let (seq, batch, inputSize) = batchFirst ? (x.shape[1], x.shape[0], x.shape[2]) : (x.shape[0], x.shape[1], x.shape[2])
        let direction = n.string("direction", "forward")
        let dirs = direction == "bidirectional" ? 2 : 1
        let hidden = Int(n.int("hidden_size", Int64(rw.shape[2])))
        guard ["forward", "reverse", "bidirectional"].contains(direction), hidden > 0, hidden == rw.shape[2],
            w.shape == [dirs, gates * hidden, inputSize],
            rw.shape == [dirs, gates * hidden, hidden]
        else {
            throw ModelError("\(op): W \(w.shape) and R \(rw.shape) do not fit \(dirs) direction(s), hidden size \(hidden), input size \(inputSize)")
        }
        let bias = ins.count > 3 ? ins[3] : nil, lens = ins.count > 4 ? ins[4] : nil, h0 = ins.count > 5 ? ins[5] : nil
        let c0 = op == "LSTM" && ins.count > 6 ? ins[6] : nil, peep = op == "LSTM" && ins.count > 7 ? ins[7] : nil
        guard bias.map({ $0.shape == [dirs, 2 * gates * hidden] }) ?? true, lens.map({ $0.count == batch }) ?? true,
            h0.map({ $0.count == dirs * batch * hidden }) ?? true, c0.map({ $0.count == dirs * batch * hidden }) ?? true,
            peep.map({ $0.shape == [dirs, 3 * hidden] }) ?? true
        else {
            throw ModelError("\(op): B, sequence_lens, initial states or P do not fit \(dirs) direction(s), batch \(batch), hidden size \(hidden)")
        }
        let steps = try (lens.map { values($0) } ?? Array(repeating: Double(seq), count: batch)).map { v -> Int in
            guard v >= 0, v <= Double(seq) else { throw ModelError("\(op): sequence length \(v) for \(seq) steps") }
            return Int(v)
        }
        let functions = try activations(n, count: (op == "LSTM" ? 3 : op == "GRU" ? 2 : 1), directions: dirs)
        let clip = n.attributes["clip"] == nil ? nil : Double(n.float("clip", 0))
        func clipped(_ v: Double) -> Double { clip.map { min(max(v, -$0), $0) } ?? v }
        let linearBeforeReset = n.int("linear_before_reset", 0) != 0, inputForget = n.int("input_forget", 0) != 0
        let xv = values(x), wv = values(w), rv = values(rw)
        let bv = bias.map(values), h0v = h0.map(values), c0v = c0.map(values), pv = peep.map(values)

        var y = [Double](repeating: 0, count: try Checked.elements([seq, dirs, batch, hidden], "\(op) output"))
        var yh = [Double](repeating: 0, count: dirs * batch * hidden), yc = yh
        func xAt(_ t: Int, _ b: Int, _ i: Int) -> Double { batchFirst ? xv[(b * seq + t) * inputSize + i] : xv[(t * batch + b) * inputSize + i] }
        func yIndex(_ t: Int, _ d: Int, _ b: Int, _ j: Int) -> Int {
            batchFirst ? ((b * seq + t) * dirs + d) * hidden + j : ((t * dirs + d) * batch + b) * hidden + j
        }
        for d in 0..<dirs {
            let reverse = direction == "reverse" || d == 1
            let (f, g, h) = (
                functions[d][0], functions[d].count > 1 ? functions[d][1] : functions[d][0],
                functions[d].count > 2 ? functions[d][2] : functions[d][0]
            )
            /// Row `row` of W (or R) for direction d times a vector.
            func dot(_ m: [Double], _ cols: Int, _ row: Int, _ v: (Int) -> Double) -> Double {
                let base = (d * gates * hidden + row) * cols
                var s = 0.0
                for k in 0..<cols { s += m[base + k] * v(k) }
                return s
            }
            func wb(_ row: Int) -> Double { bv?[d * 2 * gates * hidden + row] ?? 0 }
            func rb(_ row: Int) -> Double { bv?[d * 2 * gates * hidden + gates * hidden + row] ?? 0 }
            for b in 0..<batch {
                var hs = (0..<hidden).map { h0v?[(d * batch + b) * hidden + $0] ?? 0 }
                var cs = (0..<hidden).map { c0v?[(d * batch + b) * hidden + $0] ?? 0 }
                let len = steps[b]
                for s in 0..<len {
                    let t = reverse ? len - 1 - s : s
                    let xt = { (k: Int) in xAt(t, b, k) }
                    let prev = hs
                    switch op {
                    case "RNN":
                        for j in 0..<hidden {
                            hs[j] = f(clipped(dot(wv, inputSize, j, xt) + dot(rv, hidden, j) { prev[$0] } + wb(j) + rb(j)))
                        }
                    case "GRU":
                        // Gate rows: z, r, then h.
                        var z = [Double](repeating: 0, count: hidden), r = z
                        for j in 0..<hidden {
                            z[j] = f(clipped(dot(wv, inputSize, j, xt) + dot(rv, hidden, j) { prev[$0] } + wb(j) + rb(j)))
                            r[j] = f(
                                clipped(
                                    dot(wv, inputSize, hidden + j, xt) + dot(rv, hidden, hidden + j) { prev[$0] } + wb(hidden + j) + rb(hidden + j)))
                        }
                        for j in 0..<hidden {
                            let row = 2 * hidden + j
                            let recurrent =
                                linearBeforeReset
                                ? r[j] * (dot(rv, hidden, row) { prev[$0] } + rb(row))
                                : dot(rv, hidden, row) { r[$0] * prev[$0] } + rb(row)
                            let candidate = g(clipped(dot(wv, inputSize, row, xt) + recurrent + wb(row)))
                            hs[j] = (1 - z[j]) * candidate + z[j] * prev[j]
                        }
                    default:
                        // Gate rows: i, o, f, c; peepholes: i, o, f.
                        func pre(_ gate: Int, _ j: Int) -> Double {
                            let row = gate * hidden + j
                            return dot(wv, inputSize, row, xt) + dot(rv, hidden, row) { prev[$0] } + wb(row) + rb(row)
                        }
                        func peephole(_ k: Int, _ j: Int) -> Double { pv?[d * 3 * hidden + k * hidden + j] ?? 0 }
                        let cPrev = cs
                        for j in 0..<hidden {
                            let i = f(clipped(pre(0, j) + peephole(0, j) * cPrev[j]))
                            let fg = inputForget ? 1 - i : f(clipped(pre(2, j) + peephole(2, j) * cPrev[j]))
                            let c = g(clipped(pre(3, j)))
                            cs[j] = fg * cPrev[j] + i * c
                            let o = f(clipped(pre(1, j) + peephole(1, j) * cs[j]))
                            hs[j] = o * h(cs[j])
                        }
                    }
                    for j in 0..<hidden { y[yIndex(t, d, b, j)] = hs[j] }
                }
                for j in 0..<hidden {
                    yh[(d * batch + b) * hidden + j] = hs[j]
                    yc[(d * batch + b) * hidden + j] = cs[j]
                }
            }
        }
        let yShape = batchFirst ? [batch, seq, dirs, hidden] : [seq, dirs, batch, hidden]
        let stateShape = batchFirst ? [batch, dirs, hidden] : [dirs, batch, hidden]
        func state(_ v: [Double]) -> [Double] {
            guard batchFirst else { return v }
            var out = v
            for d in 0..<dirs { for b in 0..<batch { for j in 0..<hidden { out[(b * dirs + d) * hidden + j] = v[(d * batch + b) * hidden + j] } } }
            return out
        }
        var outs = [tensor(yShape, y, type: x.type), tensor(stateShape, state(yh), type: x.type)]
        if op == "LSTM" { outs.append(tensor(stateShape, state(yc), type: x.type)) }
        return outs
    }

    /// The activation functions of each direction: the `activations` attribute (with
    /// `activation_alpha` / `activation_beta` in order, for the functions that take them), or
    /// the defaults (Sigmoid for gates, Tanh otherwise).
    static func activations(_ n: ONNXNode, count: Int, directions: Int) throws -> [[(Double) -> Double]] {
        var names: [String]
        if case .strings(let s)? = n.attributes["activations"] {
            names = s
        } else {
            names = count == 1 ? ["Tanh"] : count == 2 ? ["Sigmoid", "Tanh"] : ["Sigmoid", "Tanh", "Tanh"]
            names = Array([[String]](repeating: names, count: directions).joined())
        }
        guard names.count == count * directions else {
            throw ModelError("\(n.opType): \(names.count) activations for \(directions) direction(s) of \(count)")
        }
        var alphas: [Float] = [], betas: [Float] = []
        if case .floats(let a)? = n.attributes["activation_alpha"] { alphas = a }
        if case .floats(let b)? = n.attributes["activation_beta"] { betas = b }
        var (ai, bi) = (0, 0)
        func next(_ list: [Float], _ i: inout Int, _ fallback: Double) -> Double {
            defer { i += 1 }
            return i < list.count ? Double(list[i]) : fallback
        }
        let fs: [(Double) -> Double] = try names.map { name in
            switch name.lowercased() {
            case "relu": return { max($0, 0) }
            case "tanh": return { tanh($0) }
            case "sigmoid": return { 1 / (1 + Foundation.exp(-$0)) }
            case "softsign": return { $0 / (1 + abs($0)) }
            case "softplus": return softplus
            case "affine":
                let a = next(alphas, &ai, 1), b = next(betas, &bi, 0)
                return { a * $0 + b }
            case "leakyrelu":
                let a = next(alphas, &ai, 0.01)
                return { $0 >= 0 ? $0 : a * $0 }
            case "thresholdedrelu":
                let a = next(alphas, &ai, 1)
                return { $0 > a ? $0 : 0 }
            case "scaledtanh":
                let a = next(alphas, &ai, 1), b = next(betas, &bi, 1)
                return { a * tanh(b * $0) }
            case "hardsigmoid":
                let a = next(alphas, &ai, 0.2), b = next(betas, &bi, 0.5)
                return { max(0, min(1, a * $0 + b)) }
            case "elu":
                let a = next(alphas, &ai, 1)
                return { $0 >= 0 ? $0 : a * (Foundation.exp($0) - 1) }
            default: throw ModelError("\(n.opType): activation '\(name)' is not known")
            }
        }
        return (0..<directions).map { Array(fs[($0 * count)..<(($0 + 1) * count)]) }
    }
}
