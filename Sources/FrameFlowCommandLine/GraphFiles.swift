import Foundation

/// Where the command-line tool finds a graph file it is given: the path itself when it
/// exists, else the same name among the graphs `make install` put beside the executable
/// (`PREFIX/share/frameflow/graphs`), so `frameflow run face_mesh_desktop_live.pbtxt` and
/// the README's `Graphs/…` paths work from any folder once installed.
enum GraphFiles {
    /// What `make install` put beside the executable: `../share/frameflow` from it (graphs/,
    /// Models/).
    static var installedShare: String {
        let exe = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        return exe.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/frameflow").path
    }

    /// The installed graphs' folder.
    static var installedFolder: String { installedShare + "/graphs" }

    /// `path`, or the installed graph of the same name when `path` does not exist and is a
    /// bare name or `Graphs/NAME`.
    static func locate(_ path: String) -> String {
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let name = path.hasPrefix("Graphs/") ? String(path.dropFirst("Graphs/".count)) : path
        guard !name.contains("/") else { return path }
        let installed = installedFolder + "/" + name
        return FileManager.default.fileExists(atPath: installed) ? installed : path
    }
}
