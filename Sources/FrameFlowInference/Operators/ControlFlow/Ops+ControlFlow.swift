import Foundation

/// A subgraph attribute (If's branches, Loop's body): the graph as decoded, and the `Model`
/// built from it when the enclosing model loads. Its inputs are the graph's own, then the
/// outer-scope names the enclosing node captures (`Ops.capturesKey`).
///
/// `@unchecked Sendable`: `model` is set once, while the enclosing model loads, before any
/// run can read it.
final class Subgraph: @unchecked Sendable {
    let graph: ONNXModel
    var model: Model?

    init(_ graph: ONNXModel) { self.graph = graph }

    /// The names this graph (and the graphs nested in it) reads but neither declares nor
    /// produces: values of an enclosing scope, in first-use order.
    var freeNames: [String] {
        var defined = Set(graph.initializers.keys).union(graph.inputs.map(\.name)).union([""])
        for n in graph.nodes { defined.formUnion(n.outputs) }
        var free: [String] = []
        for n in graph.nodes {
            for name in n.inputs + n.subgraphs.flatMap(\.freeNames) where !defined.contains(name) && !free.contains(name) { free.append(name) }
        }
        return free
    }

    /// Builds the model: the graph's inputs (shapes unchecked: a loop's carried values may
    /// change shape) followed by `captures`.
    func build(opset: Int64, captures: [String], file: String) throws {
        var g = graph
        g.opsetVersion = opset
        g.inputs =
            g.inputs.map { ValueInfo(name: $0.name, type: $0.type, shape: nil) }
            + captures.map { ValueInfo(name: $0, type: nil, shape: nil) }
        model = try Model(graph: g, file: file)
    }

    /// Runs the model on `feeds`; its outputs in the graph's order.
    func run(_ feeds: [String: Tensor]) throws -> [Tensor] {
        guard let model else { throw ModelError("subgraph was not built") }
        let out = try model.run(feeds)
        return try graph.outputs.map { o in
            guard let t = out[o.name] else { throw ModelError("subgraph output '\(o.name)' was not computed") }
            return t
        }
    }
}

/// If and Loop: ONNX's control flow, over subgraphs that read outer values by name.
extension Ops {
    /// Control-flow ops by op type.
    static let controlFlowKernels = kernels(["If", "Loop"]) { n, ins, _ in try runControlFlow(n, ins) }
    /// The attribute `Model` sets on a node with subgraphs: the outer-scope names they read,
    /// appended to the node's inputs in this order.
    static let capturesKey = "frameflow.captures"

    static func runControlFlow(_ n: ONNXNode, _ ins: [Tensor?]) throws -> [Tensor] {
        var captured: [String] = []
        if case .strings(let c)? = n.attributes[capturesKey] { captured = c }
        let own = ins.count - captured.count
        guard own >= 0 else { throw ModelError("\(n.opType): \(ins.count) inputs for \(captured.count) captured values") }
        var outer: [String: Tensor] = [:]
        for (k, name) in captured.enumerated() {
            guard let t = ins[own + k] else { throw ModelError("\(n.opType): captured value '\(name)' is missing") }
            outer[name] = t
        }
        func subgraph(_ key: String) throws -> Subgraph {
            guard case .graph(let g)? = n.attributes[key] else { throw ModelError("\(n.opType) without its '\(key)' graph") }
            return g
        }
        if n.opType == "If" {
            guard let cond = try Ops.need(ins, 0).asFloats.first else { throw ModelError("If: empty condition") }
            return try subgraph(cond != 0 ? "then_branch" : "else_branch").run(outer)
        }
        // Loop: M (optional), cond (optional), carried values; the body takes the iteration
        // number, the condition and the carried values, and gives the condition, the carried
        // values and the per-iteration (scan) outputs, stacked along a new first axis.
        let body = try subgraph("body")
        let names = body.graph.inputs.map(\.name)
        let carriedCount = own - 2
        guard carriedCount >= 0, names.count == carriedCount + 2, body.graph.outputs.count >= carriedCount + 1 else {
            throw ModelError(
                "Loop body with \(names.count) inputs and \(body.graph.outputs.count) outputs for \(max(carriedCount, 0)) carried values")
        }
        let trips = ins[0]?.asInts.first, start = ins[1].map { ($0.asFloats.first ?? 0) != 0 }
        guard trips != nil || start != nil else { throw ModelError("Loop without a trip count or a condition would not end") }
        var carried = (0..<carriedCount).map { ins[2 + $0]! }
        var scans: [[Tensor]] = Array(repeating: [], count: body.graph.outputs.count - 1 - carriedCount)
        var keepGoing = start ?? true, i: Int64 = 0
        while keepGoing, i < (trips ?? .max) {
            guard i < 1 << 31 else { throw ModelError("Loop ran 2³¹ iterations") }
            var feeds = outer
            feeds[names[0]] = Tensor(shape: [], ints: [i])
            feeds[names[1]] = Tensor(shape: [], ints: [keepGoing ? 1 : 0], type: .bool)
            for k in 0..<carriedCount { feeds[names[2 + k]] = carried[k] }
            let out = try body.run(feeds)
            keepGoing = (out[0].asFloats.first ?? 0) != 0
            carried = Array(out[1...carriedCount])
            for k in scans.indices { scans[k].append(out[1 + carriedCount + k]) }
            i += 1
        }
        return try carried
            + scans.map { parts in
                guard let first = parts.first else { return Tensor(shape: [0], floats: []) }
                guard parts.allSatisfy({ $0.shape == first.shape }) else { throw ModelError("Loop scan output changes shape between iterations") }
                let shape = [parts.count] + first.shape
                return first.isFloat
                    ? Tensor(shape: shape, floats: parts.flatMap(\.floats), type: first.type)
                    : Tensor(shape: shape, ints: parts.flatMap(\.ints), type: first.type)
            }
    }
}
