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
            // HandLandmarkerGraph: tracking and duplicate hands.
            HandAssociationCalculator.self, HandLandmarksDeduplicationCalculator.self,
            // GestureRecognizerGraph: the embedder's inputs and the gesture.
            LandmarksToMatrixCalculator.self, HandednessToMatrixCalculator.self, TensorConverterCalculator.self,
            ClassificationPostprocessingCalculator.self, CombinedPredictionCalculator.self,
        ]
    }
}
