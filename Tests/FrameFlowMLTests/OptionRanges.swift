import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// Builds a one-node graph of `calculator` with `options` (the text inside
/// `[TypeName.ext] { … }`) and returns the error building it throws, or nil.
func optionError(_ calculator: String, _ typeName: String, _ options: String, ports: String = "") -> GraphError? {
    // The node's input streams are the graph's.
    let inputs = ports.split(separator: "\n").filter { $0.contains("input_stream:") }.compactMap { line in
        line.split(separator: "\"").dropFirst().first.map { "input_stream: \"\($0.split(separator: ":").last!)\"" }
    }
    let text = """
        \(inputs.joined(separator: "\n"))
        node {
          calculator: "\(calculator)"
          \(ports)
          options { [\(typeName).ext] { \(options) } }
        }
        """
    return GraphBuildErrors.of(text, file: "options.pbtxt", registry: MLFixtures.registry).first
}

/// Expects the options to be refused as `.invalidOption` naming `field`.
func expectRefused(
    _ calculator: String, _ typeName: String, _ options: String, field: String, ports: String = "",
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let e = optionError(calculator, typeName, options, ports: ports)
    #expect(e?.kind == .invalidOption, "\(options): \(e.map { "\($0)" } ?? "accepted")", sourceLocation: sourceLocation)
    #expect(e?.message.contains(field) == true, "\(options): \(e.map { "\($0)" } ?? "accepted")", sourceLocation: sourceLocation)
}
