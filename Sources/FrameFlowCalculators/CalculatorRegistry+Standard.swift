import FrameFlow

extension CalculatorRegistry {
    /// A new registry with every calculator of `FrameFlowCalculators`, by its MediaPipe name
    /// (new on each use: registering into it changes no other graph's registry).
    public static var standard: CalculatorRegistry { CalculatorRegistry(builtInCalculators) }

    /// The built-in calculator types.
    public static var builtInCalculators: [any Calculator.Type] {
        [
            LuminanceCalculator.self, SobelEdgesCalculator.self, PassThroughCalculator.self,
            FlowLimiterCalculator.self, ColorConvertCalculator.self, ImageTransformationCalculator.self,
            ImageCroppingCalculator.self, ImageCloneCalculator.self, ColorAdjustmentCalculator.self, GaussianBlurCalculator.self,
            SharpenCalculator.self, LUTCalculator.self, ToneMapCalculator.self, AnnotationOverlayCalculator.self,
            HaarCascadeDetectorCalculator.self, HOGPeopleDetectorCalculator.self, ObjectTrackerCalculator.self, SnapshotSelectorCalculator.self,
            SwitchDemuxCalculator.self,
            SwitchMuxCalculator.self,
            // Camera events (filters, zones, lines, Frigate-shaped events).
            ObjectFilterCalculator.self, ZoneCalculator.self, LineCounterCalculator.self, EventBuilderCalculator.self,
            EventsToRenderDataCalculator.self,
            // Motion: Frigate-style motion detection and the gate that runs a detector on motion.
            MotionDetectorCalculator.self, MotionGateCalculator.self,
            DetectionsToRenderDataCalculator.self, RectToRenderDataCalculator.self, LabelsToRenderDataCalculator.self,
            DetectionsToRectsCalculator.self, RectTransformationCalculator.self,
            AlignmentPointsRectsCalculator.self, AssociationNormRectCalculator.self, HandLandmarksToRectCalculator.self,
            // Framework calculators (constants, files, gates, loopback, merge, presence, image tags).
            ConstantSidePacketCalculator.self, LocalFileContentsCalculator.self, ResourceProviderCalculator.self, GateCalculator.self,
            ThresholdingCalculator.self, LandmarkProjectionCalculator.self,
            // Landmark calculators (Face Mesh, Hands).
            LandmarksToDetectionCalculator.self, LandmarksRefinementCalculator.self, LandmarksToRenderDataCalculator.self,
            WorldLandmarkProjectionCalculator.self, LandmarkLetterboxRemovalCalculator.self,
            // Holistic calculators (hand and face ROIs from the pose, tracking between frames).
            RoiTrackingCalculator.self, HandDetectionsFromPoseToRectsCalculator.self, LandmarkVisibilityCalculator.self,
            SetLandmarkVisibilityCalculator.self,
            // Pose calculators (smoothing, visibility).
            LandmarksSmoothingCalculator.self, VisibilitySmoothingCalculator.self, VisibilityCopyCalculator.self,
            InverseMatrixCalculator.self, RectToRenderScaleCalculator.self, WarpAffineCalculator.self,
            // Segmentation masks (Selfie Segmentation, Pose).
            SegmentationSmoothingCalculator.self, RecolorCalculator.self,
            // Virtual backgrounds (the person over a blurred or replaced background).
            BackgroundCompositeCalculator.self,
            // Drawn canvases (the ink's region in MNIST's layout).
            InkBoundsCalculator.self,
            PreviousLoopbackCalculator.self, MergeCalculator.self, PacketPresenceCalculator.self,
            ImagePropertiesCalculator.self, DetectionTransformationCalculator.self, ToImageCalculator.self, FromImageCalculator.self,
            // Vector framework calculators (loops, split, concatenate, clip, size checks).
            BeginLoopNormalizedRectCalculator.self, BeginLoopDetectionCalculator.self,
            BeginLoopNormalizedLandmarkListVectorCalculator.self, BeginLoopIntCalculator.self, BeginLoopFloatCalculator.self,
            BeginLoopStringCalculator.self, BeginLoopImageFrameCalculator.self, EndLoopNormalizedRectCalculator.self,
            EndLoopDetectionCalculator.self, EndLoopNormalizedLandmarkListVectorCalculator.self,
            EndLoopLandmarkListVectorCalculator.self, EndLoopClassificationListCalculator.self, EndLoopRenderDataCalculator.self,
            EndLoopBooleanCalculator.self, EndLoopFloatCalculator.self, EndLoopImageFrameCalculator.self,
            SplitNormalizedLandmarkListCalculator.self, SplitLandmarkListCalculator.self, SplitLandmarkVectorCalculator.self,
            SplitNormalizedLandmarkListVectorCalculator.self, SplitNormalizedRectVectorCalculator.self,
            SplitDetectionVectorCalculator.self, SplitClassificationListVectorCalculator.self, SplitFloatVectorCalculator.self,
            SplitUint64tVectorCalculator.self, ConcatenateRenderDataVectorCalculator.self,
            ConcatenateDetectionVectorCalculator.self, ConcatenateFloatVectorCalculator.self,
            ConcatenateInt32VectorCalculator.self, ConcatenateBoolVectorCalculator.self, ConcatenateStringVectorCalculator.self,
            MergeImagesToVectorCalculator.self,
            ConcatenateLandmarkVectorCalculator.self, ConcatenateLandmarkListVectorCalculator.self,
            ConcatenateNormalizedLandmarkListVectorCalculator.self, ConcatenateClassificationListVectorCalculator.self,
            ConcatenateNormalizedLandmarkListCalculator.self, ConcatenateLandmarkListCalculator.self,
            ConcatenateClassificationListCalculator.self,
            ClipNormalizedRectVectorSizeCalculator.self, ClipDetectionVectorSizeCalculator.self,
            NormalizedRectVectorHasMinSizeCalculator.self, NormalizedLandmarkListVectorHasMinSizeCalculator.self,
            ClassificationListVectorHasMinSizeCalculator.self,
            // Tasks: one item of a vector (the tracked face or pose to smooth).
            GetNormalizedLandmarkListVectorItemCalculator.self, GetLandmarkListVectorItemCalculator.self,
            GetClassificationListVectorItemCalculator.self, GetNormalizedRectVectorItemCalculator.self,
            // Side packets as streams (MediaPipe Tasks' pose smoothing).
            SidePacketToStreamCalculator.self,
            // Hand Tasks graphs: palm labels; one hand's items by index.
            DetectionLabelIdToTextCalculator.self, NormalizedLandmarkListVectorIndicesCalculator.self,
        ]
    }
}
