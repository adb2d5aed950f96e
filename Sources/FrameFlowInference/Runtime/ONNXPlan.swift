import Foundation
import FrameFlow

/// The ONNX front-end: a decoded graph planned for running. Nodes in topological order after
/// constant folding and fusion (`ONNXPlan+Fusion`), each with its kernel from `Ops.table`,
/// values in numbered slots freed after their last reader. Immutable after init.
final class ONNXPlan: @unchecked Sendable {
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
    let inputs: [ValueInfo]
    let outputs: [ValueInfo]

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
        let inputs = graph.inputs.filter { graph.initializers[$0.name] == nil }
        self.inputs = inputs
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
        // QDQ models first: their convolutions run on integers (ONNXPlan+QuantizedFusion).
        try Self.fuseQuantizedConvolutions(&graph, order: &remainingOrder, constants: &constants, file: file)
        try Self.fuseQuantizeDequantize(&graph, order: &remainingOrder, constants: constants, file: file)
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

    /// Runs the plan on `feeds` (by input name); every graph output by name.
    func run(_ feeds: [String: Tensor], timing: Model.Timing?) throws -> [String: Tensor] {
        var values = [Tensor?](repeating: nil, count: slotCount)
        @inline(__always) func value(_ r: Int) -> Tensor? { r >= 0 ? values[r] : r == Step.absent ? nil : constantList[-1 - r] }
        for (input, slot) in zip(inputs, inputSlots) {
            guard let t = feeds[input.name] else {
                throw ModelError("missing input '\(input.name)' (inputs: \(inputs.map(\.name).joined(separator: ", ")))")
            }
            if let shape = input.shape, shape.count != t.shape.count || zip(shape, t.shape).contains(where: { $0 != nil && $0! != $1 }) {
                throw ModelError("input '\(input.name)' has shape \(t.shape), the model expects \(shape.map { $0.map(String.init) ?? "?" })")
            }
            try Model.checkValueCount(t, input.name)
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
