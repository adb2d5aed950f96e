import Foundation
import FrameFlow
import FrameFlowMedia

extension RepositoryFiles {
    /// The first `count` frames of the photo or clip at `path` (relative to the repository), as
    /// RGB: how the MediaPipe fixture scripts decoded them.
    /// - Throws: `MissingFixture` when the file is not there.
    public static func frames(_ path: String, count: Int = .max) throws -> [ImageFrame] {
        let full = Self.path(path)
        guard FileManager.default.fileExists(atPath: full) else { throw MissingFixture(path: full) }
        let source = try MediaSource(full, options: .init(pixelFormat: .rgb8))
        var out: [ImageFrame] = []
        while out.count < count, let f = try source.read() { out.append(f.image) }
        return out
    }
}

/// A fixture file that is not there: committed ones come with the repository, built ones from
/// `scripts/setup.sh test`.
public struct MissingFixture: Error, CustomStringConvertible {
    /// The file's path.
    public var path: String
    public var description: String { "\(path) is missing: run scripts/setup.sh test" }
}
