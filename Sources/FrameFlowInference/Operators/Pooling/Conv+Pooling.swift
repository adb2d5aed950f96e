import CFrameFlowKernels
import Foundation
import FrameFlow

/// MaxPool and AveragePool on NCHW tensors: window reductions sixteen lanes at a time
/// (`CFrameFlowKernels`' pooling rows).
extension Conv {
    /// The largest of `t[x0..<x0 + k]` clipped to `0..<w` (−∞ when empty).
    @inline(__always)
    static func windowMax(_ t: UnsafePointer<Float>, _ x0: Int, _ k: Int, _ w: Int) -> Float {
        var acc = -Float.infinity
        for ix in Swift.max(x0, 0)..<Swift.max(Swift.max(x0, 0), Swift.min(x0 + k, w)) { let v = t[ix]; acc = v > acc ? v : acc }
        return acc
    }

    /// `t[i]` = the max (or sum) of `rows` rows from `first` (`stride` apart) at column i, for
    /// i in 0..<count (`ff_reduce_rows_f32` at the kernel level: sixteen lanes at a time, the
    /// last block overlapping the one before).
    static func reduceRows(_ t: UnsafeMutablePointer<Float>, _ first: UnsafePointer<Float>, rows: Int, stride: Int, count: Int, max isMax: Bool) {
        ff_reduce_rows_f32(t, first, rows, stride, count, isMax ? 1 : 0)
    }

    /// MaxPool with its second output, Indices: for each output, the flat index of the input
    /// value it took, counted over the whole N × C × spatial input without padding, the
    /// spatial part in row-major order (`storage_order` 0) or column-major (1). Ties keep the
    /// first value in window order.
    static func maxPoolWithIndices(_ n: ONNXNode, _ x: Tensor) throws -> (Tensor, Tensor) {
        let columnMajor = n.int("storage_order", 0) != 0
        let (g0, g) = try poolGeometry(n, x)
        let (D, H, W) = (g.spatialIn[0], g.spatialIn[1], g.spatialIn[2])
        let (OD, OH, OW) = (g.spatialOut[0], g.spatialOut[1], g.spatialOut[2])
        let nc = x.shape[0] * x.shape[1], xf = x.asFloats
        var out = [Float](repeating: 0, count: nc * OD * OH * OW), idx = [Int64](repeating: 0, count: out.count)
        for c in 0..<nc {
            for od in 0..<OD {
                for oh in 0..<OH {
                    for ow in 0..<OW {
                        var best = -Float.infinity, at = -1
                        for kd in 0..<g.kernel[0] {
                            let id = od * g.strides[0] - g.padBegin[0] + kd * g.dilations[0]
                            if id < 0 || id >= D { continue }
                            for kh in 0..<g.kernel[1] {
                                let ih = oh * g.strides[1] - g.padBegin[1] + kh * g.dilations[1]
                                if ih < 0 || ih >= H { continue }
                                for kw in 0..<g.kernel[2] {
                                    let iw = ow * g.strides[2] - g.padBegin[2] + kw * g.dilations[2]
                                    if iw < 0 || iw >= W { continue }
                                    let v = xf[((c * D + id) * H + ih) * W + iw]
                                    if at < 0 || v > best {
                                        best = v
                                        at = columnMajor ? id + (ih + iw * H) * D : (id * H + ih) * W + iw
                                    }
                                }
                            }
                        }
                        let o = ((c * OD + od) * OH + oh) * OW + ow
                        out[o] = best
                        idx[o] = at < 0 ? -1 : Int64(c * D * H * W + at)
                    }
                }
            }
        }
        let shape = [x.shape[0], x.shape[1]] + g0.spatialOut
        let values = x.isFloat ? Tensor(shape: shape, floats: out, type: x.type) : Tensor(shape: shape, ints: out.map(toInt64), type: x.type)
        return (values, Tensor(shape: shape, ints: idx))
    }

