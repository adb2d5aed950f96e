import FrameFlow
import FrameFlowArguments
import FrameFlowTestSupport
import Foundation
import Testing

@testable import FrameFlowCommandLine

/// `frameflow subgraphs` and `frameflow solutions` against what they describe: every
/// registered subgraph with its declared streams and side packets, every graph file under
/// Graphs/ with a command that names it.
@Suite struct IntrospectionCommandsTests {
    @MainActor @Test func everySubgraphIsDescribedWithItsInterface() throws {
        let registry = try CalculatorRegistry.commandLine()
        #expect(registry.subgraphNames.count > 20, "\(registry.subgraphNames.count) subgraphs")
        for name in registry.subgraphNames {
            let config = try #require(registry.subgraph(named: name))
            let text = SubgraphsCommand.describe(config, name: name)
            #expect(text.hasPrefix(name + "\n"))
            for s in config.inputStreams + config.outputStreams + config.inputSidePackets {
                #expect(text.contains(s.description), "\(name): \(s) in\n\(text)")
            }
            #expect(text.hasSuffix("nodes: \(config.nodes.count)"))
        }
        let face = SubgraphsCommand.describe(try #require(registry.subgraph(named: "FaceLandmarkFrontCpu")), name: "FaceLandmarkFrontCpu")
        #expect(face.contains("input side packets:") && face.contains("NUM_FACES:num_faces"), "\(face)")
    }

    @Test func everyGraphFileHasASolutionWhoseCommandNamesIt() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("Graphs")).filter { $0.hasSuffix(".pbtxt") }
        let listed = Set(Solution.all.map(\.graph))
        #expect(Set(files.map { "Graphs/" + $0 }) == listed)
        for s in Solution.all {
            #expect(s.command.contains(s.graph) || s.command.contains("virtual-background"), "\(s.name): \(s.command)")
            #expect(s.modelSet == nil || ModelSet.all.contains { $0.name == s.modelSet }, "\(s.name)")
        }
    }
}
