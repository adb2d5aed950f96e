import Foundation
import FrameFlow

extension NHWC {
    /// Depthwise convolution (multiplier 1, no dilation, any stride) of one NHWC image with
    /// at least 8 channels and any filter size — the 5 × 5 filters of MediaPipe's palm
    /// detector — as `depthwise3x3` does it for 3 × 3: 8 channels at a time, four output
    /// columns with their own accumulators, each tap's weight vector loaded once for the
    /// four. The last channel block overlaps the one before when the channel count is not a
    /// multiple of 8 (channels are independent: the overlap writes the same values twice).
    /// Rows of the filter outside the image are skipped; columns outside it are handled at
    /// the borders tap by tap. Bias and a clamp activation are applied before the store.
    @inline(never)
    static func depthwiseBlocks(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?) {
        typealias V = SIMD8<Float>
        let c = g.c, kw = g.kw, sc = g.sw * c
        let lo = V(repeating: clamp?.0 ?? -.infinity), hi = V(repeating: clamp?.1 ?? .infinity)
        // Output columns whose input columns under every filter column lie inside the image.
        let inner = g.validColumns(kx: 0).clamped(to: g.validColumns(kx: kw - 1))
        @inline(__always) func ld(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let blocks = (c + 7) / 8
        Scratch.parallelFor(g.oh, work: g.oh * g.ow * c * g.kh * kw, threshold: Self.memoryBoundSplit) { rows in
            for oy in rows {
                let iy0 = oy * g.sh - g.pt
                let kys = max(0, -iy0)..<min(g.kh, g.h - iy0)
                for blk in 0..<blocks {
                    let ch = min(blk * 8, c - 8)
                    let b0 = bias.map { b in b.withUnsafeBufferPointer { ld($0.baseAddress! + ch) } } ?? V()
                    let yr = y + oy * g.ow * c + ch
                    var ox = inner.lowerBound
                    while ox + 4 <= inner.upperBound {
                        var a0 = b0, a1 = b0, a2 = b0, a3 = b0
                        for ky in kys {
                            let xr = x + ((iy0 + ky) * g.w + ox * g.sw - g.pl) * c + ch, wr = w + ky * kw * c + ch
                            for kx in 0..<kw {
                                let wv = ld(wr + kx * c), xp = xr + kx * c
                                a0.addProduct(ld(xp), wv)
                                a1.addProduct(ld(xp + sc), wv)
                                a2.addProduct(ld(xp + 2 * sc), wv)
                                a3.addProduct(ld(xp + 3 * sc), wv)
                            }
                        }
                        let yp = UnsafeMutableRawPointer(yr + ox * c), step = c * 4
                        yp.storeBytes(of: Microkernel.clamp(a0, lo, hi), as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a1, lo, hi), toByteOffset: step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a2, lo, hi), toByteOffset: 2 * step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a3, lo, hi), toByteOffset: 3 * step, as: V.self)
                        ox += 4
                    }
                    // The columns left over and the border columns, tap by tap.
                    let done = inner.lowerBound..<(inner.lowerBound + inner.count / 4 * 4)
                    for ox in 0..<g.ow where !done.contains(ox) {
                        var a = b0
                        for ky in kys {
                            let xr = x + (iy0 + ky) * g.w * c + ch, wr = w + ky * kw * c + ch
                            for kx in 0..<kw {
                                let ix = ox * g.sw - g.pl + kx
                                if ix < 0 || ix >= g.w { continue }
                                a.addProduct(ld(xr + ix * c), ld(wr + kx * c))
                            }
                        }
                        UnsafeMutableRawPointer(yr + ox * c).storeBytes(of: Microkernel.clamp(a, lo, hi), as: V.self)
                    }
                }
            }
        }
    }
}
