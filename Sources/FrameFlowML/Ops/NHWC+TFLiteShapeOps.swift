import CFrameFlowKernels
import Foundation
import FrameFlow

/// PRELU, MEAN, RESIZE_BILINEAR and STRIDED_SLICE as LiteRT's reference kernels define
/// them (MediaPipe's face landmark, hand landmark and palm detection models use them).
/// Every size read from the file or computed from a tensor's values goes through `Checked`;
/// what these kernels do not support is a `ModelError`.
extension NHWC {
    // MARK: PRELU

    /// `x < 0 ? x · alpha : x`, alpha broadcast to x's shape. A per-channel alpha (every
    /// dimension 1 but the last, which is x's last: the face and palm models' `[1, 1, C]`)
    /// runs eight channels at a time; any other broadcast goes through `Ops.elementwise`.
    static func prelu(_ x: Tensor, alpha: Tensor) throws -> Tensor {
        guard x.isFloat, alpha.isFloat else { throw ModelError("PRELU needs float input and alpha, not \(x.type) and \(alpha.type)") }
        let c = x.shape.last ?? 1
        let perChannel =
            !x.shape.isEmpty && alpha.shape.count <= x.shape.count && alpha.shape.last == c
            && alpha.shape.dropLast().allSatisfy { $0 == 1 } && alpha.floats.count == c && x.floats.count == x.count
        guard perChannel, c > 0 else {
            let y = try Ops.elementwise("PRelu", x, alpha)
            guard y.shape == x.shape else { throw ModelError("PRELU alpha \(alpha.shape) would broadcast input \(x.shape) to \(y.shape)") }
            return y
        }
        var out = Scratch.uninitialized(x.count)
        let rows = x.count / c
        x.floats.withUnsafeBufferPointer { X in
            alpha.floats.withUnsafeBufferPointer { A in
                out.withUnsafeMutableBufferPointer { Y in
                    preluRows(X.baseAddress!, alpha: A.baseAddress!, rows: rows, channels: c, Y.baseAddress!)
                }
            }
        }
        return Tensor(shape: x.shape, floats: out)
    }

    /// PReLU over `rows` rows of `c` channels with one slope per channel (`ff_prelu_rows_f32`
    /// at the kernel level): eight lanes per step, the channels after the last whole block one
    /// by one. `y` may be `x`.
    static func preluRows(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, rows: Int, channels c: Int, _ y: UnsafeMutablePointer<Float>) {
        ff_prelu_rows_f32(x, alpha, rows, c, y)
    }

    // MARK: MEAN

