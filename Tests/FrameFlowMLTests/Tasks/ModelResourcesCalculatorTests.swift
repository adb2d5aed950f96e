import Foundation
import FrameFlow
@testable import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// ModelResourcesCalculator: MediaPipe's model_resources_tag to the bundle entry each Tasks
/// graph loads; missing sources and model bytes in the config are clear errors.
@Suite struct ModelResourcesCalculatorTests {
    @Test(arguments: [
        (
            "mediapipe.tasks.vision.pose_detector.PoseDetectorGraph_mediapipe_tasks_vision_pose_detector_posedetectorgraph_model_resources",
            "pose_detector.tflite"
        ),
        ("mediapipe.tasks.vision.pose_landmarker.SinglePoseLandmarksDetectorGraph_x_y_model_resources", "pose_landmarks_detector.tflite"),
        ("mediapipe.tasks.vision.face_landmarker.FaceBlendshapesGraph_a_model_resources", "face_blendshapes.tflite"),
        ("mediapipe.tasks.vision.hand_detector.HandDetectorGraph_h_model_resources", "hand_detector.tflite"),
        (
            "mediapipe.tasks.vision.gesture_recognizer.SingleHandGestureRecognizerGraph_g_model_resources_canned_gesture_classifier",
            "canned_gesture_classifier.tflite"
        ),
        ("unnamed_mediapipe_tasks_vision_image_segmenter_imagesegmentergraph_model_resources", ""),
    ])
    func tagNamesTheEntry(tag: String, entry: String) throws {
        let o = try ModelResourcesCalculator.asset(forTag: tag, taskAsset: "t.task")
        #expect(o.modelAssetPath == "t.task" && o.entry == entry)
    }

    @Test func unknownTagsAreErrors() {
        for tag in ["mediapipe.tasks.vision.x.UnknownGraph_x_model_resources", "no marker here"] {
            #expect(throws: GraphError.self) { try ModelResourcesCalculator.asset(forTag: tag, taskAsset: "t.task") }
        }
    }

    @Test func loadsTheModelFromTheTaskAsset() throws {
        try TasksFixtures.requireModels()
        let node = """
            node { calculator: "ModelResourcesCalculator" output_side_packet: "MODEL:m" output_side_packet: "OP_RESOLVER:r"
              options { [mediapipe.tasks.core.proto.ModelResourcesCalculatorOptions.ext] {
                model_resources_tag: "mediapipe.tasks.vision.pose_detector.PoseDetectorGraph_p_model_resources" } } }
            """
        let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        let graph = try Graph(
            GraphConfig(parsing: node), registry: MLFixtures.registry,
            environment: environment.with(ModelAssets(taskAsset: ".build/fixtures/tasks/pose_landmarker_full.task")))
        try graph.start()
        try graph.waitUntilDone()
        let model = try #require(graph.outputSidePacket("m")?.payload as? Model)
        #expect(model.inputs.first?.shape == [1, 224, 224, 3])  // pose_detector.tflite, as LiteRT reads it
        // No task asset: the open fails naming the tag.
        let bare = try Graph(GraphConfig(parsing: node), registry: MLFixtures.registry, environment: environment)
        #expect(throws: GraphError.self) {
            try bare.start()
            try bare.waitUntilDone()
        }
    }

    @Test func modelBytesInTheConfigAreRefused() {
        let e = GraphBuildErrors.firstOptionError(
            """
            node { calculator: "ModelResourcesCalculator" output_side_packet: "MODEL:m"
              options { [mediapipe.tasks.core.proto.ModelResourcesCalculatorOptions.ext] { model_file { file_content: "TFL3" } } } }
            """, registry: MLFixtures.registry)
        #expect(e?.message.contains("file_content") == true, "\(String(describing: e))")
    }

    @Test func inferenceCalculatorCpuIsInferenceCalculator() {
        #expect(MLFixtures.registry.calculator(named: "InferenceCalculatorCpu") == InferenceCalculator.self)
    }
}
