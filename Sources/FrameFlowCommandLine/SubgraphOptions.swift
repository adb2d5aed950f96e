import FrameFlow
import FrameFlowArguments
import FrameFlowML
import Foundation

/// The options of every command that loads a graph: subgraphs to register before loading,
/// where relative paths in options are looked up, and the largest image.
public struct SubgraphOptions: ParsableArguments {
    /// `--subgraph FILE` (named by its `type:`) or `--subgraph NAME=FILE`.
    @Option(
        valueName: "[NAME=]FILE",
        help: "register the subgraph in FILE, named by its type: or as NAME")
    public var subgraph: [String] = []

    /// `--graph-path DIR`.
    @Option(valueName: "DIR", help: "register every .pbtxt in DIR that has a type: as a subgraph")
    public var graphPath: [String] = []

    /// `--resource-root DIR`.
    @Option(valueName: "DIR", help: "where relative paths in calculator options are looked up first (then the model folder)")
    public var resourceRoot: String?

    /// `--max-image-pixels N`.
    @Option(
        valueName: "N", help: "the largest image a graph decodes or makes, in pixels", expecting: "needs a positive number",
        valid: { $0 > 0 })
    public var maxImagePixels: Int?

    /// `--model-asset FILE`: the task's model for MediaPipe's expanded Tasks configs.
    @Option(
        valueName: "FILE",
        help: "the .task or .tflite file a MediaPipe expanded Tasks config's ModelResourcesCalculator nodes load (the task's model)")
    public var modelAsset: String?

    public init() {}

    public func validate() throws {
        if let r = resourceRoot {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: r, isDirectory: &isDir), isDir.boolValue else {
                throw ValidationError("--resource-root \(r): no such folder")
            }
        }
        if let m = modelAsset {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: m, isDirectory: &isDir), !isDir.boolValue else {
                throw ValidationError("--model-asset \(m): no such file")
            }
        }
    }

    /// Registers the subgraphs into `registry` and returns the environment the graphs run with.
    public func apply(to registry: CalculatorRegistry) throws -> GraphEnvironment {
        for s in subgraph {
            if let eq = s.firstIndex(of: "="), !s[..<eq].contains("/") {
                try registry.registerSubgraph(contentsOfFile: String(s[s.index(after: eq)...]), as: String(s[..<eq]))
            } else {
                try registry.registerSubgraph(contentsOfFile: s)
            }
        }
        for d in graphPath { try registry.registerSubgraphs(inDirectory: d) }
        var environment = GraphEnvironment()
        // --resource-root, the user model folder (`frameflow models fetch`), then what `make
        // install` put beside the executable (Models/…).
        environment.resourceRoots = (resourceRoot.map { [$0] } ?? []) + [GraphEnvironment.userModelFolder(), GraphFiles.installedShare]
        if let m = maxImagePixels { environment.limits.maxImagePixels = m }
        if let m = modelAsset { environment = environment.with(ModelAssets(taskAsset: m)) }
        return environment
    }

    /// `error`, with the command that fetches MediaPipe's models when it is a model of theirs
    /// (under `mediapipe/modules/`, or a `.task` bundle) that could not be found.
    public static func explainingMissingModels(_ error: any Error) -> any Error {
        guard case .missingFile(let path)? = GraphError.cause(of: error), path.contains("mediapipe/modules/") || path.contains(".task") else {
            return error
        }
        return ExitRequest.failure(
            "\(error)\n(`frameflow models fetch` unpacks MediaPipe's models into \(GraphEnvironment.userModelFolder()), where they are found)")
    }
}