    /// The mean over the axes in `axes` (negative counts from the end; repeats count once),
    /// dropping them unless `keepDims`. The spatial mean of an NHWC tensor (axes 1 and 2:
    /// the hand landmark model's global pooling) sums channel vectors row by row.
    static func mean(_ x: Tensor, axes rawAxes: [Int64], keepDims: Bool) throws -> Tensor {
        guard x.isFloat, x.floats.count == x.count else { throw ModelError("MEAN needs a float input, not \(x.type)") }
        let r = x.shape.count
        let axes = Set(try rawAxes.map { try Ops.axis($0, rank: r, "MEAN axis") })
        let kept = x.shape.enumerated().map { axes.contains($0.offset) ? 1 : $0.element }
        let shape = keepDims ? kept : x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        let n = axes.reduce(1) { $0 * x.shape[$1] }
        if axes.isEmpty { return Tensor(shape: x.shape, floats: x.floats) }
        if r == 4 && axes == [1, 2] && n > 0 {
            let (b, c) = (x.shape[0], x.shape[3])
            var out = Scratch.filled(b * c, 0)
            let scale = 1 / Float(n)
            x.floats.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    for i in 0..<b {
                        let y = Y.baseAddress! + i * c
                        for p in 0..<n {
                            let xr = X.baseAddress! + (i * n + p) * c
                            for ch in 0..<c { y[ch] += xr[ch] }
                        }
                        for ch in 0..<c { y[ch] *= scale }
                    }
                }
            }
            return Tensor(shape: shape, floats: out)
        }
        var y = Ops.reduce(x, axes: axes.sorted(), keep: true, max: false)
        y.shape = shape
        return y
    }

    // MARK: RESIZE_BILINEAR

    /// Bilinear resizing of an NHWC float tensor to `height × width`, with TFLite's source
    /// coordinates: `scale = in / out` (with `alignCorners`, `(in − 1) / (out − 1)` when
    /// out > 1), the source `(o + ½) · scale − ½` with `halfPixelCenters`, else `o · scale`;
    /// the lower tap `max(⌊s⌋, 0)`, the upper `min(⌈s⌉, in − 1)`, weighted by `s − lower`.
    static func resizeBilinear(_ x: Tensor, height oh: Int, width ow: Int, alignCorners: Bool, halfPixelCenters: Bool) throws -> Tensor {
        guard x.isFloat, x.shape.count == 4, x.floats.count == x.count else {
            throw ModelError("RESIZE_BILINEAR needs a 4-D float input, not \(x.type) \(x.shape)")
        }
        guard !(alignCorners && halfPixelCenters) else { throw ModelError("RESIZE_BILINEAR: align_corners and half_pixel_centers are both set") }
        guard oh > 0, ow > 0 else { throw ModelError("RESIZE_BILINEAR to \(oh) × \(ow)") }
        let (b, h, w, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        guard h > 0, w > 0 || b * c == 0 else { throw ModelError("RESIZE_BILINEAR of an empty image \(x.shape)") }
        let total = try Checked.elements([b, oh, ow, c], "RESIZE_BILINEAR output")
        func taps(_ outLen: Int, _ inLen: Int) -> [(lo: Int, hi: Int, t: Float)] {
            let scale = alignCorners && outLen > 1 ? Float(inLen - 1) / Float(outLen - 1) : Float(inLen) / Float(outLen)
            return (0..<outLen).map { o in
                let s = halfPixelCenters ? (Float(o) + 0.5) * scale - 0.5 : Float(o) * scale
                let lo = max(Int(saturating: s.rounded(.down)), 0), hi = min(Int(saturating: s.rounded(.up)), inLen - 1)
                return (lo, hi, s - Float(lo))
            }
        }
        var out = Scratch.uninitialized(total)
        if total == 0 { return Tensor(shape: [b, oh, ow, c], floats: out) }
        let rows = taps(oh, h), cols = taps(ow, w)
        let lo = cols.map(\.lo), hi = cols.map(\.hi), t = cols.map(\.t)
        x.floats.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                for i in 0..<b {
                    let xb = X.baseAddress! + i * h * w * c
                    for (oy, ry) in rows.enumerated() {
                        // A row at a time in C (`ff_resize_bilinear_row_f32`): the channels at the
                        // level's vector width, not the SSE2 this module compiles to.
                        let top = xb + ry.lo * w * c, bottom = xb + ry.hi * w * c
                        ff_resize_bilinear_row_f32(top, bottom, lo, hi, t, ry.t, ow, c, Y.baseAddress! + (i * oh + oy) * ow * c)
                    }
                }
            }
        }
        return Tensor(shape: [b, oh, ow, c], floats: out)
    }

    // MARK: STRIDED_SLICE

    /// STRIDED_SLICE's masks (`StridedSliceOptions`), one bit per entry of begin/end/strides.
    struct SliceMasks {
        var begin = 0, end = 0, ellipsis = 0, newAxis = 0, shrinkAxis = 0
        /// `end` counts from `begin` (end = begin + end).
        var offset = false
    }

    /// TFLite's strided slice: entry i of `begin`/`end`/`strides` applies to one input
    /// dimension, except under the ellipsis bit (as many whole dimensions as the entries
    /// leave over) and new-axis bits (a new dimension of 1). A masked begin/end is the
    /// whole range in the stride's direction; negative indices count from the end and are
    /// clamped to the dimension; a shrink bit takes the one element at begin, which must be
    /// inside the dimension, and drops it. Entries after the last cover whole dimensions.
    static func stridedSlice(_ x: Tensor, begin: [Int64], end: [Int64], strides: [Int64], masks m: SliceMasks) throws -> Tensor {
        let n = begin.count, r = x.shape.count
        guard end.count == n, strides.count == n else {
            throw ModelError("STRIDED_SLICE begin, end and strides have \(n), \(end.count) and \(strides.count) entries")
        }
        guard n <= 32, r <= 8 else { throw ModelError("STRIDED_SLICE of rank \(r) with \(n) entries: at most rank 8 and 32 entries") }
        func bit(_ mask: Int, _ i: Int) -> Bool { mask >> i & 1 == 1 }
        let ellipses = (0..<n).filter { bit(m.ellipsis, $0) }
        guard ellipses.count <= 1 else { throw ModelError("STRIDED_SLICE has more than one ellipsis bit (\(m.ellipsis))") }
        // Per input dimension: (start, count, step), and whether the output keeps it; new
        // axes are output dimensions of 1 that read no input dimension.
        struct Axis { var start = 0, count = 0, step = 1, keep = true }
        var axes: [Axis] = [], outShape: [Int] = []
        let consuming = (0..<n).filter { !bit(m.ellipsis, $0) && !bit(m.newAxis, $0) }.count
        guard consuming <= r else { throw ModelError("STRIDED_SLICE has \(consuming) index entries for rank \(r)") }
        func whole(_ d: Int) {
            axes.append(Axis(start: 0, count: x.shape[d], step: 1))
            outShape.append(x.shape[d])
        }
        for i in 0..<n {
            if bit(m.ellipsis, i) {
                for _ in 0..<(r - consuming) { whole(axes.count) }
                continue
            }
            if bit(m.newAxis, i) {
                outShape.append(1)
                continue
            }
            let d = axes.count, size = x.shape[d]
            let s = strides[i]
            guard s != 0, s > Int64(Int32.min), s <= Int64(Int32.max) else { throw ModelError("STRIDED_SLICE stride \(s) on axis \(d)") }
            guard abs(begin[i]) < 1 << 40, abs(end[i]) < 1 << 40 else {
                throw ModelError("STRIDED_SLICE begin \(begin[i]) / end \(end[i]) on axis \(d) out of range")
            }
            var b = begin[i], e = m.offset ? begin[i] + end[i] : end[i]
            let size64 = Int64(size)
            if bit(m.shrinkAxis, i) {
                if bit(m.begin, i) { b = s > 0 ? 0 : size64 - 1 }
                let k = b < 0 ? b + size64 : b
                guard k >= 0, k < size64 else { throw ModelError("STRIDED_SLICE shrinks axis \(d) of \(size) at index \(b)") }
                axes.append(Axis(start: Int(k), count: 1, step: 1, keep: false))
                continue
            }
            let (lo, hi) = s > 0 ? (Int64(0), size64) : (Int64(-1), size64 - 1)
            if bit(m.begin, i) { b = s > 0 ? lo : hi } else { b = min(max(b < 0 ? b + size64 : b, lo), hi) }
            if bit(m.end, i) { e = s > 0 ? hi : lo } else { e = min(max(e < 0 ? e + size64 : e, lo), hi) }
            let span = s > 0 ? e - b : b - e, step = abs(s)
            let count = span <= 0 ? 0 : Int((span + step - 1) / step)
            axes.append(Axis(start: Int(b), count: count, step: Int(s)))
            outShape.append(count)
        }
        while axes.count < r { whole(axes.count) }
        let total = try Checked.elements(outShape, "STRIDED_SLICE output")
        // Gather: the input offset of each output element, the last axis innermost.
        let inStrides = x.strides
        var offsets = [Int](repeating: 0, count: total)
        if total > 0 {
            var index = [Int](repeating: 0, count: r)
            for k in 0..<total {
                var o = 0
                for d in 0..<r { o += (axes[d].start + index[d] * axes[d].step) * inStrides[d] }
                offsets[k] = o
                var d = r - 1
                while d >= 0 {
                    index[d] += 1
                    if index[d] < axes[d].count { break }
                    index[d] = 0
                    d -= 1
                }
            }
        }
        if x.isFloat {
            guard x.floats.count == x.count else { throw ModelError("STRIDED_SLICE input holds \(x.floats.count) values for \(x.shape)") }
            return Tensor(shape: outShape, floats: offsets.map { x.floats[$0] }, type: x.type)
        }
        guard x.ints.count == x.count else { throw ModelError("STRIDED_SLICE input holds \(x.ints.count) values for \(x.shape)") }
        return Tensor(shape: outShape, ints: offsets.map { x.ints[$0] }, type: x.type)
    }
}
