import CFrameFlowKernels
import FrameFlow

/// TFLite builtins on NHWC float tensors, as LiteRT's reference kernels define them: sizes from the
/// file or from tensor values go through `Checked`; what is unsupported is a `ModelError`.
extension NHWC {
    /// The resize builtins' kernels (`TFLiteKernels.table`).
    static let resizeKernels: [TFLiteOperator: TFLiteKernel] = [.resizeBilinear: runResizeBilinear]

    /// RESIZE_BILINEAR to the second input's size; ResizeBilinearOptions' `align_corners` (2) and
    /// `half_pixel_centers` (3).
    static func runResizeBilinear(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let size = try input(1).asInts
        guard size.count == 2, size.allSatisfy({ $0 > 0 && $0 < 1 << 24 }) else { throw ModelError("RESIZE_BILINEAR size \(size)") }
        return try resizeBilinear(
            try input(0), height: Int(size[0]), width: Int(size[1]), alignCorners: try o?.byte(2) ?? 0 != 0,
            halfPixelCenters: try o?.byte(3) ?? 0 != 0)
    }

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
}
