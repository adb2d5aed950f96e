import Foundation
import FrameFlow
import FrameFlowCalculators
@testable import FrameFlowML
import Testing

/// The built-in subgraphs parse, carry MediaPipe's names and ports, and expand with the
/// calculators FrameFlow has.
@Suite struct BuiltInSubgraphTests {
    /// Every `.pbtxt` in `Sources/FrameFlowML/Subgraphs/Graphs` is embedded (each needs its line
    /// in `BuiltInGraphFiles`), with the file's exact bytes.
    @Test func everyFileIsEmbedded() throws {
        let folder = MLFixtures.path("Sources/FrameFlowML/Subgraphs/Graphs")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pbtxt") }.sorted()
        #expect(onDisk.count >= 37)
        #expect(BuiltInGraphFiles.files.map(\.name) == onDisk)
        for (name, bytes) in BuiltInGraphFiles.files {
            #expect(FileManager.default.contents(atPath: folder + "/" + name).map { [UInt8]($0) } == bytes, "\(name)")
        }
    }

    @Test func everyBuiltInParsesUnderItsName() throws {
        let all = try CalculatorRegistry.mlSubgraphs()
        let names = all.map(\.name)
        for expected in [
            "FaceDetection", "FaceDetectionShortRange", "FaceDetectionFullRange", "FaceDetectionShortRangeCpu",
            "FaceDetectionFullRangeCpu", "FaceDetectionShortRangeByRoiCpu", "FaceDetectionWithoutRoi", "FaceLandmarksModelLoader",
            "HandLandmarkModelLoader", "PalmDetectionModelLoader",
        ] {
            #expect(names.contains(expected), "\(names)")
        }
        for (name, config) in all {
            #expect(config.type == name, "\(name): type \(String(describing: config.type))")
            guard name.hasPrefix("FaceDetection"), !name.hasSuffix("ToRoi") else { continue }
            #expect(config.inputStreams.contains { $0.tag == "IMAGE" } && config.outputStreams.map(\.tag) == ["DETECTIONS"], "\(name)")
        }
    }

    /// Each Face Mesh / Hands subgraph offers the ports MediaPipe's graphs of the same name use
    /// (tags of streams and side packets, as MediaPipe's sources declare them).
    @Test(arguments: [
        (
            "FaceLandmarkFrontCpu", ["IMAGE"], ["LANDMARKS", "DETECTIONS", "ROIS_FROM_LANDMARKS", "ROIS_FROM_DETECTIONS"],
            ["NUM_FACES", "USE_PREV_LANDMARKS", "WITH_ATTENTION"]
        ),
        ("FaceLandmarkCpu", ["IMAGE", "ROI"], ["LANDMARKS"], ["WITH_ATTENTION"]),
        ("FaceDetectionFrontDetectionToRoi", ["DETECTION", "IMAGE_SIZE"], ["ROI"], []),
        ("FaceLandmarkLandmarksToRoi", ["LANDMARKS", "IMAGE_SIZE"], ["ROI"], []),
        ("TensorsToFaceLandmarks", ["TENSORS"], ["LANDMARKS"], []),
        ("TensorsToFaceLandmarksWithAttention", ["TENSORS"], ["LANDMARKS"], []),
        (
            "HandLandmarkTrackingCpu", ["IMAGE"],
            ["LANDMARKS", "WORLD_LANDMARKS", "HANDEDNESS", "PALM_DETECTIONS", "HAND_ROIS_FROM_LANDMARKS", "HAND_ROIS_FROM_PALM_DETECTIONS"],
            ["NUM_HANDS", "MODEL_COMPLEXITY", "USE_PREV_LANDMARKS"]
        ),
        ("HandLandmarkCpu", ["IMAGE", "ROI"], ["LANDMARKS", "WORLD_LANDMARKS", "HANDEDNESS"], ["MODEL_COMPLEXITY"]),
        ("HandLandmarkLandmarksToRoi", ["LANDMARKS", "IMAGE_SIZE"], ["ROI"], []),
        ("PalmDetectionCpu", ["IMAGE"], ["DETECTIONS"], ["MODEL_COMPLEXITY"]),
        ("PalmDetectionDetectionToRoi", ["DETECTION", "IMAGE_SIZE"], ["ROI"], []),
    ])
    func landmarkSubgraphsHaveMediaPipesPorts(name: String, inputs: [String], outputs: [String], sidePackets: [String]) throws {
        let config = try #require(try CalculatorRegistry.mlSubgraphs().first { $0.name == name }?.config, "\(name) is missing")
        #expect(config.inputStreams.map(\.tag) == inputs, "\(name)")
        #expect(config.outputStreams.map(\.tag) == outputs, "\(name)")
        #expect(config.inputSidePackets.map(\.tag) == sidePackets, "\(name)")
    }

