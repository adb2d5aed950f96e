import FrameFlow

/// `VectorItemCalculator` of `[NormalizedRect]`: one ROI out of a vector, as MediaPipe's
/// `GetNormalizedRectVectorItemCalculator`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GetNormalizedRectVectorItemCalculator"
///   input_stream: "VECTOR:rects"
///   input_stream: "INDEX:index"
///   output_stream: "ITEM:first_rect"
/// }
/// ```
public final class GetNormalizedRectVectorItemCalculator: VectorItemCalculator<NormalizedRect> {}
