import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// The options of node "node" in the one-node binary graph `ProtobufWire.graph` writes for
/// `calculator` with `ports`, options extension `ext` built by `build`; nil when they are not `O`.
func binaryGraphOptions<O>(
    _ calculator: String, ports: (inputs: [String], outputs: [String]), ext: Int, as: O.Type,
    _ build: (inout ProtobufWire) -> Void
) throws -> O? {
    let bytes = ProtobufWire.graph(calculator: calculator, inputs: ports.inputs, outputs: ports.outputs, ext: ext, build)
    let graph = try Graph(GraphConfig(binary: bytes, file: "g.binarypb", registry: .standard), registry: .standard)
    return graph.options(ofNode: "node") as? O
}

/// A gray image of the given size.
func grayImage(width: Int, height: Int) throws -> ImageFrame {
    try ImagePool().makeImage(width: width, height: height, format: .gray8).freeze()
}

/// The payloads of `packets` as `T`, with their timestamps.
func values<T>(_ packets: [Packet], as type: T.Type) throws -> [(Int64, T)] {
    try packets.map { ($0.timestamp.microseconds, try $0.get(T.self)) }
}

/// The description of the error `body` throws (a `GraphError`, or the `GraphErrors` a graph's
/// validation lists); records an issue and returns nil when it throws none.
func thrownDescription(_ body: () throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String? {
    do {
        try body()
    } catch {
        return "\(error)"
    }
    Issue.record("expected an error", sourceLocation: sourceLocation)
    return nil
}

/// The option error building a graph of the one node `node` (its fields, without `node { }`)
/// throws, as `frameflow validate` builds it (no calculator is made); nil when it builds. The
/// node's input streams become the graph's inputs.
func nodeOptionError(_ node: String) -> GraphError? {
    let names = node.split(separator: "\n").flatMap { line in
        line.split(separator: " ").compactMap { word -> String? in
            guard word.hasPrefix("\""), word.hasSuffix("\""), line.contains("input_stream: \(word)") else { return nil }
            return String(word.dropFirst().dropLast().split(separator: ":").last ?? "")
        }
    }
    let graph = names.map { "input_stream: \"\($0)\"\n" }.joined() + "node {\n\(node)\n}\n"
    return GraphBuildErrors.firstOptionError(graph, registry: .standard)
}

/// Records an issue unless `error` is an `.invalidOption` naming `field`.
func expectInvalidOption(
    _ error: GraphError?, naming field: String, _ context: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    #expect(
        error?.kind == .invalidOption && error?.message.contains(field) == true, "\(context): \(String(describing: error))",
        sourceLocation: sourceLocation)
}
