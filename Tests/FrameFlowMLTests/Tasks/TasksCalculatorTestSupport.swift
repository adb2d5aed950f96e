import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Helpers for the Tasks calculators' unit tests.
enum TasksCalculatorTesting {
    /// The first option error building a graph of one node (its fields; its input streams
    /// become the graph's inputs), as `frameflow validate` builds it; nil when it builds.
    static func nodeError(_ node: String, inputs: [String]) -> GraphError? {
        let graph = inputs.map { "input_stream: \"\($0)\"\n" }.joined() + "node {\n\(node)\n}\n"
        return GraphBuildErrors.firstOptionError(graph, registry: MLFixtures.registry)
    }

    /// Records an issue unless `error` is an `.invalidOption` naming `field`.
    static func expectInvalidOption(
        _ error: GraphError?, naming field: String, _ context: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(
            error?.kind == .invalidOption && error?.message.contains(field) == true, "\(context): \(String(describing: error))",
            sourceLocation: sourceLocation)
    }

    /// The description of the error `body` throws; records an issue when it throws none.
    static func thrown(_ body: () throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String? {
        do { try body() } catch { return "\(error)" }
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    }
}
