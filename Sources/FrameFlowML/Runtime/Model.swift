import Foundation
import FrameFlow

/// A neural network loaded from an ONNX file, run on the CPU in Swift.
///
/// ```swift
/// let model = try Model(contentsOf: URL(fileURLWithPath: "digits.onnx"))
/// let outputs = try model.run(["input": Tensor(shape: [1, 1, 28, 28], floats: pixels)])
/// print(model.inputs.map(\.name), outputs["output"]!.shape)
/// ```
///
/// The node order is planned once at load (topological); an op FrameFlow does not implement
/// is an error at load that names it, its node and the opset.
public final class Model: @unchecked Sendable {  // immutable after init; run() allocates its own values
    let graph: ONNXModel
    /// The nodes left to run, in order, after constant folding and fusion.
    var order: [Int] { steps.map(\.node) }
    /// The run plan: each step of `order` with its values as slots (see `Step`).
    let steps: [Step]
    /// Constants the steps read, by index (a reference `-1 - k`).
    let constantList: [Tensor]
    /// Slots for the values computed during a run (graph inputs included).
    let slotCount: Int
    let inputSlots: [Int]
    let outputRefs: [Int]
    /// The ONNX op types the file uses (before fusion rewrote any node).
    let declaredOpTypes: Set<String>
    let tflite: TFLiteGraph?

    /// One node of the plan. Value references: `k ≥ 0` is run slot k, `k < 0` is constant
    /// `-1 - k`, `Step.absent` an omitted optional input. Planned once so that a run indexes
    /// arrays instead of hashing value names (PP-OCR runs ~300 nodes: dictionary lookups,
    /// and copying the constants dictionary on the first write, cost a fifth of a run).
    /// A class, so that a run takes each step with one retain (a struct of arrays is one per
    /// array).
    final class Step: Sendable {
        static let absent = Int.min
        let node: Int
        /// The node itself (a copy: reading it from the graph's array copied it on every run).
        let op: ONNXNode
        let inputs: [Int]
        let outputs: [Int]
        /// Slots no later step reads (their storage goes back to the pool after this step).
        let frees: [Int]
        /// A Conv's setup kept between runs.
        let memo: Conv.SetupMemo?

        init(node: Int, op: ONNXNode, inputs: [Int], outputs: [Int], frees: [Int]) {
            (self.node, self.op, self.inputs, self.outputs, self.frees) = (node, op, inputs, outputs, frees)
            memo = op.opType == "Conv" ? Conv.SetupMemo() : nil
        }
    }
    /// The graph's inputs (initializers excluded) and outputs.
    public let inputs: [ValueInfo]
    public let outputs: [ValueInfo]
    /// Float storage kept between runs, one pool per concurrent run (see `Scratch`).
    private let pools = Locked<[FloatPool]>([])