    @Test func theShortRangeCpuGraphExpandsWithTheModelsOptions() throws {
        let registry = try CalculatorRegistry.withML()
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "image"
                    output_stream: "detections"
                    node { calculator: "FaceDetectionShortRangeCpu" input_stream: "IMAGE:image" output_stream: "DETECTIONS:detections" }
                    """), registry: registry)
        let nodes = graph.expandedConfig.nodes
        // FaceDetectionShortRangeCpu → FaceDetectionShortRange → FaceDetection's seven nodes.
        #expect(nodes.count == 7, "\(nodes.map(\.calculator))")
        let inference = try #require(nodes.first { $0.calculator == "InferenceCalculator" })
        guard case .text(_, let options)? = inference.options else { Issue.record("no options"); return }
        guard case .string(let path)? = options.fields(named: "model_path").first?.value.kind else {
            Issue.record("no model_path forwarded")
            return
        }
        #expect(path == "mediapipe/modules/face_detection/face_detection_short_range.tflite")
        // The ROI input is unconnected: ImageToTensor gets no NORM_RECT.
        let toTensor = try #require(nodes.first { $0.calculator == "ImageToTensorCalculator" })
        #expect(!toTensor.inputStreams.contains { $0.tag == "NORM_RECT" })
    }
}

/// Each built-in subgraph that MediaPipe's wheel ships compiled (MediaPipe's own text of the
/// same graph) expands to the same nodes: the same calculators with the same ports (the order
/// nodes are written in does not matter to a graph).
@Suite struct BuiltInSubgraphsFollowMediaPipeTests {
    static let wheel = MLFixtures.path(".build/fixtures/mediapipe/mediapipe/modules")

    /// Calculator and port tags of each expanded node (stream names are the writer's choice).
    static func expandedNodes(_ config: GraphConfig) throws -> [String] {
        let graph = try Graph(config, registry: MLFixtures.registry, environment: MLFixtures.mediaPipeEnvironment)
        return graph.expandedConfig.nodes.map { n in
            let ports = [n.inputStreams, n.outputStreams, n.inputSidePackets, n.outputSidePackets].map { $0.map { "\($0.tag):\($0.index)" } }
            return "\(n.calculator) \(ports)"
        }
    }

    @Test(arguments: [
        ("face_detection/face_detection_short_range_cpu", "FaceDetectionShortRangeCpu"),
        ("face_detection/face_detection_full_range_cpu", "FaceDetectionFullRangeCpu"),
        ("face_landmark/face_landmark_front_cpu", "FaceLandmarkFrontCpu"),
        ("hand_landmark/hand_landmark_tracking_cpu", "HandLandmarkTrackingCpu"),
        ("holistic_landmark/holistic_landmark_cpu", "HolisticLandmarkCpu"),
        ("pose_landmark/pose_landmark_cpu", "PoseLandmarkCpu"),
        ("selfie_segmentation/selfie_segmentation_cpu", "SelfieSegmentationCpu"),
    ])
    func expandsAsMediaPipesOwnGraph(file: String, name: String) throws {
        let path = Self.wheel + "/\(file).binarypb"
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/setup.sh test")
        let theirs = try Self.expandedNodes(GraphConfig(contentsOfFile: path, registry: MLFixtures.registry))
        let text = try #require(CalculatorRegistry.mlSubgraphText(named: name))
        let ours = try Self.expandedNodes(GraphConfig(parsing: text, file: "\(name).pbtxt"))
        #expect(ours.count == theirs.count, "\(name): \(ours.count) nodes, MediaPipe's \(theirs.count)")
        var unmatched = theirs
        var extra: [String] = []
        for node in ours {
            if let i = unmatched.firstIndex(of: node) { unmatched.remove(at: i) } else { extra.append(node) }
        }
        #expect(extra.isEmpty && unmatched.isEmpty, "\(name): only ours \(extra.prefix(3)), only MediaPipe's \(unmatched.prefix(3))")
    }
}
