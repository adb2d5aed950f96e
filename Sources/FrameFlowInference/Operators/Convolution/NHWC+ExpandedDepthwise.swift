import CFrameFlowKernels
import Foundation
import FrameFlow

extension NHWC {
    /// Tensors (floats) from which `TFLiteGraph.fuseExpansions` and `fuseProjections` fold a
    /// 1 × 1 convolution into the depthwise one beside it: 1 MB, half of this machine's L2,
    /// where a tensor written out and read back starts to come from L3.
    static let expansionFloats = 1 << 18

    /// The floats a band's buffers hold at most (about 256 KB, kept in L2 between being
    /// written and read).
    static let expansionBandFloats = 1 << 16

    /// Whether a depthwise convolution (undilated, 8 or more channels) runs `depthwisePixels`
    /// rather than `depthwiseBlocks`: filters narrower than 5, 5 × 5 at stride 1 with the
    /// 8-lane kernels (twice as fast there on the small images of the landmark models, whose
    /// border columns the channel blocks sum one by one), and with 16 lanes on outputs 20 or
    /// more wide (palm detection's 96² to 24², the hand model's 28²: 15–40 % faster). Else the
    /// channel blocks: with 16 lanes their eight columns per step reuse each weight vector
    /// eight times (7² and 14² outputs: the pixel kernel's border columns dominate there).
    static func depthwiseTakesPixels(kh: Int, kw: Int, sw: Int, ow: Int) -> Bool {
        kh <= 8 && (kw < 5 || kw == 5 && (Microkernel.wide ? ow >= 20 : sw == 1))
    }

    /// The channels of `residual` added to an `output`-shaped NHWC result (0 without one): a
    /// float tensor of the output's shape but for fewer or as many channels, and `usable`;
    /// else a `ModelError` naming both shapes.
    static func residualChannels(_ residual: Tensor?, output: [Int], usable: Bool = true) throws -> Int {
        guard let r = residual else { return 0 }
        let rc = r.shape.last ?? 0
        let shape = Array(output.prefix(3)) + [rc]
        guard usable, r.isFloat, output.count == 4, r.shape == shape, r.floats.count == shape.reduce(1, *), rc <= output[3] else {
            throw ModelError("residual \(r.shape) does not fit the output \(output)")
        }
        return rc
    }

    /// A DEPTHWISE_CONV_2D with 1 × 1 convolutions folded in at load (`op.expansion`,
    /// `op.projection`) over window `g`: `x` the expansion's input, or the depthwise input.
    static func runBanded(
        _ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, _ g: Window, x: Tensor, weights w: Tensor, bias: [Float]?,
        clamp: (Float, Float)?
    ) throws -> Tensor {
        let oc = op.projection?.filter.outputs ?? g.c
        let residual = try op.projection?.residual.map { try input($0) }
        let rc = try residualChannels(residual, output: [1, g.oh, g.ow, oc])
        var out = Scratch.uninitialized(g.oh * g.ow * oc)
        let xf = x.asFloats, wf = w.asFloats, rf = residual?.floats ?? []
        guard wf.count == g.kh * g.kw * g.c, xf.count == g.h * g.w * (op.expansion?.filter.k ?? g.c) else {
            throw ModelError("filter \(w.shape) or input \(x.shape) does not fit the depthwise window")
        }
        let pixels = depthwiseTakesPixels(kh: g.kh, kw: g.kw, sw: g.sw, ow: g.ow)
        xf.withUnsafeBufferPointer { X in
            wf.withUnsafeBufferPointer { W in
                rf.withUnsafeBufferPointer { R in
                    (op.projection?.slopes ?? []).withUnsafeBufferPointer { S in
                        out.withUnsafeMutableBufferPointer { Y in
                            let projection = op.projection.map { p in
                                BandProjection(
                                    filter: p.filter, slopes: S.isEmpty ? nil : S.baseAddress, clamp: NHWC.clampRange(p.activation),
                                    residual: rc > 0 ? R.baseAddress : nil, residualChannels: rc)
                            }
                            bandedDepthwise(
                                g, expansion: op.expansion, projection: projection, x: X.baseAddress!, c0: op.expansion?.filter.k ?? g.c,
                                w: W.baseAddress!, bias: bias, pixels: pixels, y: Y.baseAddress!, clamp: clamp)
                        }
                    }
                }
            }
        }
        return Tensor(shape: [1, g.oh, g.ow, oc], floats: out)
    }

    /// A 1 × 1 convolution applied to the depthwise output band by band: its filter, PRELU
    /// slopes (readable to a multiple of 16), clamp, and a residual (`residualChannels` per
    /// pixel, the rest zero) added before them.
    struct BandProjection {
        var filter: PackedFilter
        var slopes: UnsafePointer<Float>?
        var clamp: (Float, Float)?
        var residual: UnsafePointer<Float>?
        var residualChannels = 0
    }

