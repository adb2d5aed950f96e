import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's short-range face detection run from MediaPipe's own compiled graph
/// (`face_detection_short_range_cpu.binarypb` from the mediapipe==0.10.21 wheel) with
/// MediaPipe's model, against what MediaPipe's Python solution finds on the same photos
/// (scripts/fixtures/make_mediapipe_face_fixtures.py).
@Suite(.serialized) struct MediaPipeFaceDetectionTests {
    struct Face: Decodable {
        var score: Double
        var box: [Double]
        var keypoints: [[Double]]
    }
    struct Expected: Decodable {
        var width: Int
        var height: Int
        var faces: [Face]
    }

    static let moduleRoot = ".build/fixtures/mediapipe"
    static let binaryGraph = moduleRoot + "/mediapipe/modules/face_detection/face_detection_short_range_cpu.binarypb"
    static let expected: [String: Expected]? = {
        guard let data = FileManager.default.contents(atPath: RepositoryFiles.path("Tests/Fixtures/mediapipe/face_detection_short_range.json")) else {
            return nil
        }
        return try? JSONDecoder().decode([String: Expected].self, from: data)
    }()
    static let cases = ["astronaut", "coffee", "two_faces", "carphone_000", "carphone_030", "carphone_060"]

    /// The binary graph's content written as text: the same top node and options.
    static let textGraph = """
        type: "FaceDetectionShortRangeCpu"
        input_stream: "IMAGE:image"
        output_stream: "DETECTIONS:detections"
        graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {} }
        node {
          calculator: "FaceDetectionShortRange"
          input_stream: "IMAGE:image"
          output_stream: "DETECTIONS:detections"
          node_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { delegate { xnnpack {} } } }
          option_value: "OPTIONS:options"
        }
        """

    func detect(_ config: GraphConfig, _ image: ImageFrame) throws -> [Detection] {
        let graph = try Graph(config, registry: MLFixtures.registry, environment: MLFixtures.mediaPipeEnvironment)
        let out = try PacketCollector(graph, "detections")
        try graph.start()
        try graph.send(image, to: "image", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return try out.packets.first?.get([Detection].self) ?? []
    }

    @Test(arguments: cases)
    func matchesMediaPipesPythonSolution(name: String) throws {
        let binary = MLFixtures.path(Self.binaryGraph)
        try #require(FileManager.default.fileExists(atPath: binary), "run scripts/setup.sh test")
        let want = try #require(Self.expected?[name], "Tests/Fixtures/mediapipe/face_detection_short_range.json")
        let image = try TestImages.readPNM(MLFixtures.path(".build/fixtures/faces/\(name).ppm"))
        #expect(image.width == want.width && image.height == want.height)
        let (fromBinary, fromText) = (
            try detect(GraphConfig(contentsOfFile: binary, registry: MLFixtures.registry), image),
            try detect(GraphConfig(parsing: Self.textGraph, file: "face_detection_short_range_cpu.pbtxt"), image)
        )
        #expect(fromBinary == fromText, "the binary and text graphs give the same detections")

        #expect(fromBinary.count == want.faces.count, "\(name): \(fromBinary.count) faces, MediaPipe finds \(want.faces.count)")
        let aspect = Double(want.width) / Double(want.height)
        for face in want.faces {
            let box = Rect(x: face.box[0], y: face.box[1], width: face.box[2], height: face.box[3])
            let best = try #require(fromBinary.max { $0.box.iou(box) < $1.box.iou(box) }, "\(name): no face near \(box)")
            #expect(best.isRelative)
            #expect(best.box.iou(box) >= 0.95, "\(name): IoU \(best.box.iou(box)): \(best.box) vs MediaPipe's \(box)")
            #expect(abs(best.score - face.score) <= 0.01, "\(name): score \(best.score) vs \(face.score)")
            #expect(best.keypoints.count == face.keypoints.count)
            for (k, p) in zip(best.keypoints, face.keypoints) {
                // Within 0.5 % of the image width, in both directions (y in widths: × height / width).
                #expect(abs(k.x - p[0]) <= 0.005 && abs(k.y - p[1]) / aspect <= 0.005, "\(name): keypoint \(k) vs \(p)")
            }
        }
    }
}
