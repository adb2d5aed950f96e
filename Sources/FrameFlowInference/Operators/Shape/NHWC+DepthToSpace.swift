import Foundation
import FrameFlow

extension NHWC {
    /// TFLite's `DEPTH_TO_SPACE` (DCR order): `[N, H, W, C]` → `[N, H·b, W·b, C / b²]`, where
    /// output pixel (y·b + i, x·b + j) takes input pixel (y, x)'s channels
    /// `(i·b + j)·C/b² ..< (i·b + j + 1)·C/b²`. Each such run is one contiguous copy.
    static func depthToSpace(_ x: Tensor, blockSize b: Int) throws -> Tensor {
        guard x.shape.count == 4 else { throw ModelError("DEPTH_TO_SPACE needs a 4-D input, not \(x.shape)") }
        let (n, h, w, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        guard b > 0, b < 1 << 16, c % (b * b) == 0 else {
            throw ModelError("DEPTH_TO_SPACE block size \(b) does not divide the \(c) channels of \(x.shape) into b² parts")
        }
        let oc = c / (b * b)
        let shape = [n, h * b, w * b, oc]
        _ = try Checked.elements(shape, "DEPTH_TO_SPACE output")
        let xf = x.asFloats
        var out = Scratch.uninitialized(xf.count)  // every output value is copied from one input value
        if !xf.isEmpty && oc > 0 {
            xf.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    let src = X.baseAddress!, dst = Y.baseAddress!
                    let rowOut = w * b * oc  // floats in one output row
                    for bh in 0..<(n * h) {
                        for i in 0..<b {
                            let yRow = dst + (bh * b + i) * rowOut
                            for xo in 0..<w {
                                let xPixel = src + (bh * w + xo) * c + i * b * oc
                                (yRow + xo * b * oc).update(from: xPixel, count: b * oc)  // j = 0 ..< b, adjacent in both
                            }
                        }
                    }
                }
            }
        }
        return Tensor(shape: shape, floats: out)
    }
}
