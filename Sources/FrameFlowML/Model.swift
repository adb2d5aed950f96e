import Foundation

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
    let order: [Int]
    /// The graph's inputs (initializers excluded) and outputs.
    public let inputs: [ValueInfo]
    public let outputs: [ValueInfo]

    /// Loads an ONNX model; external data files are looked up beside it.
    public convenience init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ModelError("\(url.path): cannot read the model file")
        }
        try self.init(onnx: data, file: url.path, directory: url.deletingLastPathComponent().path)
    }

    public init(onnx data: Data, file: String = "<model>", directory: String? = nil) throws {
        let graph = try ONNXModel(data: data, file: file, directory: directory)
        self.graph = graph
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
        self.order = order
    }

    /// Op types the model uses.
    public var opTypes: Set<String> { Set(graph.nodes.map(\.opType)) }

    /// Runs the model on `feeds` (by input name); returns every graph output by name.
    public func run(_ feeds: [String: Tensor]) throws -> [String: Tensor] {
        var values = graph.initializers
        for input in inputs {
            guard let t = feeds[input.name] else {
                throw ModelError("missing input '\(input.name)' (inputs: \(inputs.map(\.name).joined(separator: ", ")))")
            }
            if let shape = input.shape, shape.count != t.shape.count || zip(shape, t.shape).contains(where: { $0 != nil && $0! != $1 }) {
                throw ModelError("input '\(input.name)' has shape \(t.shape), the model expects \(shape.map { $0.map(String.init) ?? "?" })")
            }
            values[input.name] = t
        }
        for i in order {
            let n = graph.nodes[i]
            let ins = n.inputs.map { $0.isEmpty ? nil : values[$0] }
            let outs: [Tensor]
            do {
                outs = try Ops.run(n, ins, opset: graph.opsetVersion)
            } catch let e as ModelError {
                throw ModelError("node '\(n.name)' (\(n.opType)): \(e.message)")
            }
            for (k, name) in n.outputs.enumerated() where k < outs.count && !name.isEmpty { values[name] = outs[k] }
        }
        var result: [String: Tensor] = [:]
        for o in outputs {
            guard let t = values[o.name] else { throw ModelError("output '\(o.name)' was not computed") }
            result[o.name] = t
        }
        return result
    }
}
