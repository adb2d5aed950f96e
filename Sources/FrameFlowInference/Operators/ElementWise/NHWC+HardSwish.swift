import CFrameFlowKernels
import Foundation
import FrameFlow

extension NHWC {
    /// TFLite's `HARD_SWISH`, `x · relu6(x + 3) / 6`, in place, eight lanes at a time
    /// (`ff_bias_activate_f32`'s HardSwish mode, `x · clamp(x/6 + ½, 0, 1)`: the same function,
    /// rounded within a float ulp or two). CONV_2D and DEPTHWISE_CONV_2D apply it to their
    /// output when a HARD_SWISH that followed them was fused at load.
    static func hardSwish(_ x: inout [Float]) {
        let count = x.count
        x.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            Scratch.parallelFor(count, work: count, threshold: 1 << 20) { range in
                ff_bias_activate_f32(base + range.lowerBound, range.count, 0, FF_ACTIVATE_HARD_SWISH, 0, -.infinity, .infinity, nil)
            }
        }
    }
}
