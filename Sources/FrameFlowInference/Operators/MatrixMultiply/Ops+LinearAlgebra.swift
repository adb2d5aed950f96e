import Foundation
import FrameFlow

/// Matrix products: MatMul (batched, numpy broadcasting) and Gemm, on the GEMM kernels.
extension Ops {
    /// Matrix-product ops by op type.
    static let linearAlgebraKernels: [String: OpKernel] = [
        "MatMul": runMatMul,
        "Gemm": runGemm,
    ]

    static func runMatMul(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try matmul(try need(ins, 0), try need(ins, 1))]
    }

    static func runGemm(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        var a = try need(ins, 0), b = try need(ins, 1)
        if n.int("transA", 0) != 0 { a = transpose(a, [1, 0]) }
        if n.int("transB", 0) != 0 { b = transpose(b, [1, 0]) }
        var y = try matmul(a, b)
        let alpha = n.float("alpha", 1), beta = n.float("beta", 1)
        if alpha != 1 { y = map(y) { $0 * alpha } }
        if ins.count > 2, let c = ins[2] {
            let bc = beta == 1 ? c : map(c) { $0 * beta }
            y = try elementwise("Add", y, bc)
        }
        return [y]
    }

    static func matmul(_ a0: Tensor, _ b0: Tensor) throws -> Tensor {
        guard !a0.shape.isEmpty, !b0.shape.isEmpty else {
            throw ModelError("MatMul needs inputs of rank ≥ 1, got shapes \(a0.shape) × \(b0.shape)")
        }
        var a = a0, b = b0
        let aVec = a.shape.count == 1, bVec = b.shape.count == 1
        if aVec { a.shape = [1, a.shape[0]] }
        if bVec { b.shape = [b.shape[0], 1] }
        let m = a.shape[a.shape.count - 2], k = a.shape[a.shape.count - 1]
        let k2 = b.shape[b.shape.count - 2], n = b.shape[b.shape.count - 1]
        guard k == k2 else { throw ModelError("MatMul shapes \(a0.shape) × \(b0.shape) do not agree") }
        let batch = try broadcastShape(Array(a.shape.dropLast(2)), Array(b.shape.dropLast(2)))
        let ia = broadcastIndex(Array(a.shape.dropLast(2)), to: batch), ib = broadcastIndex(Array(b.shape.dropLast(2)), to: batch)
        let nb = batch.reduce(1, *)
        var out = Scratch.filled(nb * m * n)
        let af = a.asFloats, bf = b.asFloats
        af.withUnsafeBufferPointer { A in
            bf.withUnsafeBufferPointer { B in
                out.withUnsafeMutableBufferPointer { C in
                    for bi in 0..<nb where m * n * k > 0 {
                        GEMM.multiply(
                            m: m, n: n, k: k, a: A.baseAddress! + ia[bi] * m * k, lda: k,
                            b: B.baseAddress! + ib[bi] * k * n, ldb: n, c: C.baseAddress! + bi * m * n, ldc: n)
                    }
                }
            }
        }
        var shape = batch + [m, n]
        if aVec { shape.remove(at: shape.count - 2) }
        if bVec { shape.removeLast() }
        return Tensor(shape: shape, floats: out)
    }
}
