import FrameFlow
import FrameFlowArguments

/// `frameflow subgraphs [PATTERN]`: the built-in subgraphs with their interface — the input
/// and output streams and side packets a node using one connects, as `TAG:name` — like
/// `gst-inspect` shows an element's pads.
public struct SubgraphsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "subgraphs", abstract: "list the built-in subgraphs and their streams and side packets")
    }

    /// Only the subgraphs whose names contain it (any case).
    @Argument(valueName: "PATTERN", help: "only the subgraphs whose names contain PATTERN (any case)") public var pattern: String?
    /// `--names`.
    @Flag(help: "the names only, one a line") public var names = false

    public init() {}

    @MainActor public func run() throws {
        let registry = try CalculatorRegistry.commandLine()
        let wanted = registry.subgraphNames.filter { pattern == nil || $0.lowercased().contains(pattern!.lowercased()) }
        guard !wanted.isEmpty else {
            let hint = pattern.flatMap { nearestName(to: $0, in: registry.subgraphNames) }.map { " (did you mean \($0)?)" } ?? ""
            throw ExitRequest.failure("frameflow subgraphs: no subgraph matches '\(pattern ?? "")'\(hint)")
        }
        for name in wanted {
            if names {
                print(name)
            } else if let config = registry.subgraph(named: name) {
                print(Self.describe(config, name: name))
            }
        }
    }

    /// "NAME\n  input streams: …\n  output streams: …\n  input side packets: …\n  nodes: N".
    static func describe(_ config: GraphConfig, name: String) -> String {
        func list(_ refs: [StreamRef]) -> String { refs.isEmpty ? "—" : refs.map(\.description).joined(separator: ", ") }
        var lines = [name]
        lines.append("  input streams: " + list(config.inputStreams))
        lines.append("  output streams: " + list(config.outputStreams))
        if !config.inputSidePackets.isEmpty { lines.append("  input side packets: " + list(config.inputSidePackets)) }
        if !config.outputSidePackets.isEmpty { lines.append("  output side packets: " + list(config.outputSidePackets)) }
        lines.append("  nodes: \(config.nodes.count)")
        return lines.joined(separator: "\n")
    }
}
