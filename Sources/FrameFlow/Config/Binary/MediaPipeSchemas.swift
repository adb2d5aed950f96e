/// The MediaPipe options types that graphs carry but no FrameFlow calculator declares: the
/// options in MediaPipe's own `.binarypb` graphs (face detection, face mesh, hands, pose,
/// holistic, objectron, selfie segmentation) and the input stream handlers' options.
/// `ProtoSchemaRegistry.mediaPipe` holds all of them; the schemas themselves are generated from
/// MediaPipe's descriptors (`MediaPipeOptionSchemas`).
public enum MediaPipeSchemas {
    /// Every graph-only options schema.
    public static let all: [ProtoSchema] = [
        MediaPipeOptionSchemas.inferenceCalculatorOptions, MediaPipeOptionSchemas.faceDetectionOptions,
        MediaPipeOptionSchemas.splitVectorCalculatorOptions, MediaPipeOptionSchemas.gateCalculatorOptions,
        MediaPipeOptionSchemas.detectionsToRectsCalculatorOptions, MediaPipeOptionSchemas.associationCalculatorOptions,
        MediaPipeOptionSchemas.lift2DFrameAnnotationTo3DCalculatorOptions, MediaPipeOptionSchemas.switchContainerOptions,
        MediaPipeOptionSchemas.tensorsToSegmentationCalculatorOptions, MediaPipeOptionSchemas.imageToTensorCalculatorOptions,
        MediaPipeOptionSchemas.syncSetInputStreamHandlerOptions, MediaPipeOptionSchemas.fixedSizeInputStreamHandlerOptions,
    ]
}