    static func pool(_ n: ONNXNode, _ x: Tensor, max isMax: Bool) throws -> Tensor {
        let (g0, g) = try poolGeometry(n, x)
        let countPad = n.int("count_include_pad", 0) != 0
        let nc = x.shape[0] * x.shape[1]
        let (D, H, W) = (g.spatialIn[0], g.spatialIn[1], g.spatialIn[2])
        let (OD, OH, OW) = (g.spatialOut[0], g.spatialOut[1], g.spatialOut[2])
        var out = Scratch.filled(nc * OD * OH * OW)
        let xf = x.asFloats
        if D == 1 && g.kernel[0] == 1 && g.dilations[1] == 1 && g.dilations[2] == 1 && !out.isEmpty {
            // 2-D windows without dilation: each output row first reduces its window's input
            // rows into one row (a vectorised pass), then each output reduces its columns of
            // that row: KH + KW steps per output instead of KH × KW.
            let (KH, KW, sh, sw, pt, pl) = (g.kernel[1], g.kernel[2], g.strides[1], g.strides[2], g.padBegin[1], g.padBegin[2])
            let (pb, pr) = (g.padEnd[1], g.padEnd[2])
            // Slack for the kernels' 16-wide loads, −∞ so that a max window past the row's end
            // takes the values inside it.
            var rowBuffer = [Float](repeating: -.infinity, count: W + 32)
            // Outputs whose window lies inside the row: with stride 2 and a 2- or 3-wide max
            // window, eight at a time (even and odd lanes of 16 loaded floats).
            let inner = Conv.stridedRange(count: OW, stride: sw, offset: -pl, limit: W).clamped(
                to: Conv.stridedRange(count: OW, stride: sw, offset: KW - 1 - pl, limit: W))
            let vectorised = isMax && sw == 2 && (KW == 2 || KW == 3)
            xf.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    rowBuffer.withUnsafeMutableBufferPointer { T in
                        let t = T.baseAddress!
                        for c in 0..<nc {
                            let xc = X.baseAddress! + c * H * W
                            for oy in 0..<OH {
                                let y0 = oy * sh - pt
                                let ys = max(y0, 0), ye = min(y0 + KH, H)
                                let padRows = min(y0 + KH, H + pb) - max(y0, -pt)
                                if ys < ye { reduceRows(t, xc + ys * W, rows: ye - ys, stride: W, count: W, max: isMax) }
                                var ox = 0
                                if vectorised && ys < ye {
                                    // Scalar up to the first window that starts inside the row, then
                                    // `ff_max_pairs_f32` to the end: windows past the row's end read
                                    // the −∞ slack after it.
                                    while ox < min(inner.lowerBound, OW) { Y[(c * OH + oy) * OW + ox] = windowMax(t, ox * sw - pl, KW, W); ox += 1 }
                                    ff_max_pairs_f32(t + ox * 2 - pl, OW - ox, KW == 3 ? 1 : 0, Y.baseAddress! + (c * OH + oy) * OW + ox)
                                    continue
                                }
                                for ox in 0..<OW {
                                    let x0 = ox * sw - pl
                                    let xs = max(x0, 0), xe = min(x0 + KW, W)
                                    var acc: Float = isMax ? -.infinity : 0
                                    if ys < ye && xs < xe {
                                        if isMax { acc = windowMax(t, x0, KW, W) } else { for ix in xs..<xe { acc += t[ix] } }
                                    }
                                    if !isMax {
                                        let n = countPad ? padRows * (min(x0 + KW, W + pr) - max(x0, -pl)) : (ye - ys) * (xe - xs)
                                        acc /= Float(max(n, 1))
                                    }
                                    Y[(c * OH + oy) * OW + ox] = acc
                                }
                            }
                        }
                    }
                }
            }
            if !x.isFloat { return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, ints: out.map(toInt64), type: x.type) }
            return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, floats: out)
        }
        for c in 0..<nc {
            for od in 0..<OD {
                for oh in 0..<OH {
                    for ow in 0..<OW {
                        var acc: Float = isMax ? -.infinity : 0
                        var count = 0, padCount = 0
                        for kd in 0..<g.kernel[0] {
                            let id = od * g.strides[0] - g.padBegin[0] + kd * g.dilations[0]
                            for kh in 0..<g.kernel[1] {
                                let ih = oh * g.strides[1] - g.padBegin[1] + kh * g.dilations[1]
                                for kw in 0..<g.kernel[2] {
                                    let iw = ow * g.strides[2] - g.padBegin[2] + kw * g.dilations[2]
                                    let inPadded =
                                        id >= -g.padBegin[0] && id < D + g.padEnd[0] && ih >= -g.padBegin[1] && ih < H + g.padEnd[1]
                                        && iw >= -g.padBegin[2] && iw < W + g.padEnd[2]
                                    if id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W {
                                        if inPadded { padCount += 1 }
                                        continue
                                    }
                                    let v = xf[((c * D + id) * H + ih) * W + iw]
                                    if isMax { acc = max(acc, v) } else { acc += v }
                                    count += 1
                                }
                            }
                        }
                        out[((c * OD + od) * OH + oh) * OW + ow] = isMax ? acc : acc / Float(countPad ? count + padCount : max(count, 1))
                    }
                }
            }
        }
        if !x.isFloat { return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, ints: out.map(toInt64), type: x.type) }
        return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, floats: out)
    }
}
