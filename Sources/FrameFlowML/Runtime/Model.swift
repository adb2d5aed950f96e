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
/// The node order is planned once at load (topological), each node with its kernel from
/// `Ops.table`; an op FrameFlow does not implement is an error at load that names it, its node
/// and the opset.
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
    /// arrays instead of hashing value names, and calls the kernel it found at load. A class,
    /// so that a run takes each step with one retain (a struct of arrays is one per array).
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
        /// The op's kernel, looked up in `Ops.table` once, here, not on every run.
        let kernel: OpKernel

        init(node: Int, op: ONNXNode, inputs: [Int], outputs: [Int], frees: [Int]) {
            (self.node, self.op, self.inputs, self.outputs, self.frees) = (node, op, inputs, outputs, frees)
            memo = op.opType == "Conv" ? Conv.SetupMemo() : nil
            kernel = Ops.kernel(op.opType)
        }
    }
    /// The graph's inputs (initializers excluded) and outputs.
    public let inputs: [ValueInfo]
    public let outputs: [ValueInfo]
    /// The element limit the model was loaded under (`Checked.maxElements` then), which
    /// each run checks computed shapes against.
    let maxTensorElements = Checked.maxElements
    /// Float storage kept between runs, one pool per concurrent run (see `Scratch`).
    private let pools = Locked<[FloatPool]>([])

    /// Loads an ONNX or TFLite model, by extension (.onnx, .tflite), else by content; ONNX
    /// external data files are looked up beside it. Tensors are held to
    /// `limits.maxTensorElements`, when loading and in every run.
    public static func load(contentsOf url: URL, limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(contentsOf: url) }
    }

    /// Loads a TFLite flatbuffer held to `limits.maxTensorElements`.
    public static func load(tflite bytes: [UInt8], file: String = "<model>", limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(tflite: bytes, file: file) }
    }

    /// Loads an ONNX model held to `limits.maxTensorElements`.
    public static func load(onnx data: Data, file: String = "<model>", directory: String? = nil, limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(onnx: data, file: file, directory: directory) }
    }

    /// `body`'s model, loaded (and so run) under `limits`.
    private static func load(_ limits: ResourceLimits, _ body: () throws -> Model) throws -> Model {
        try Checked.$maxElements.withValue(limits.maxTensorElements) { try body() }
    }

    /// Loads an ONNX or TFLite model, by extension (.onnx, .tflite), else by content; ONNX
    /// external data files are looked up beside it. Tensors are held to the default
    /// `ResourceLimits` (`load(contentsOf:limits:)` takes others).
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

    /// The flatbuffer the model was built from, kept when `ModelCache` built it (to tell
    /// equal bytes from a hash collision); the array shares the caller's storage.
    let sourceBytes: [UInt8]?

    /// Loads a TFLite flatbuffer.
    public convenience init(tflite bytes: [UInt8], file: String = "<model>") throws {
        try self.init(tflite: bytes, file: file, keepingBytes: false)
    }

    /// Loads a TFLite flatbuffer, keeping `bytes` in `sourceBytes` when asked.
    init(tflite bytes: [UInt8], file: String, keepingBytes: Bool) throws {
        let g = try TFLiteGraph(bytes: bytes, file: file)
        sourceBytes = keepingBytes ? bytes : nil
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
            graph.nodes[i].attributes[Ops.capturesKey] = .strings(captures)
        }
        declaredOpTypes = Set(graph.nodes.map(\.opType))
        tflite = nil
        sourceBytes = nil
        inputs = graph.inputs.filter { graph.initializers[$0.name] == nil }
        outputs = graph.outputs
        for n in graph.nodes where !Ops.supports(n.opType, domain: n.domain) {
            throw ModelError(
                "\(file): node '\(n.name.isEmpty ? n.outputs.first ?? "?" : n.name)' uses op '\(n.opType)'\(n.domain.isEmpty ? "" : " (domain \(n.domain))") at opset \(graph.opsetVersion), which FrameFlow does not implement"
            )
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
        return try Checked.$maxElements.withValue(maxTensorElements) {
            try Scratch.$parallelism.withValue(parallelism) {
                try Scratch.$pool.withValue(pool) { try runPlan(feeds, timing: timing) }
            }
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
        return table.map {
            (op: $0.key, calls: $0.value.calls / max(1, iterations), milliseconds: Double($0.value.ns) / 1e6 / Double(max(1, iterations)))
        }
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
                guard v.shape == t.tensors[i].shape else {
                    throw ModelError("input '\(name)' has shape \(v.shape), the model expects \(t.tensors[i].shape)")
                }
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
                outs = try step.kernel(n, ins, OpContext(opset: graph.opsetVersion, memo: step.memo))
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