    /// A depthwise convolution (multiplier 1, no dilation, `g.c` ≥ 8 channels) with the 1 × 1
    /// convolutions beside it folded in, without their tensors as a whole: each thread's output
    /// rows go in bands. With `expansion`, `x` (`c0` channels) is the expansion's input and the
    /// expanded rows a band reads are computed into a buffer (rows the band before computed are
    /// moved, not recomputed); with `projection`, the band's depthwise rows go to a buffer and
    /// are multiplied from there into `y` (`projection.filter.outputs` channels). The depthwise
    /// kernel runs over the band as its image, its window shifted to the band's first rows.
    /// Each matrix-product row is the one the unfused convolution computes and each depthwise
    /// output sums the same taps in the same order: the results are the unfused ones, bit for
    /// bit. `bandFloats`: the band buffers' budget (tests make it small for many bands).
    static func bandedDepthwise(
        _ g: Window, expansion e: TFLiteGraph.Expansion?, projection p: BandProjection?, x: UnsafePointer<Float>, c0: Int,
        w: UnsafePointer<Float>, bias: [Float]?, pixels: Bool, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?,
        bandFloats: Int = expansionBandFloats
    ) {
        let (lo, hi) = clamp ?? (-.infinity, .infinity)
        let rowFloats = g.w * g.c, outFloats = g.ow * g.c, oc = p?.filter.outputs ?? g.c
        // Output rows per band: as many as keep each band buffer under the budget.
        let byInput = e == nil ? g.oh : (max(bandFloats / rowFloats, g.kh) - g.kh) / g.sh + 1
        let bandRows = max(1, min(byInput, p == nil ? g.oh : bandFloats / outFloats))
        let capacity = (bandRows - 1) * g.sh + g.kh
        let inner = g.innerColumns
        var pack = pixels ? packDepthwisePixels(g.kernelWindow(inner: inner), w: w, bias: bias) : []
        let work = g.oh * g.ow * g.c * (g.kh * g.kw + (e == nil ? 0 : c0) + (p == nil ? 0 : oc))
        pack.withUnsafeBufferPointer { P in
            (bias ?? []).withUnsafeBufferPointer { B in
                (e?.slopes ?? []).withUnsafeBufferPointer { S in
                    let packed = pixels ? P.baseAddress : nil, b = B.isEmpty ? nil : B.baseAddress
                    let expandSlopes = S.isEmpty ? nil : S.baseAddress, expandClamp = e.flatMap { NHWC.clampRange($0.activation) }
                    Scratch.parallelFor(g.oh, work: work, threshold: memoryBoundSplit) { rows in
                        let expanded = e == nil ? nil : UnsafeMutablePointer<Float>.allocate(capacity: capacity * rowFloats)
                        let middle = p == nil ? nil : UnsafeMutablePointer<Float>.allocate(capacity: bandRows * outFloats)
                        defer {
                            expanded?.deallocate()
                            middle?.deallocate()
                        }
                        // The expanded rows in the buffer: `held.lowerBound` at its start.
                        var held = 0..<0
                        // A worker's products run on it alone (no nested split).
                        Scratch.$parallelism.withValue(nil) {
                            for b0 in stride(from: rows.lowerBound, to: rows.upperBound, by: bandRows) {
                                let b1 = min(b0 + bandRows, rows.upperBound)
                                let first = min(max(0, b0 * g.sh - g.pt), g.h)
                                let need = first..<max(first, min(g.h, (b1 - 1) * g.sh - g.pt + g.kh))
                                var source = x + need.lowerBound * rowFloats
                                if let e, let expanded {
                                    if held.contains(need.lowerBound) {
                                        // Keep the rows this band shares with the one before.
                                        let keep = need.lowerBound..<min(held.upperBound, need.upperBound)
                                        memmove(expanded, expanded + (keep.lowerBound - held.lowerBound) * rowFloats, keep.count * rowFloats * 4)
                                        held = keep
                                    } else {
                                        held = need.lowerBound..<need.lowerBound
                                    }
                                    if held.upperBound < need.upperBound {
                                        let fresh = held.upperBound..<need.upperBound
                                        var ep = GEMMEpilogue()
                                        ep.columnSlope = expandSlopes
                                        e.filter.apply(
                                            rows: fresh.count * g.w, a: x + fresh.lowerBound * g.w * c0, lda: c0,
                                            c: expanded + (fresh.lowerBound - need.lowerBound) * rowFloats, ldc: g.c, epilogue: ep,
                                            clamp: expandClamp)
                                    }
                                    held = need
                                    source = UnsafePointer(expanded)
                                }
                                // The window over the band: its image rows start at `need.lowerBound`,
                                // its output rows at b0.
                                var band = g
                                (band.h, band.oh, band.pt) = (need.count, b1 - b0, g.pt + need.lowerBound - b0 * g.sh)
                                let target = middle ?? y + b0 * outFloats
                                withUnsafePointer(to: band.kernelWindow(inner: inner)) { kp in
                                    if let packed {
                                        ff_depthwise_pixels_rows(kp, 0, b1 - b0, source, packed, target, lo, hi)
                                    } else {
                                        ff_depthwise_rows(kp, 0, b1 - b0, source, w, b, target, lo, hi)
                                    }
                                }
                                if let p, let middle {
                                    var ep = GEMMEpilogue()
                                    ep.columnSlope = p.slopes
                                    if let r = p.residual {
                                        ep.residual = r + b0 * g.ow * p.residualChannels
                                        (ep.residualStride, ep.residualColumns) = (p.residualChannels, p.residualChannels)
                                    }
                                    p.filter.apply(
                                        rows: (b1 - b0) * g.ow, a: middle, lda: g.c, c: y + b0 * g.ow * oc, ldc: oc, epilogue: ep, clamp: p.clamp)
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
