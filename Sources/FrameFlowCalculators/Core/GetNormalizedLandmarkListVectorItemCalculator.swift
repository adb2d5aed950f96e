import FrameFlow

/// `VectorItemCalculator` of `[NormalizedLandmarkList]`: one pose's, face's or hand's landmarks
/// out of a vector, as MediaPipe's `GetNormalizedLandmarkListVectorItemCalculator`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GetNormalizedLandmarkListVectorItemCalculator"
///   input_stream: "VECTOR:landmarks"
///   input_stream: "INDEX:index"
///   output_stream: "ITEM:first_landmarks"
/// }
/// ```
public final class GetNormalizedLandmarkListVectorItemCalculator: VectorItemCalculator<NormalizedLandmarkList> {}
