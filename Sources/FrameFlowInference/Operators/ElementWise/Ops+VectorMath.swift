import CFrameFlowKernels
import Foundation
import FrameFlow

/// Vectorised element-wise kernels: sums, maxima, eˣ, and binary ops over broadcast arrays.
extension Ops {
    /// The sum of `count` floats, in vector accumulators (`reduce(0, +)` adds one at a time,
    /// each waiting for the last); the kernel runs at the process's `KernelLevel`.
    static func sum(_ p: UnsafePointer<Float>, count: Int) -> Float { ff_sum_f32(p, count) }

    /// The largest of `count` floats (0 when there are none), vectorised like `sum`.
    static func maximum(_ p: UnsafePointer<Float>, count: Int) -> Float {
        typealias V = SIMD8<Float>
        var m = Float.nan
        var i = 0
        if count >= 8 {
            var a = UnsafeRawPointer(p).loadUnaligned(as: V.self)
            i = 8
            while i + 8 <= count {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
                a = a.replacing(with: v, where: v .> a)
                i += 8
            }
            m = a.max()
        }
        while i < count {
            if m.isNaN || p[i] > m { m = p[i] }
            i += 1
        }
        return count == 0 ? 0 : m
    }

    /// eˣ in single precision from operations that vectorise: x = k·ln 2 + r (ln 2 in two
    /// parts, Cody–Waite), eʳ by Cephes' degree-6 polynomial for |r| ≤ ln 2 / 2, 2ᵏ built in
    /// exponent bits (k read from the mantissa of k + 1.5·2²³: a Float → Int conversion
    /// checks its range and stops the loop vectorising). Relative error ≈ 1e-7 against
    /// `Foundation.exp` (tested); ∞ above 88.72, 0 below −87.3 (no subnormal results), NaN
    /// stays NaN. The scalar form of the vector kernel behind `exponential`, and its reference.
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        let c = x < -87.3 ? -87.3 : (x > 88.72 ? 88.72 : x)
        // k = round(c / ln 2) by adding 1.5·2²³ (the float rounds to an integer, ties to
        // even, and k sits in the low mantissa bits) — `rounded` and Float → Int conversions
        // kept the loop scalar.
        let t = c * 1.442_695_04 + 12_582_912
        let k = t - 12_582_912
        let r = c - k * 0.693_359_375 + k * 2.121_944_4e-4
        var p: Float = 1.987_569_15e-4
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_59e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_12e-1
        p = p * r * r + r + 1
        // 2ᵏ as 2ʲ·2ᵏ⁻ʲ (j = ⌊k/2⌋), so that k = 128 (x near the top) and −126 both fit.
        let ki = Int32(bitPattern: t.bitPattern &- 0x4B40_0000), j = ki &>> 1
        let v = p * Float(bitPattern: UInt32(bitPattern: (j &+ 127) &<< 23)) * Float(bitPattern: UInt32(bitPattern: (ki &- j &+ 127) &<< 23))
        return x != x ? x : x > 88.72 ? .infinity : x < -87.3 ? 0 : v
    }

    /// eˣ, or the logistic 1 / (1 + e⁻ˣ), of every value: `ff_exp_f32` / `ff_sigmoid_f32` at
    /// the kernel level, the arithmetic of `exp` (above) in vector lanes.
    static func exponential(_ x: [Float], sigmoid: Bool) -> [Float] {
        var out = Scratch.uninitialized(x.count)
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                guard let xp = X.baseAddress, let yp = Y.baseAddress else { return }
                if sigmoid { ff_sigmoid_f32(xp, yp, X.count) } else { ff_exp_f32(xp, yp, X.count) }
            }
        }
        return out
    }

    static func map(_ x: Tensor, _ f: (Float) -> Float) -> Tensor {
        Tensor(shape: x.shape, floats: Scratch.map(x.asFloats, f), type: x.isFloat ? x.type : .float32)
    }

    /// `f` over two float arrays broadcast to `shape`. The trailing dimensions in which
    /// each side is either contiguous or constant form one inner run, looped without an
    /// offset table (same shapes, a per-channel bias, a scalar: one or few runs).
    static func broadcastFloats<F: FloatBinaryOp>(
        _ x: [Float], _ xs: [Int], _ y: [Float], _ ys: [Int], _ shape: [Int], _ op: F.Type
    ) -> [Float] {
        let f = F.apply
        let total = shape.reduce(1, *)
        if total == 0 { return [] }
        if xs == ys && x.count == total && y.count == total {
            // The same shape (a residual Add): one run, no strides.
            var result = Scratch.uninitialized(total)
            result.withUnsafeMutableBufferPointer { out in
                x.withUnsafeBufferPointer { X in
                    y.withUnsafeBufferPointer { Y in
                        let o = out.baseAddress!, xp = X.baseAddress!, yp = Y.baseAddress!
                        for i in 0..<total { o[i] = f(xp[i], yp[i]) }
                    }
                }
            }
            return result
        }
        let r = shape.count
        let sx = broadcastStrides(xs, rank: r), sy = broadcastStrides(ys, rank: r)
        // Inner run: trailing dims where x's strides are all 0 or all row-major-contiguous, same for y.
        var inner = 1, d = r
        var xConst = true, yConst = true, xCont = true, yCont = true
        while d > 0 {
            let k = d - 1
            let nxConst = xConst && sx[k] == 0, nyConst = yConst && sy[k] == 0
            let nxCont = xCont && sx[k] == inner, nyCont = yCont && sy[k] == inner
            if !(nxConst || nxCont) || !(nyConst || nyCont) { break }
            xConst = nxConst; yConst = nyConst; xCont = nxCont; yCont = nyCont
            inner *= shape[k]
            d -= 1
        }
        if inner == 1 { xConst = true; yConst = true }
        let yRepeats = x.count == total && sy[0..<d].allSatisfy { $0 == 0 }, xRepeats = y.count == total && sx[0..<d].allSatisfy { $0 == 0 }
        if inner > 1 && !xConst && !yConst && (xRepeats || yRepeats) {
            // One operand whole, the other one run repeated (a per-channel scale or bias over
            // NHWC): rows by pointer steps, no offset tables.
            var result = Scratch.uninitialized(total)
            result.withUnsafeMutableBufferPointer { out in
                x.withUnsafeBufferPointer { X in
                    y.withUnsafeBufferPointer { Y in
                        let xp = X.baseAddress!, yp = Y.baseAddress!
                        for row in 0..<(total / inner) {
                            let o = out.baseAddress! + row * inner
                            if xRepeats {
                                let yr = yp + row * inner
                                for i in 0..<inner { o[i] = f(xp[i], yr[i]) }
                            } else {
                                let xr = xp + row * inner
                                for i in 0..<inner { o[i] = f(xr[i], yp[i]) }
                            }
                        }
                    }
                }
            }
            return result
        }
        let outerShape = Array(shape[0..<d])
        let ox = stridedOffsets(outerShape, strides: Array(sx[0..<d])), oy = stridedOffsets(outerShape, strides: Array(sy[0..<d]))
        var result = Scratch.uninitialized(total)
        result.withUnsafeMutableBufferPointer { out in
            x.withUnsafeBufferPointer { X in
                y.withUnsafeBufferPointer { Y in
                    for row in 0..<ox.count {
                        let o = out.baseAddress! + row * inner, xp = X.baseAddress! + ox[row], yp = Y.baseAddress! + oy[row]
                        switch (xConst, yConst) {
                        case (false, false): for i in 0..<inner { o[i] = f(xp[i], yp[i]) }
                        case (false, true): let v = yp[0]; for i in 0..<inner { o[i] = f(xp[i], v) }
                        case (true, false): let v = xp[0]; for i in 0..<inner { o[i] = f(v, yp[i]) }
                        case (true, true): o.update(repeating: f(xp[0], yp[0]), count: inner)
                        }
                    }
                }
            }
        }
        return result
    }
}

/// A float binary op as a type, so that `Ops.broadcastFloats` is specialised per op and its
/// inner loops vectorise (a closure argument is called per element).
protocol FloatBinaryOp { static func apply(_ a: Float, _ b: Float) -> Float }
enum AddOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b } }
enum SubOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a - b } }
enum MulOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a * b } }
enum DivOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b } }
enum PowOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { pow(a, b) } }
enum PReluOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a >= 0 ? a : a * b } }
