import Foundation

/// Paths in the FrameFlow repository, for tests and benchmarks built from its sources.
public enum RepositoryFiles {
    /// The repository's root folder (found from this file's place in the sources).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `relative` under the repository's root.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// `Tests/Fixtures/<name>`: fixtures committed with the tests.
    public static func fixture(_ name: String) -> String { path("Tests/Fixtures/" + name) }

    /// `.build/fixtures/<name>`: fixtures `scripts/setup.sh test` makes (models, clips, references).
    public static func built(_ name: String) -> String { path(".build/fixtures/" + name) }
}
