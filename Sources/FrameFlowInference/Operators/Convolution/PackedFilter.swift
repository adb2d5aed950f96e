import Foundation
import FrameFlow

/// A filter stored as output channels × K (TFLite's CONV_2D and FULLY_CONNECTED layout),
/// laid out at load as the B operand `Microkernel` reads: K × output channels in 16-column
/// panels, its bias padded the same way (zeros without one).
struct PackedFilter {
    let k: Int, outputs: Int
    /// K × outputs in `Microkernel`'s 16-column panels.
    let weights: [Float]
    /// The bias, padded with zeros to the panels' width.
    let bias: [Float]

    /// The bias length for `outputs` channels.
    static func biasCount(_ outputs: Int) -> Int { (outputs + 15) / 16 * 16 }

    /// A filter laid out before (the tensors `Model` stores for an ONNX Conv).
    init?(k: Int, outputs: Int, weights: [Float], bias: [Float]) {
        guard k > 0, outputs > 0, weights.count == Microkernel.packedCount(k: k, n: outputs), bias.count == Self.biasCount(outputs) else {
            return nil
        }
        (self.k, self.outputs, self.weights, self.bias) = (k, outputs, weights, bias)
    }

    init(outputsByInputs w: [Float], outputs n: Int, bias b: [Float]?) {
        k = w.count / n
        outputs = n
        var t = [Float](repeating: 0, count: Microkernel.packedCount(k: k, n: n))
        for o in 0..<n { for p in 0..<k { t[Microkernel.packedIndex(row: p, column: o, k: k)] = w[o * k + p] } }
        weights = t
        var bp = [Float](repeating: 0, count: Self.biasCount(n))
        if let b { for o in 0..<n { bp[o] = b[o] } }
        bias = bp
    }

    /// C[rows × outputs] = A[rows × k]·filter + bias, clamped to `range` when given.
    func apply(
        rows: Int, a: UnsafePointer<Float>, lda: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: GEMMEpilogue = GEMMEpilogue(),
        clamp range: (Float, Float)?
    ) {
        weights.withUnsafeBufferPointer { W in
            bias.withUnsafeBufferPointer { B in
                var e = epilogue
                e.columnBias = B.baseAddress
                if let range { (e.lower, e.upper) = range }
                Microkernel.multiply(m: rows, n: outputs, k: k, a: a, lda: lda, b: W.baseAddress!, c: c, ldc: ldc, epilogue: e)
            }
        }
    }
}
