import FrameFlow
import FrameFlowArguments
import Foundation

/// `frameflow models list`: each model set, whether it is in the model folder, and its model
/// files with their sizes.
public struct ModelsListCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "list", abstract: "list the model sets and the models in the model folder")
    }

    /// `--folder DIR`.
    @Option(valueName: "DIR", help: "the model folder (default: frameflow models path)") public var folder: String?

    public init() {}

    @MainActor public func run() throws {
        let dir = folder ?? GraphEnvironment.userModelFolder()
        print("model folder: \(dir)")
        let fm = FileManager.default
        for set in ModelSet.all {
            guard set.isPresent(in: dir) else {
                print("\(set.name): not fetched (frameflow models fetch \(set.name)) — \(set.summary)")
                continue
            }
            let root = dir + "/" + set.folder
            let files = (fm.enumerator(atPath: root)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".tflite") || $0.hasSuffix(".task") }.sorted()
            print("\(set.name): \(files.count) models — \(set.summary)")
            for f in files {
                let size = (try? fm.attributesOfItem(atPath: root + "/" + f)[.size] as? Int) ?? 0
                print(String(format: "  %8.1f MB  %@", Double(size) / 1_000_000, "\(set.folder)/\(f)" as NSString))
            }
        }
    }
}
