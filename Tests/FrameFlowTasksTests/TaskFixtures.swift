import Foundation
import FrameFlow
import FrameFlowTestSupport
import Testing

/// MediaPipe Tasks' image-mode results (Tests/Fixtures/mediapipe/tasks/<task>.json) and the
/// photos they were made on, decoded as the fixture script decoded them (RGB).
enum TaskFixtures {
    struct Photo {
        var source: String
        var image: ImageFrame
        var frame: [String: Any]
    }

    static func photos(_ task: String) throws -> [Photo] {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/\(task).json")))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let runs = try #require(file["runs"] as? [[String: Any]]).filter { $0["mode"] as? String == "image" }
        return try runs.map { run in
            let path = try #require(run["path"] as? String)
            let image = try #require(try RepositoryFiles.frames(path, count: 1).first)
            let frame = try #require((run["frames"] as? [[String: Any]])?.first)
            return Photo(source: run["source"] as? String ?? path, image: image, frame: frame)
        }
    }

    /// Mean distance, over the width, between `ours` and MediaPipe's flat x, y, z list.
    static func meanDistance(_ ours: [NormalizedLandmark], _ theirs: [Double], width: Int, height: Int) -> Double {
        guard ours.count * 3 == theirs.count, !ours.isEmpty else { return .infinity }
        var sum = 0.0
        for (i, p) in ours.enumerated() {
            let dx = (p.x - theirs[3 * i]) * Double(width), dy = (p.y - theirs[3 * i + 1]) * Double(height)
            sum += (dx * dx + dy * dy).squareRoot() / Double(width)
        }
        return sum / Double(ours.count)
    }

    /// The path of a model `scripts/setup.sh test` extracted (`.build/fixtures/tasks/NAME`).
    static func model(_ name: String) throws -> String {
        let path = RepositoryFiles.built("tasks/" + name)
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/setup.sh test")
        return path
    }
}
