import FrameFlow
import FrameFlowInference
import FrameFlowCalculators

extension CalculatorRegistry {
    /// The calculators of `FrameFlowML`.
    public static var mlCalculators: [any Calculator.Type] {
        [
            ImageToTensorCalculator.self, InferenceCalculator.self, TensorsToClassificationCalculator.self,
            TensorsToDetectionsCalculator.self, NonMaxSuppressionCalculator.self,
            SsdAnchorsCalculator.self, DetectionProjectionCalculator.self, DetectionLetterboxRemovalCalculator.self,
            TfLiteModelCalculator.self, TfLiteCustomOpResolverCalculator.self, ModelAssetCalculator.self,
            BeginLoopTensorCalculator.self, EndLoopTensorCalculator.self, SplitTensorVectorCalculator.self,
            ConcatenateTensorVectorCalculator.self, TensorsToFloatsCalculator.self, TensorsToLandmarksCalculator.self,
            TensorsToSegmentationCalculator.self,
            // Pose: landmarks refined with the heatmap.
            RefineLandmarksFromHeatmapCalculator.self,
            // MediaPipe Tasks: the face geometry pipeline (facial transformation matrices).
            FaceGeometryEnvGeneratorCalculator.self, FaceGeometryPipelineCalculator.self,
            // FaceLandmarker: landmarks as the blendshapes model's input.
            LandmarksToTensorCalculator.self,
            // Tasks: ImageSegmenter's decoder (registered as mediapipe.tasks.TensorsToSegmentationCalculator).
            TasksTensorsToSegmentationCalculator.self,
            // HandLandmarkerGraph: tracking and duplicate hands.
            HandAssociationCalculator.self, HandLandmarksDeduplicationCalculator.self,
            // GestureRecognizerGraph: the embedder's inputs and the gesture.
            LandmarksToMatrixCalculator.self, HandednessToMatrixCalculator.self, TensorConverterCalculator.self,
            ClassificationPostprocessingCalculator.self, CombinedPredictionCalculator.self,
            // MediaPipe's expanded Tasks graphs: their models by tag.
            ModelResourcesCalculator.self,
        ]
    }
}
