import FrameFlow
import FrameFlowInference
import FrameFlowCalculators

// The vector calculators of FrameFlowCalculators for `[Tensor]`, under MediaPipe's names
// (mediapipe/calculators/core: begin_loop, end_loop, split_vector, concatenate_vector).

/// `BeginLoopCalculator` over `[Tensor]`: one tensor per loop timestamp on `ITEM`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "BeginLoopTensorCalculator"
///   input_stream: "ITERABLE:tensors"
///   output_stream: "ITEM:tensor"
///   output_stream: "BATCH_END:tensors_timestamp"
/// }
/// ```
public final class BeginLoopTensorCalculator: BeginLoopCalculator<Tensor> {}

/// `EndLoopCalculator` gathering `[Tensor]` at the batch timestamp.
///
/// Example usage:
/// ```
/// node {
///   calculator: "EndLoopTensorCalculator"
///   input_stream: "ITEM:tensor"
///   input_stream: "BATCH_END:tensors_timestamp"
///   output_stream: "ITERABLE:tensors_out"
/// }
/// ```
public final class EndLoopTensorCalculator: EndLoopCalculator<Tensor> {}

/// `SplitVectorCalculator` over `[Tensor]`. MediaPipe moves tensors out of the input rather
/// than copying them, so its ranges must not overlap; this port keeps that rule.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SplitTensorVectorCalculator"
///   input_stream: "tensors"
///   output_stream: "landmark_tensors"
///   output_stream: "presence_flag_tensor"
///   options { [mediapipe.SplitVectorCalculatorOptions.ext] {
///     ranges: { begin: 0 end: 1 }
///     ranges: { begin: 1 end: 2 }
///   } }
/// }
/// ```
public final class SplitTensorVectorCalculator: SplitVectorCalculator<[Tensor]> {
    override public class var requiresDisjointRanges: Bool { true }
}

/// `ConcatenateVectorCalculator` of `Tensor`: tensors and tensor vectors joined in input order.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ConcatenateTensorVectorCalculator"
///   input_stream: "image_tensors"
///   input_stream: "extra_tensors"
///   output_stream: "all_tensors"
/// }
/// ```
public final class ConcatenateTensorVectorCalculator: ConcatenateVectorCalculator<Tensor> {}
