import FrameFlow

extension CalculatorRegistry {
    /// Every calculator of `FrameFlowCalculators`, by its MediaPipe name.
    public static let standard = CalculatorRegistry(builtInCalculators)

    /// The built-in calculator types.
    public static var builtInCalculators: [any Calculator.Type] {
        [
            LuminanceCalculator.self, SobelEdgesCalculator.self, PassThroughCalculator.self,
            FlowLimiterCalculator.self, ColorConvertCalculator.self, ImageTransformationCalculator.self,
            ImageCroppingCalculator.self, ColorAdjustmentCalculator.self, GaussianBlurCalculator.self,
            SharpenCalculator.self, LUTCalculator.self, ToneMapCalculator.self, AnnotationOverlayCalculator.self,
            HaarCascadeDetectorCalculator.self, SwitchDemuxCalculator.self, SwitchMuxCalculator.self,
        ]
    }
}
