import FrameFlow

/// `VectorItemCalculator` of `[LandmarkList]`: one pose's or hand's world landmarks out of a
/// vector, as MediaPipe's `GetLandmarkListVectorItemCalculator`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GetLandmarkListVectorItemCalculator"
///   input_stream: "VECTOR:world_landmarks"
///   input_stream: "INDEX:index"
///   output_stream: "ITEM:first_world_landmarks"
/// }
/// ```
public final class GetLandmarkListVectorItemCalculator: VectorItemCalculator<LandmarkList> {}
