import FrameFlow
import FrameFlowCalculators
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
