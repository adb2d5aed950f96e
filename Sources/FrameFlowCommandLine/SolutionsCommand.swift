import FrameFlow
import FrameFlowArguments
import Foundation

/// `frameflow solutions`: what MediaPipe's solutions and FrameFlow's apps run, each with the
/// command that runs it and whether its models are in the model folder.
public struct SolutionsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "solutions", abstract: "list the solutions FrameFlow runs, with the command for each")
    }

    public init() {}

    @MainActor public func run() throws {
        let folder = GraphEnvironment.userModelFolder()
        for s in Solution.all {
            let ready = s.modelSet.flatMap { name in ModelSet.all.first { $0.name == name } }.map { $0.isPresent(in: folder) } ?? true
            print("\(s.name)\(ready ? "" : "  (needs: frameflow models fetch \(s.modelSet ?? ""))")")
            print("  \(s.command)")
        }
    }
}
