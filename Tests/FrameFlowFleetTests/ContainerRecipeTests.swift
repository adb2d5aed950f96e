import Foundation
import FrameFlowTestSupport
import Testing

/// The Containerfile's runtime packages against what the built `frameflow` loads
/// (scripts/ci/check-container-deps.py: ldd, dlopen names, `dpkg -S`); no container engine
/// needed.
@Suite struct ContainerRecipeTests {
    static let root = RepositoryFiles.root

    static func check(_ containerfile: String) throws -> (status: Int32, out: String, err: String) {
        try BatchCommandTests.run(
            RepositoryFiles.path("scripts/ci/check-container-deps.py"),
            [RepositoryFiles.path(".build/debug/frameflow"), "--containerfile", containerfile])
    }

    static func runtimePackages(_ text: String) throws -> [String] {
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ARG RUNTIME_PACKAGES=\"") })
        return line.dropFirst("ARG RUNTIME_PACKAGES=\"".count).dropLast().split(separator: " ").map(String.init)
    }

    @Test func theRuntimeStageHasExactlyTheLibrariesTheBinaryLoads() throws {
        let r = try Self.check(RepositoryFiles.path("Containerfile"))
        #expect(r.status == 0, "\(r.err)")
        // Each listed package is there for a reason the check names (a library, a dlopen, a file).
        let listed = try Self.runtimePackages(try String(contentsOfFile: RepositoryFiles.path("Containerfile"), encoding: .utf8))
        let reasons = Set(r.out.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(Set(listed).isSubset(of: reasons), "\(r.out)")
        #expect(listed.contains("libavcodec59") && listed.contains("libmosquitto1"))
    }

    @Test func aMissingOrAnUnusedPackageFailsTheCheck() throws {
        let text = try String(contentsOfFile: RepositoryFiles.path("Containerfile"), encoding: .utf8)
        let listed = try Self.runtimePackages(text)
        let edited = text.replacingOccurrences(
            of: "ARG RUNTIME_PACKAGES=\"\(listed.joined(separator: " "))\"",
            with: "ARG RUNTIME_PACKAGES=\"\(listed.filter { $0 != "libmosquitto1" }.joined(separator: " ")) libfoo9\"")
        #expect(edited != text)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("Containerfile-\(getpid())-\(UUID().uuidString)").path
        try edited.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = try Self.check(file)
        #expect(r.status == 1)
        #expect(r.err.contains("libmosquitto1 is needed by libmosquitto.so.1"), "\(r.err)")
        #expect(r.err.contains("libfoo9 is in RUNTIME_PACKAGES"), "\(r.err)")
    }

    @Test func theIgnoreFilesAgreeAndKeepBuildProductsOut() throws {
        func body(_ name: String) throws -> [Substring] {
            try String(contentsOfFile: RepositoryFiles.path(name), encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
        let docker = try body(".dockerignore")
        #expect(docker == (try body(".containerignore")))
        #expect(docker.contains(".build") && docker.contains(".git"))
    }
}
