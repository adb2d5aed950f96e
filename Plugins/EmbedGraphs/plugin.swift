import Foundation
import PackagePlugin

/// Embeds a target's `.pbtxt` files in its binary: `frameflow-embed-graphs` writes them into
/// a generated Swift file (`EmbeddedGraphs.files`), so a copied binary needs no resource
/// files beside it, while the graphs stay plain text files in the repository.
@main struct EmbedGraphs: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles(withSuffix: "pbtxt").map(\.url).sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedGraphs.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) graph files in \(target.name)",
                executable: try context.tool(named: "frameflow-embed-graphs").url,
                arguments: [output.path] + inputs.map(\.path), inputFiles: inputs, outputFiles: [output])
        ]
    }
}
