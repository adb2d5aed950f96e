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
        for expected in ["FaceDetection", "FaceDetectionShortRange", "FaceDetectionFullRange", "FaceDetectionShortRangeCpu",
            "FaceDetectionFullRangeCpu", "FaceDetectionShortRangeByRoiCpu", "FaceDetectionWithoutRoi"]
        {
            #expect(names.contains(expected), "\(names)")
        }
        for (name, config) in all {
            #expect(config.type == name, "\(name): type \(String(describing: config.type))")
            #expect(config.inputStreams.contains { $0.tag == "IMAGE" } && config.outputStreams.map(\.tag) == ["DETECTIONS"], "\(name)")
        }
    }

    @Test func theShortRangeCpuGraphExpandsWithTheModelsOptions() throws {
        let registry = try CalculatorRegistry.withML()
        let graph = try Graph(
            GraphConfig(parsing: """
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