    /// Loads an ONNX or TFLite model, by extension (.onnx, .tflite), else by content; ONNX
    /// external data files are looked up beside it.
    public convenience init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ModelError("\(url.path): cannot read the model file")
        }
        let ext = url.pathExtension.lowercased()
        let isTFLite = data.count >= 8 && data[data.startIndex + 4..<data.startIndex + 8].elementsEqual("TFL3".utf8)
        if ext == "tflite" || (ext != "onnx" && isTFLite) {
            try self.init(tflite: [UInt8](data), file: url.path)
        } else if ext == "onnx" || Self.hasONNXSignature(data) {
            try self.init(onnx: data, file: url.path, directory: url.deletingLastPathComponent().path)
        } else {
            throw ModelError("\(url.path): not a TFLite (FlatBuffers) model (no TFL3 identifier) nor an ONNX (protobuf) model (\(data.count) bytes)")
        }
    }

    /// Whether `data` starts as an ONNX ModelProto does: with the tag of one of its fields
    /// (ir_version's 0x08 as every exporter writes it first; graph, opset_import, names, …).
    static func hasONNXSignature(_ data: Data) -> Bool {
        guard let first = data.first else { return false }
        return [0x08, 0x12, 0x1A, 0x22, 0x28, 0x32, 0x3A, 0x42, 0x72, 0x7A, 0x82].contains(first)
    }

    /// Loads a TFLite flatbuffer.
    public init(tflite bytes: [UInt8], file: String = "<model>") throws {
        let g = try TFLiteGraph(bytes: bytes, file: file)
        tflite = g
        graph = try ONNXModel(empty: ())
        steps = []
        constantList = []
        slotCount = 0
        inputSlots = []
        outputRefs = []
        declaredOpTypes = []
        inputs = g.inputs.map { ValueInfo(name: g.tensors[$0].name, type: g.tensors[$0].type, shape: g.tensors[$0].shape.map { $0 }) }
        outputs = g.outputs.map { ValueInfo(name: g.tensors[$0].name, type: g.tensors[$0].type, shape: g.tensors[$0].shape.map { $0 }) }
    }

    public convenience init(onnx data: Data, file: String = "<model>", directory: String? = nil) throws {
        try self.init(graph: try ONNXModel(data: data, file: file, directory: directory), file: file)
    }

    /// A decoded ONNX graph (a model's, or a subgraph's with its captured names as inputs).
    init(graph decoded: ONNXModel, file: String) throws {
        var graph = decoded
        // Nodes with subgraphs (If, Loop): the outer names the subgraphs read become extra
        // inputs of the node, so that the plan keeps them alive and hands them over; each
        // subgraph's model is built now, so an unknown op inside fails the load.
        for i in graph.nodes.indices {
            let subgraphs = graph.nodes[i].subgraphs
            guard !subgraphs.isEmpty else { continue }
            var captures: [String] = []
            for g in subgraphs { for name in g.freeNames where !captures.contains(name) { captures.append(name) } }
            for g in subgraphs { try g.build(opset: graph.opsetVersion, captures: captures, file: file) }
            graph.nodes[i].inputs += captures
            graph.nodes[i].attributes[ExtraOps.capturesKey] = .strings(captures)
        }
        declaredOpTypes = Set(graph.nodes.map(\.opType))
        tflite = nil
        inputs = graph.inputs.filter { graph.initializers[$0.name] == nil }
        outputs = graph.outputs
        for n in graph.nodes where !Ops.supports(n.opType, domain: n.domain) {
            throw ModelError("\(file): node '\(n.name.isEmpty ? n.outputs.first ?? "?" : n.name)' uses op '\(n.opType)'\(n.domain.isEmpty ? "" : " (domain \(n.domain))") at opset \(graph.opsetVersion), which FrameFlow does not implement")
        }
        // Topological order: a node runs when all its inputs exist.
        var available = Set(graph.initializers.keys).union(graph.inputs.map(\.name)).union([""])
        var remaining = Array(graph.nodes.indices)
        var order: [Int] = []
        while !remaining.isEmpty {
            let before = remaining.count
            remaining.removeAll { i in
                let n = graph.nodes[i]
                guard n.inputs.allSatisfy({ available.contains($0) }) else { return false }
                order.append(i)
                available.formUnion(n.outputs)
                return true
            }
            if remaining.count == before {
                let n = graph.nodes[remaining[0]]
                let missing = n.inputs.filter { !available.contains($0) }
                throw ModelError("\(file): node '\(n.name)' (\(n.opType)) needs \(missing), which nothing produces")
            }
        }
        // Constant folding: a node whose inputs are all constants runs once, here. (One that
        // fails is left in place, so that running the model reports its error.)
        var constants = graph.initializers
        var remainingOrder: [Int] = []
        for i in order {
            let n = graph.nodes[i]
            guard n.inputs.allSatisfy({ $0.isEmpty || constants[$0] != nil }),
                let outs = try? Ops.run(n, n.inputs.map { $0.isEmpty ? nil : constants[$0] }, opset: graph.opsetVersion),
                outs.count >= n.outputs.filter({ !$0.isEmpty }).count
            else {
                remainingOrder.append(i)
                continue
            }
            for (k, name) in n.outputs.enumerated() where k < outs.count && !name.isEmpty { constants[name] = outs[k] }
        }
        Self.fuseHardSwish(&graph, order: &remainingOrder, constants: constants)
        Self.fuseConvolutions(&graph, order: &remainingOrder, constants: &constants)
        self.graph = graph
        // The plan: value names to slots and constant indices, and liveness — after its
        // last reader runs, a value's storage is recycled (graph outputs are kept).
        var slotOf: [String: Int] = [:], constantIndex: [String: Int] = [:], constantList: [Tensor] = []
        func ref(_ name: String) -> Int {
            if name.isEmpty { return Step.absent }
            if let k = constantIndex[name] { return -1 - k }
            if let t = constants[name] {
                constantIndex[name] = constantList.count
                constantList.append(t)
                return -constantList.count
            }
            if let k = slotOf[name] { return k }
            slotOf[name] = slotOf.count
            return slotOf.count - 1
        }
        let inputSlots = inputs.map { ref($0.name) }
        let planned = remainingOrder.map { i in (node: i, inputs: graph.nodes[i].inputs.map(ref), outputs: graph.nodes[i].outputs.map(ref)) }
        let outputRefs = graph.outputs.map { ref($0.name) }
        let keep = Set(outputRefs)
        var seen = Set<Int>()
        var frees = [[Int]](repeating: [], count: planned.count)
        for (step, p) in planned.enumerated().reversed() {
            for r in p.inputs where r >= 0 && !keep.contains(r) && !seen.contains(r) {
                seen.insert(r)
                if !p.outputs.contains(r) { frees[step].append(r) }
            }
        }
        steps = planned.indices.map {
            let node = planned[$0].node
            return Step(node: node, op: graph.nodes[node], inputs: planned[$0].inputs, outputs: planned[$0].outputs, frees: frees[$0])
        }
        self.constantList = constantList
        self.slotCount = slotOf.count
        self.inputSlots = inputSlots
        self.outputRefs = outputRefs
    }

    /// Folds what follows a Conv into it, at load: a BatchNormalization with constant
    /// statistics goes into the weights and bias; then a Relu, Clip, LeakyRelu or per-channel
    /// PRelu becomes the Conv's epilogue (applied as its output tiles are stored), and Mul /
    /// Add by constants after that activation a scale and shift in the same epilogue. Each only
    /// when the Conv's output has no other reader and is not a graph output, and the weights
    /// are constant and 2-D (rank 4).
    static func fuseConvolutions(_ graph: inout ONNXModel, order: inout [Int], constants: inout [String: Tensor]) {
        var readers: [String: [Int]] = [:]
        for i in order { for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: []].append(i) } }
        let graphOutputs = Set(graph.outputs.map(\.name))
        var removed = Set<Int>()
        for i in order where graph.nodes[i].opType == "Conv" && graph.nodes[i].domain.isEmpty {
            var conv = graph.nodes[i]
            guard conv.inputs.count >= 2, let w = constants[conv.inputs[1]], w.isFloat, w.shape.count == 4, w.count > 0 else { continue }
            let cout = w.shape[0]
            guard let b0 = conv.inputs.count > 2 && !conv.inputs[2].isEmpty ? constants[conv.inputs[2]] : Tensor(shape: [cout], floats: [Float](repeating: 0, count: cout)),
                b0.isFloat, b0.count == cout
            else { continue }
            var bias = b0
            func soleReader(_ name: String) -> Int? {
                guard !graphOutputs.contains(name), let r = readers[name], r.count == 1, !removed.contains(r[0]) else { return nil }
                return r[0]
            }
            var weights = w, changed = false
            /// Folds node `j` into the weights (each output channel's filter times
            /// `scale(c)`, when given) and the bias (`newBias(c, bias, scale)`), and makes
            /// the Conv write `j`'s output.
            func fold(into j: Int, scale: ((Int) -> Float)?, _ newBias: (Int, Float, Float) -> Float) {
                let per = weights.count / cout
                var wf = weights.floats, bf = bias.floats
                for c in 0..<cout {
                    let k = scale?(c) ?? 1
                    if scale != nil { for q in 0..<per { wf[c * per + q] *= k } }
                    bf[c] = newBias(c, bf[c], k)
                }
                weights = Tensor(shape: weights.shape, floats: wf)
                bias = Tensor(shape: [cout], floats: bf)
                conv.outputs = [graph.nodes[j].outputs[0]]
                removed.insert(j)
                changed = true
            }
            // BatchNormalization (inference form) into the weights.
            if let j = soleReader(conv.outputs[0]), graph.nodes[j].opType == "BatchNormalization", graph.nodes[j].inputs.count == 5,
                graph.nodes[j].inputs[0] == conv.outputs[0], graph.nodes[j].int("training_mode", 0) == 0,
                graph.nodes[j].outputs.dropFirst().allSatisfy(\.isEmpty),
                let scale = constants[graph.nodes[j].inputs[1]], let beta = constants[graph.nodes[j].inputs[2]],
                let mean = constants[graph.nodes[j].inputs[3]], let variance = constants[graph.nodes[j].inputs[4]],
                [scale, beta, mean, variance].allSatisfy({ $0.isFloat && $0.count == cout })
            {
                let eps = graph.nodes[j].float("epsilon", 1e-5)
                fold(into: j, scale: { c in scale.floats[c] / (variance.floats[c] + eps).squareRoot() }) { c, b, k in (b - mean.floats[c]) * k + beta.floats[c] }
            }
            // Then Mul / Add by a constant per channel or scalar (PP-OCR scales and shifts
            // every Conv's output by learnt scalars) into the weights and bias.
            while let j = soleReader(conv.outputs[0]), graph.nodes[j].domain.isEmpty, ["Mul", "Add"].contains(graph.nodes[j].opType),
                graph.nodes[j].inputs.count == 2, let side = graph.nodes[j].inputs.firstIndex(of: conv.outputs[0]),
                let k = constants[graph.nodes[j].inputs[1 - side]], let perChannel = Self.perChannel(k, channels: cout)
            {
                if graph.nodes[j].opType == "Mul" {
                    fold(into: j, scale: { perChannel[$0] }) { _, b, k in b * k }
                } else {
                    fold(into: j, scale: nil) { c, b, _ in b + perChannel[c] }
                }
            }
            // One activation into the epilogue.
            if let j = soleReader(conv.outputs[0]), graph.nodes[j].domain.isEmpty, graph.nodes[j].inputs.first == conv.outputs[0] {
                let a = graph.nodes[j]
                var clamp: (Float, Float)? = nil, slopes: [Float]? = nil
                switch a.opType {
                case "Relu": clamp = (0, .infinity)
                case "Clip":
                    var lo = -Float.infinity, hi = Float.infinity
                    if graph.opsetVersion < 11 { lo = a.float("min", lo); hi = a.float("max", hi) }
                    var constantBounds = true
                    for (k, isLow) in [(1, true), (2, false)] where a.inputs.count > k && !a.inputs[k].isEmpty {
                        guard let t = constants[a.inputs[k]], t.isFloat, t.count == 1 else { constantBounds = false; continue }
                        if isLow { lo = t.floats[0] } else { hi = t.floats[0] }
                    }
                    if constantBounds { clamp = (lo, hi) }
                case "LeakyRelu": slopes = [Float](repeating: a.float("alpha", 0.01), count: cout)
                case "HardSwish": conv.attributes[Conv.fusedHardSwish] = .int(1)
                case "PRelu":
                    // Per channel only: right-aligned against N×C×H×W, every dimension but C is 1.
                    if a.inputs.count == 2, let t = constants[a.inputs[1]] { slopes = Self.perChannel(t, channels: cout) }
                default: break
                }
                if clamp != nil || slopes != nil || a.opType == "HardSwish" {
                    if let (lo, hi) = clamp { conv.attributes[Conv.fusedClamp] = .floats([lo, hi]) }
                    conv.outputs = [a.outputs[0]]
                    if let slopes {
                        let name = "frameflow.fused.\(i).slope"
                        constants[name] = Tensor(shape: [cout], floats: slopes)
                        while conv.inputs.count < 3 { conv.inputs.append("") }
                        conv.inputs.append(name)
                    }
                    removed.insert(j)
                    changed = true
                    // Then Mul / Add by constants after the activation (PP-OCR's learnt
                    // scale and shift after each HardSwish) as a scale and shift per channel
                    // applied in the same pass.
                    var scale = [Float](repeating: 1, count: cout), shift = [Float](repeating: 0, count: cout), affine = false
                    while let k = soleReader(conv.outputs[0]), graph.nodes[k].domain.isEmpty, ["Mul", "Add"].contains(graph.nodes[k].opType),
                        graph.nodes[k].inputs.count == 2, let side = graph.nodes[k].inputs.firstIndex(of: conv.outputs[0]),
                        let t = constants[graph.nodes[k].inputs[1 - side]], let perChannel = Self.perChannel(t, channels: cout)
                    {
                        for c in 0..<cout {
                            if graph.nodes[k].opType == "Mul" {
                                scale[c] *= perChannel[c]
                                shift[c] *= perChannel[c]
                            } else {
                                shift[c] += perChannel[c]
                            }
                        }
                        conv.outputs = [graph.nodes[k].outputs[0]]
                        removed.insert(k)
                        affine = true
                    }
                    if affine { conv.attributes[Conv.fusedAffine] = .floats(scale + shift) }
                }
            }
            if changed {
                let wName = "frameflow.fused.\(i).weights", bName = "frameflow.fused.\(i).bias"
                constants[wName] = weights
                constants[bName] = bias
                while conv.inputs.count < 3 { conv.inputs.append("") }
                conv.inputs[1] = wName
                conv.inputs[2] = bName
            }
            // A full (group 1) convolution also gets its filter in the layout the NHWC path
            // multiplies by (`PackedFilter`: K in (ky, kx, c) order × output channels), as
            // inputs 4 and 5: Conv.run then works channels-last where that is faster (see
            // `Conv.run` and `Conv.channelsLast`).
            if conv.int("group", 1) == 1, cout % 8 == 0,
                weights.shape[1] * weights.shape[2] * weights.shape[3] >= 256 && cout <= 64 || weights.shape[2] == 1 && weights.shape[3] == 1
            {
                let (cin, kh, kw) = (weights.shape[1], weights.shape[2], weights.shape[3])
                var reordered = [Float](repeating: 0, count: weights.count)
                for o in 0..<cout { for c in 0..<cin { for ky in 0..<kh { for kx in 0..<kw {
                    reordered[((o * kh + ky) * kw + kx) * cin + c] = weights.floats[((o * cin + c) * kh + ky) * kw + kx]
                } } } }
                let filter = PackedFilter(outputsByInputs: reordered, outputs: cout, bias: bias.floats)
                let wName = "frameflow.nhwc.\(i).weights", bName = "frameflow.nhwc.\(i).bias"
                constants[wName] = Tensor(shape: [filter.weights.count], floats: filter.weights)
                constants[bName] = Tensor(shape: [filter.bias.count], floats: filter.bias)
                while conv.inputs.count < 4 { conv.inputs.append("") }
                conv.inputs.insert(contentsOf: [wName, bName], at: 4)
            }
            graph.nodes[i] = conv
        }
        order.removeAll { removed.contains($0) }
    }

    /// `t`'s values per output channel when it broadcasts against N×C×H×W along C only
    /// (or is a scalar); nil otherwise.
    static func perChannel(_ t: Tensor, channels: Int) -> [Float]? {
        guard t.isFloat, t.shape.count <= 4 else { return nil }
        if t.count == 1 { return [Float](repeating: t.floats[0], count: channels) }
        let dims = [Int](repeating: 1, count: 4 - t.shape.count) + t.shape
        return dims == [1, channels, 1, 1] ? t.floats : nil
    }

    /// Rewrites `Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)` — HardSwish spelt out, as PP-OCR's
    /// exporter writes it 24 times — into one HardSwish node: one pass instead of four (and
    /// a HardSwish right after a Conv then goes into its epilogue).
    static func fuseHardSwish(_ graph: inout ONNXModel, order: inout [Int], constants: [String: Tensor]) {
        var readers: [String: Int] = [:], producer: [String: Int] = [:]
        for i in order {
            for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: 0] += 1 }
            for name in graph.nodes[i].outputs { producer[name] = i }
        }
        let graphOutputs = Set(graph.outputs.map(\.name))
        func scalar(_ name: String) -> Float? { constants[name].flatMap { $0.isFloat && $0.count == 1 ? $0.floats[0] : nil } }
        /// The node making `name` when it is an `op` whose output only one node reads.
        func sole(_ name: String, _ op: String) -> ONNXNode? {
            guard let p = producer[name], readers[name] == 1, !graphOutputs.contains(name), graph.nodes[p].opType == op,
                graph.nodes[p].domain.isEmpty, graph.nodes[p].outputs.count == 1
            else { return nil }
            return graph.nodes[p]
        }
        var removed = Set<Int>()
        for d in order where graph.nodes[d].opType == "Div" && graph.nodes[d].domain.isEmpty {
            let div = graph.nodes[d]
            guard div.inputs.count == 2, scalar(div.inputs[1]) == 6, let mul = sole(div.inputs[0], "Mul"), mul.inputs.count == 2 else { continue }
            for side in 0..<2 {
                guard let clip = sole(mul.inputs[1 - side], "Clip"), clip.inputs.count == 3, scalar(clip.inputs[1]) == 0, scalar(clip.inputs[2]) == 6,
                    let add = sole(clip.inputs[0], "Add"), add.inputs.count == 2
                else { continue }
                let x = mul.inputs[side]
                guard (add.inputs[0] == x && scalar(add.inputs[1]) == 3) || (add.inputs[1] == x && scalar(add.inputs[0]) == 3),
                    graph.opsetVersion >= 11, let m = producer[div.inputs[0]], let c = producer[mul.inputs[1 - side]], let a = producer[clip.inputs[0]]
                else { continue }
                graph.nodes[d] = ONNXNode(name: div.name, opType: "HardSwish", domain: "", inputs: [x], outputs: div.outputs, attributes: [:])
                removed.formUnion([m, c, a])
                break
            }
        }
        order.removeAll { removed.contains($0) }
    }

    /// Op types the model uses.
    public var opTypes: Set<String> {
        if let t = tflite { return t.declaredOps }
        return declaredOpTypes
    }

    /// Runs the model on `feeds` (by input name); returns every graph output by name.
    ///
    /// Safe to call from several threads at once. Intermediate tensors' storage is reused
    /// between runs, so a model run over and over stops allocating after its first runs.
    ///
    /// With `parallelism`, large convolutions and matrix products are split across its
    /// threads (a graph passes its workers; outside graphs, `Parallelism(pool)` with a pool
    /// of one worker fewer than the threads wanted, the calling thread being the last).
    public func run(_ feeds: [String: Tensor], parallelism: Parallelism? = nil) throws -> [String: Tensor] {
        try run(feeds, parallelism: parallelism, timing: nil)
    }

    /// One run with a storage pool of this model's (made current for the run's ops).
    private func run(_ feeds: [String: Tensor], parallelism: Parallelism?, timing: Timing?) throws -> [String: Tensor] {
        let pool = pools.withLock { $0.popLast() } ?? FloatPool()
        defer { pools.withLock { $0.append(pool) } }
        return try Scratch.$parallelism.withValue(parallelism) {
            try Scratch.$pool.withValue(pool) { try runPlan(feeds, timing: timing) }
        }
    }

    /// Called after each op of a profiled run: op type, which op (its node name, or index and
    /// output shape), nanoseconds.
    typealias Timing = (_ op: String, _ which: () -> String, _ nanoseconds: UInt64) -> Void

    /// Time spent in each op type over `iterations` runs on `feeds` (after one warm-up run),
    /// slowest first: where a model spends its time. With `eachOp`, one row per op instead
    /// of per type ("CONV_2D #0 [1, 64, 64, 24]"); with `parallelism`, the ops as split across it.
    public func profile(
        _ feeds: [String: Tensor], iterations: Int = 10, eachOp: Bool = false, parallelism: Parallelism? = nil
    ) throws -> [(op: String, calls: Int, milliseconds: Double)] {
        _ = try run(feeds)
        var table: [String: (calls: Int, ns: UInt64)] = [:]
        for _ in 0..<max(1, iterations) {
            _ = try run(feeds, parallelism: parallelism) { op, which, ns in
                let key = eachOp ? "\(op) \(which())" : op
                table[key, default: (0, 0)].calls += 1
                table[key, default: (0, 0)].ns += ns
            }
        }
        return table.map { (op: $0.key, calls: $0.value.calls / max(1, iterations), milliseconds: Double($0.value.ns) / 1e6 / Double(max(1, iterations))) }
            .sorted { $0.milliseconds > $1.milliseconds }
    }

    /// A fed tensor must hold as many values as its shape says: kernels read through
    /// pointers sized by the shape.
    private static func checkValueCount(_ t: Tensor, _ name: String) throws {
        let held = t.isFloat ? t.floats.count : t.ints.count
        guard held == t.count else { throw ModelError("input '\(name)' has shape \(t.shape) (\(t.count) values) but holds \(held)") }
    }

    private func runPlan(_ feeds: [String: Tensor], timing: Timing?) throws -> [String: Tensor] {
        if let t = tflite {
            var f: [Int: Tensor] = [:]
            for i in t.inputs {
                let name = t.tensors[i].name
                guard let v = feeds[name] else { throw ModelError("missing input '\(name)' (inputs: \(inputs.map(\.name).joined(separator: ", ")))") }
                guard v.shape == t.tensors[i].shape else { throw ModelError("input '\(name)' has shape \(v.shape), the model expects \(t.tensors[i].shape)") }
                try Self.checkValueCount(v, name)
                f[i] = v
            }
            let r = try t.run(f, timing: timing)
            var out: [String: Tensor] = [:]
            for (k, v) in r { out[t.tensors[k].name] = v }
            return out
        }
        var values = [Tensor?](repeating: nil, count: slotCount)
        @inline(__always) func value(_ r: Int) -> Tensor? { r >= 0 ? values[r] : r == Step.absent ? nil : constantList[-1 - r] }
        for (input, slot) in zip(inputs, inputSlots) {
            guard let t = feeds[input.name] else {
                throw ModelError("missing input '\(input.name)' (inputs: \(inputs.map(\.name).joined(separator: ", ")))")
            }
            if let shape = input.shape, shape.count != t.shape.count || zip(shape, t.shape).contains(where: { $0 != nil && $0! != $1 }) {
                throw ModelError("input '\(input.name)' has shape \(t.shape), the model expects \(shape.map { $0.map(String.init) ?? "?" })")
            }
            try Self.checkValueCount(t, input.name)
            if slot >= 0 { values[slot] = t }
        }
        for (index, step) in steps.enumerated() {
            let n = step.op
            let ins = step.inputs.map(value)
            let outs: [Tensor]
            do {
                let start = timing == nil ? 0 : monotonicNanoseconds()
                outs = try Ops.run(n, ins, opset: graph.opsetVersion, memo: step.memo)
                if let timing {
                    let ns = monotonicNanoseconds() - start
                    timing(n.opType, { "\(n.name.isEmpty ? "#\(index)" : n.name) \(outs.first?.shape ?? [])" }, ns)
                }
            } catch let e as ModelError {
                throw ModelError("node '\(n.name)' (\(n.opType)): \(e.message)")
            }
            for (k, slot) in step.outputs.enumerated() where k < outs.count && slot >= 0 { values[slot] = outs[k] }
            for slot in step.frees {
                if var t = values[slot] {
                    values[slot] = nil
                    Scratch.recycle(&t.floats)
                }
            }
        }
        var result: [String: Tensor] = [:]
        for (o, r) in zip(outputs, outputRefs) {
            guard let t = value(r) else { throw ModelError("output '\(o.name)' was not computed") }
            result[o.name] = t
        }
        return result
    }
}
