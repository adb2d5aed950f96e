import CFrameFlowKernels
import Foundation
import FrameFlow

extension NHWC {
    /// Expanded tensors (floats) from which `TFLiteGraph.fuseExpansions` folds the 1 × 1
    /// convolution into the depthwise one after it: 1 MB, half of this machine's L2, where
    /// the tensor written out and read back starts to come from L3.
    static let expansionFloats = 1 << 18

    /// Rows of expanded input a band holds at most (about 256 KB of floats, kept in L2
    /// between being written and read).
    static let expansionBandFloats = 1 << 16

    /// A depthwise convolution (multiplier 1, no dilation, `g.c` ≥ 8 channels) of the output
    /// of a 1 × 1 convolution `e` of `x` (`c0` channels, the image size of `g`), without that
    /// output as a whole: each thread's output rows go in bands, and for each band the
    /// expanded rows it reads are computed into a buffer (rows the band before computed are
    /// moved, not recomputed), then the depthwise kernel runs over the buffer as the image
    /// (its window shifted to the buffer's first row). Each expanded row is the same matrix
    /// product row the unfused convolution computes, and each depthwise output sums the same
    /// taps in the same order: the results are the unfused ones, bit for bit. `bandFloats`:
    /// the band's input budget (tests make it small for many bands).
    static func expandedDepthwise(
        _ g: Window, expansion e: TFLiteGraph.Expansion, x: UnsafePointer<Float>, c0: Int, w: UnsafePointer<Float>, bias: [Float]?,
        pixels: Bool, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?, bandFloats: Int = expansionBandFloats
    ) {
        let (lo, hi) = clamp ?? (-.infinity, .infinity)
        let rowFloats = g.w * g.c
        // Output rows per band: as many as keep the band's input rows under the budget.
        let bandRows = max(1, (max(bandFloats / rowFloats, g.kh) - g.kh) / g.sh + 1)
        let capacity = (bandRows - 1) * g.sh + g.kh
        var pack = [Float]()
        if pixels {
            pack = Scratch.uninitialized(withUnsafePointer(to: g.kernelWindow(inner: g.innerColumns)) { ff_depthwise_pixels_packed_count($0) })
            pack.withUnsafeMutableBufferPointer { P in
                withUnsafePointer(to: g.kernelWindow(inner: g.innerColumns)) { kp in
                    if let bias {
                        bias.withUnsafeBufferPointer { ff_depthwise_pixels_pack(kp, w, $0.baseAddress, P.baseAddress!) }
                    } else {
                        ff_depthwise_pixels_pack(kp, w, nil, P.baseAddress!)
                    }
                }
            }
        }
        let work = g.oh * g.ow * g.c * (g.kh * g.kw + c0)
        pack.withUnsafeBufferPointer { P in
            (bias ?? []).withUnsafeBufferPointer { B in
                (e.slopes ?? []).withUnsafeBufferPointer { S in
                    let packed = pixels ? P.baseAddress : nil, b = B.isEmpty ? nil : B.baseAddress
                    let epilogue = {
                        var ep = GEMMEpilogue()
                        ep.columnSlope = S.isEmpty ? nil : S.baseAddress
                        return ep
                    }()
                    let expandClamp = NHWC.clampRange(e.activation)
                    Scratch.parallelFor(g.oh, work: work, threshold: memoryBoundSplit) { rows in
                        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity * rowFloats)
                        defer { buffer.deallocate() }
                        // The expanded rows in the buffer: `held.lowerBound` at its start.
                        var held = 0..<0
                        // A worker's products run on it alone (no nested split).
                        Scratch.$parallelism.withValue(nil) {
                            for b0 in stride(from: rows.lowerBound, to: rows.upperBound, by: bandRows) {
                                let b1 = min(b0 + bandRows, rows.upperBound)
                                let first = min(max(0, b0 * g.sh - g.pt), g.h)
                                let need = first..<max(first, min(g.h, (b1 - 1) * g.sh - g.pt + g.kh))
                                if held.contains(need.lowerBound) {
                                    // Keep the rows this band shares with the one before.
                                    let keep = need.lowerBound..<min(held.upperBound, need.upperBound)
                                    memmove(buffer, buffer + (keep.lowerBound - held.lowerBound) * rowFloats, keep.count * rowFloats * 4)
                                    held = keep
                                } else {
                                    held = need.lowerBound..<need.lowerBound
                                }
                                if held.upperBound < need.upperBound {
                                    let fresh = held.upperBound..<need.upperBound
                                    e.filter.apply(
                                        rows: fresh.count * g.w, a: x + fresh.lowerBound * g.w * c0, lda: c0,
                                        c: buffer + (fresh.lowerBound - need.lowerBound) * rowFloats, ldc: g.c, epilogue: epilogue,
                                        clamp: expandClamp)
                                }
                                held = need
                                // The window over the buffer: its rows start at image row `need.lowerBound`.
                                var band = g
                                (band.h, band.pt) = (need.count, g.pt + need.lowerBound)
                                withUnsafePointer(to: band.kernelWindow(inner: g.innerColumns)) { kp in
                                    if let packed {
                                        ff_depthwise_pixels_rows(kp, b0, b1, buffer, packed, y, lo, hi)
                                    } else {
                                        ff_depthwise_rows(kp, b0, b1, buffer, w, b, y, lo, hi)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&pack)
    }
}
