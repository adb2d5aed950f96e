import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// The built-in subgraphs parse, carry MediaPipe's names and ports, and expand with the
/// calculators FrameFlow has.
@Suite struct BuiltInSubgraphTests {
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
