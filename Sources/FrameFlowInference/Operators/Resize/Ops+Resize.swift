import Foundation
import FrameFlow

/// Resize and Upsample: nearest, (multi-)linear and cubic resampling along each axis.
extension Ops {
    /// Resize (opset 10+) and Upsample: nearest, (multi-)linear and cubic modes.
    /// One 1-D resampling pass along `axis`: output index i = Σ weight · input index.
    static func resizeAxis(_ x: [Float], shape: [Int], axis: Int, taps: [[(Int, Float)]]) -> [Float] {
        let outer = shape[..<axis].reduce(1, *), len = shape[axis], inner = shape[(axis + 1)...].reduce(1, *)
        let outLen = taps.count
        // Nearest (every output one input, weight 1): a gather, without a copy call per
        // element when the rows are short (PP-OCR's ×2 upsampling of the last axis: inner 1).
        // It writes every output; the linear taps add to zeros.
        let nearest = taps.allSatisfy { $0.count == 1 && $0[0].1 == 1 } ? taps.map { $0[0].0 } : nil
        var out = nearest != nil ? Scratch.uninitialized(outer * outLen * inner) : Scratch.filled(outer * outLen * inner)
        if out.isEmpty || x.isEmpty { return out }
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                if let nearest {
                    nearest.withUnsafeBufferPointer { N in
                        for o in 0..<outer {
                            let xo = X.baseAddress! + o * len * inner, yo = Y.baseAddress! + o * outLen * inner
                            if inner == 1 {
                                for i in 0..<outLen { yo[i] = xo[N[i]] }
                            } else {
                                for i in 0..<outLen { Microkernel.copy(yo + i * inner, from: xo + N[i] * inner, count: inner) }
                            }
                        }
                    }
                    return
                }
                for o in 0..<outer {
                    let xo = X.baseAddress! + o * len * inner, yo = Y.baseAddress! + o * outLen * inner
                    for (i, t) in taps.enumerated() {
                        let y = yo + i * inner
                        if t.count == 1 && t[0].1 == 1 {
                            y.update(from: xo + t[0].0 * inner, count: inner)
                            continue
                        }
                        for (k, w) in t {
                            let src = xo + k * inner
                            for j in 0..<inner { y[j] += w * src[j] }
                        }
                    }
                }
            }
        }
        return out
    }

    /// `out[p][y][x] = x[p][rows[y]][columns[x]]` for each of `planes` h × w planes: each
    /// output row gathered once (a column doubling as paired stores) and copied where the next
    /// row repeats it (one pass instead of two 1-D passes).
    static func nearest2D(_ x: [Float], planes: Int, h: Int, w: Int, rows: [Int], columns: [Int]) -> [Float] {
        let oh = rows.count, ow = columns.count
        var out = Scratch.uninitialized(planes * oh * ow)
        let doubled = ow == 2 * w && columns.enumerated().allSatisfy { $0.element == $0.offset / 2 }
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                columns.withUnsafeBufferPointer { C in
                    guard let xb = X.baseAddress, let yb = Y.baseAddress else { return }
                    for p in 0..<planes {
                        let xp = xb + p * h * w, yp = yb + p * oh * ow
                        for y in 0..<oh {
                            let yr = yp + y * ow
                            if y > 0 && rows[y] == rows[y - 1] {
                                Microkernel.copy(yr, from: yr - ow, count: ow)
                                continue
                            }
                            let xr = xp + rows[y] * w
                            if doubled {
                                for i in 0..<w {
                                    let v = xr[i]
                                    yr[2 &* i] = v
                                    yr[2 &* i &+ 1] = v
                                }
                            } else {
                                for i in 0..<ow { yr[i] = xr[C[i]] }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Cubic convolution taps (Keys' kernel with coefficient `a`) for source coordinate `s`
    /// on an axis of `length`: the four input indices nearest `s` (on a whole coordinate, the
    /// two below it, it and the one above, as ONNX's reference picks them), indices outside
    /// the axis reading its edge value — or, with `excludeOutside`, weighted zero and the rest
    /// renormalised to sum to one.
    static func cubicTaps(_ s: Float, length: Int, a: Double, excludeOutside: Bool) -> [(Int, Float)] {
        let x = Double(s), whole = x.rounded(.down)
        // The left neighbour and the fraction past it, in (0, 1].
        let left = x == whole ? Int(whole) - 1 : Int(whole)
        var w = keysWeights(x - Double(left), a: a)
        let indices = (0..<4).map { left - 1 + $0 }
        if excludeOutside {
            for k in 0..<4 where indices[k] < 0 || indices[k] >= length { w[k] = 0 }
            let sum = w.reduce(0, +)
            if sum != 0 { w = w.map { $0 / sum } }
        }
        return (0..<4).map { (min(max(indices[$0], 0), length - 1), Float(w[$0])) }
    }

    /// Keys' cubic convolution weights of the four pixels around a point at fraction `r` past
    /// the second of them (pixels at −1 − r, −r, 1 − r, 2 − r from it).
    static func keysWeights(_ r: Double, a: Double) -> [Double] {
        let q = 1 - r
        return [
            ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * q - (a + 3)) * q * q + 1, ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a,
        ]
    }

    static func resize(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try Ops.need(ins, 0)
        let r = x.shape.count
        var scales: [Float]?
        var sizes: [Int]?
        var roi: [Float]?
        if n.opType == "Upsample" {
            scales =
                opset >= 9
                ? ins.count > 1 ? ins[1]?.asFloats : nil
                : {
                    if case .floats(let f)? = n.attributes["scales"] { return f }; return nil
                }()
        } else if opset < 11 {
            scales = ins.count > 1 ? ins[1]?.asFloats : nil
        } else {
            roi = ins.count > 1 ? ins[1]?.asFloats : nil
            if ins.count > 2, let s = ins[2], s.count > 0 { scales = s.asFloats }
            if ins.count > 3, let s = ins[3], s.count > 0 { sizes = s.asInts.map { Int($0) } }
        }
        var axes = try n.ints("axes")?.map { try Ops.axis($0, rank: r, "Resize axis") } ?? Array(0..<r)
        if let s = scales, s.count != axes.count, sizes == nil { throw ModelError("Resize has \(s.count) scales for \(axes.count) axes") }
        if let s = sizes, s.count != axes.count { throw ModelError("Resize has \(s.count) sizes for \(axes.count) axes") }
        if axes.count != r, scales != nil || sizes != nil {
            // Expand per-axis values to every axis.
            var fs = Array(repeating: Float(1), count: r), ss = x.shape
            if let s = scales, s.count == axes.count { for (k, a) in axes.enumerated() { fs[a] = s[k] }; scales = fs }
            if let s = sizes { for (k, a) in axes.enumerated() { ss[a] = s[k] }; sizes = ss }
            axes = Array(0..<r)
        }
        let policy = n.string("keep_aspect_ratio_policy", "stretch")
        if var s = sizes, policy != "stretch" {
            let ratios = (0..<r).map { Float(s[$0]) / Float(x.shape[$0]) }
            let scale = policy == "not_larger" ? ratios.min()! : ratios.max()!
            s = try (0..<r).map { try Checked.int(Double((Float(x.shape[$0]) * scale).rounded()), "Resize size of axis \($0)") }
            sizes = s
            scales = Array(repeating: scale, count: r)
        }
        let outShape: [Int]
        if let sizes {
            outShape = sizes
            if scales == nil || policy == "stretch" { scales = (0..<r).map { Float(sizes[$0]) / Float(x.shape[$0]) } }
        } else if let s = scales, s.count == r {
            // Scales from the model: 1e30 or NaN is an error, not a trapping conversion.
            outShape = try (0..<r).map {
                try Checked.int(Double((Float(x.shape[$0]) * s[$0]).rounded(.down)), "Resize size of axis \($0) (scale \(s[$0]))")
            }
        } else {
            throw ModelError("Resize needs scales or sizes for every axis")
        }
        _ = try Checked.elements(outShape, "Resize output")
        if let d = (0..<r).first(where: { x.shape[$0] == 0 && outShape[$0] > 0 }) {
            throw ModelError("Resize of an empty axis \(d) to \(outShape[d])")
        }
        let mode = n.string("mode", "nearest")
        guard ["nearest", "linear", "bilinear", "trilinear", "cubic"].contains(mode) else {
            throw ModelError("Resize mode '\(mode)' is not implemented (nearest, linear, cubic)")
        }
        let cubicA = Double(n.float("cubic_coeff_a", -0.75)), excludeOutside = n.int("exclude_outside", 0) != 0
        guard n.int("antialias", 0) == 0 else { throw ModelError("Resize antialias is not implemented") }
        let ctm = n.opType == "Upsample" || opset < 11 ? "asymmetric" : n.string("coordinate_transformation_mode", "half_pixel")
        // Upsample and Resize before opset 11 take the floor; later the mode decides.
        let nearestMode = n.opType == "Upsample" || opset < 11 ? "floor" : n.string("nearest_mode", "round_prefer_floor")
        let extrapolation = n.float("extrapolation_value", 0)
        if ctm == "tf_crop_and_resize" && (roi?.count ?? 0) < 2 * r { throw ModelError("Resize tf_crop_and_resize needs a roi of \(2 * r) values") }
        // Source coordinate of output index i on axis d, kept finite and within ±2³⁰ (scales
        // and roi come from the model: NaN or 1e30 must not reach an Int conversion).
        func source(_ i: Int, _ d: Int) -> Float {
            let s = unclampedSource(i, d)
            return s.isNaN ? 0 : min(max(s, -0x1p30), 0x1p30)
        }
        func unclampedSource(_ i: Int, _ d: Int) -> Float {
            // With scales, ONNX measures the resized length unrounded.
            let sc = scales![d], inLen = Float(x.shape[d]), outLen = sizes != nil ? Float(outShape[d]) : inLen * sc
            switch ctm {
            case "asymmetric": return Float(i) / sc
            case "align_corners": return outLen <= 1 ? 0 : Float(i) * (inLen - 1) / (outLen - 1)
            case "pytorch_half_pixel": return outLen > 1 ? (Float(i) + 0.5) / sc - 0.5 : 0
            case "tf_half_pixel_for_nn": return (Float(i) + 0.5) / sc
            case "tf_crop_and_resize":
                let start = roi?[d] ?? 0, end = roi?[d + r] ?? 1
                return outLen > 1 ? start * (inLen - 1) + Float(i) * (end - start) * (inLen - 1) / (outLen - 1) : 0.5 * (start + end) * (inLen - 1)
            case "half_pixel_symmetric":
                let adj = outLen / (sc * inLen)
                let center = inLen / 2, offset = center * (1 - adj)
                return offset + (Float(i) + 0.5) / sc - 0.5
            default: return (Float(i) + 0.5) / sc - 0.5  // half_pixel
            }
        }
        let vals = x.asFloats
        /// The input index nearest-mode resizing takes for output index i on axis d.
        func nearestIndex(_ i: Int, _ d: Int) -> Int {
            let s = source(i, d)
            let k: Int
            switch nearestMode {
            case "floor": k = Int(saturating: s.rounded(.down))
            case "ceil": k = Int(saturating: s.rounded(.up))
            case "round_prefer_ceil": k = Int(saturating: (s + 0.5).rounded(.down))
            default: k = s == s.rounded(.down) + 0.5 ? Int(saturating: s.rounded(.down)) : Int(saturating: s.rounded())
            }
            return min(max(k, 0), x.shape[d] - 1)
        }
        if mode == "nearest" && r >= 3 && ctm != "tf_crop_and_resize"
            && (0..<(r - 2)).allSatisfy({ d in outShape[d] == x.shape[d] && (0..<outShape[d]).allSatisfy { nearestIndex($0, d) == $0 } })
        {
            // Nearest on the last two axes only (PP-OCR's ×2, ×4 and ×8 upsampling): one pass.
            var out = nearest2D(
                vals, planes: x.shape[..<(r - 2)].reduce(1, *), h: x.shape[r - 2], w: x.shape[r - 1],
                rows: (0..<outShape[r - 2]).map { nearestIndex($0, r - 2) }, columns: (0..<outShape[r - 1]).map { nearestIndex($0, r - 1) })
            if !x.isFloat { defer { Scratch.recycle(&out) }; return Tensor(shape: outShape, ints: out.map(toInt64), type: x.type) }
            return Tensor(shape: outShape, floats: out, type: x.type)
        }
        let inStrides = x.strides
        var c = [Int](repeating: 0, count: r)
        // Per-axis taps.
        var taps: [[[(Int, Float)]]] = []  // axis → out index → [(in index, weight)]
        var outside: [[Bool]] = []
        for d in 0..<r {
            var t: [[(Int, Float)]] = []
            var o: [Bool] = []
            for i in 0..<outShape[d] {
                let s = source(i, d)
                let len = x.shape[d]
                o.append(ctm == "tf_crop_and_resize" && (s < 0 || s > Float(len - 1)))
                if mode == "nearest" {
                    t.append([(nearestIndex(i, d), 1)])
                } else if mode == "cubic" {
                    t.append(cubicTaps(s, length: len, a: cubicA, excludeOutside: excludeOutside))
                } else {
                    let sc = min(max(s, 0), Float(len - 1))
                    let lo = Int(saturating: sc.rounded(.down)), hi = min(lo + 1, len - 1)
                    let f = sc - Float(lo)
                    t.append(f == 0 || lo == hi ? [(lo, Float(1))] : [(lo, 1 - f), (hi, f)])
                }
            }
            taps.append(t)
            outside.append(o)
        }
        if !outside.contains(where: { $0.contains(true) }) {
            // No extrapolated points: the taps are separable, so resize one axis at a time
            // (each pass moves whole contiguous rows), skipping axes left as they are.
            var cur = vals, shape = x.shape, passes = 0
            for d in 0..<r
            where !(outShape[d] == shape[d] && taps[d].enumerated().allSatisfy({ $0.element.count == 1 && $0.element[0] == ($0.offset, 1) })) {
                var next = resizeAxis(cur, shape: shape, axis: d, taps: taps[d])
                swap(&cur, &next)
                if passes > 0 { Scratch.recycle(&next) }  // an intermediate pass's array
                passes += 1
                shape[d] = outShape[d]
            }
            if !x.isFloat { return Tensor(shape: outShape, ints: cur.map(toInt64), type: x.type) }
            return Tensor(shape: outShape, floats: cur, type: x.type)
        }
        var out = [Float](repeating: 0, count: outShape.reduce(1, *))
        for k in 0..<out.count {
            var acc: Float = 0
            var isOut = false
            for d in 0..<r where outside[d][c[d]] { isOut = true }
            if isOut {
                out[k] = extrapolation
            } else {
                // Sum over the product of per-axis taps.
                var idx = [Int](repeating: 0, count: r)
                var done = false
                while !done {
                    var off = 0
                    var w: Float = 1
                    for d in 0..<r {
                        let tap = taps[d][c[d]][idx[d]]
                        off += tap.0 * inStrides[d]
                        w *= tap.1
                    }
                    acc += w * vals[off]
                    var d = r - 1
                    while d >= 0 {
                        idx[d] += 1
                        if idx[d] < taps[d][c[d]].count { break }
                        idx[d] = 0
                        d -= 1
                    }
                    if d < 0 { done = true }
                }
                out[k] = acc
            }
            Ops.advance(&c, within: outShape)
        }
        if !x.isFloat { return Tensor(shape: outShape, ints: out.map(toInt64), type: x.type) }
        return Tensor(shape: outShape, floats: out, type: x.type)
    }
}
