import CFrameFlowKernels
import Foundation
import FrameFlow

extension NHWC {
    /// Depthwise convolution (multiplier 1, no dilation, any stride) of one NHWC image with
    /// at least 8 channels and any filter size — the TFLite ops' 5 × 5 filters at stride 2
    /// below the AVX-512 level and on outputs under 20 wide at it (the rest go to
    /// `depthwisePixels`, faster there). The rows run `ff_depthwise_rows` at the kernel
    /// level: one channel block (16 lanes at the AVX-512 level with 16 or more channels,
    /// else 8) of one output row at a time, eight output columns per step with their own
    /// accumulators, each tap's weight vector loaded once for the eight; the 3 × 3 and 5 × 5
    /// bodies unrolled. The last channel block overlaps the one before when the channel count
    /// is not a multiple of the lanes (channels are independent: the overlap writes the same
    /// values twice). Filter
    /// rows outside the image are skipped; at the left and right borders each column sums
    /// only the filter columns inside the image. Bias and a clamp activation are applied
    /// before the store.
    @inline(never)
    static func depthwiseBlocks(
        _ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?
    ) {
        precondition(g.c >= 8 && g.dh == 1 && g.dw == 1, "depthwiseBlocks needs 8 or more channels and no dilation")
        let k = g.kernelWindow(inner: g.innerColumns)
        let (lo, hi) = clamp ?? (-.infinity, .infinity)
        (bias ?? []).withUnsafeBufferPointer { B in
            let b = B.isEmpty ? nil : B.baseAddress
            Scratch.parallelFor(g.oh, work: g.oh * g.ow * g.c * g.kh * g.kw, threshold: Self.memoryBoundSplit) { rows in
                withUnsafePointer(to: k) { ff_depthwise_rows($0, rows.lowerBound, rows.upperBound, x, w, b, y, lo, hi) }
            }
        }
    }
}

extension NHWC {
    /// Whether a TFLite convolution runs `convolveNarrow`: a filter of more than one tap into at
    /// most 4 channels, no fused residual, where the AVX-512 shifted product is not built
    /// (pose_landmark_full's 3 × 3 head from 8 channels into 1 at 256 × 256: 6 ms through
    /// im2col and 8-lane tiles, one lane in eight useful).
    static func takesNarrow(_ g: Window, outputs: Int, residual: Bool) -> Bool {
        !ShiftedConvolution.built && !residual && outputs <= 4 && g.kh * g.kw > 1
    }

    /// A full convolution of one NHWC image into `outputs` (few) channels with the filter as
    /// TFLite stores it (`outputs × kh × kw × c`): `ff_conv_narrow_rows` over bands of output
    /// rows, bias and clamp included; inside the image eight output pixels at a time.
    static func convolveNarrow(
        _ g: Window, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: [Float]?, outputs: Int, y: UnsafeMutablePointer<Float>,
        clamp: (Float, Float)?
    ) {
        let k = g.kernelWindow(inner: g.innerColumns)
        let (lo, hi) = clamp ?? (-.infinity, .infinity)
        (bias ?? []).withUnsafeBufferPointer { B in
            let b = B.isEmpty ? nil : B.baseAddress
            Scratch.parallelFor(g.oh, work: g.oh * g.ow * outputs * g.kh * g.kw * g.c) { rows in
                withUnsafePointer(to: k) { ff_conv_narrow_rows($0, rows.lowerBound, rows.upperBound, x, weights, b, outputs, y, lo, hi) }
            }
        }
    }
}

extension NHWC.Window {
    /// The window as the C kernels take it, with the output columns `inner` whose taps all
    /// lie inside the image (an empty range: none).
    func kernelWindow(inner: Range<Int>) -> ff_dw_window {
        let inside = inner.isEmpty ? 0..<0 : inner
        return ff_dw_window(
            h: h, w: w, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl, inner0: inside.lowerBound,
            inner1: inside.upperBound)
    }
}
