import FrameFlow

extension NHWC {
    /// The pooling builtins' kernels (`TFLiteKernels.table`).
    static let poolingKernels: [TFLiteOperator: TFLiteKernel] = [.averagePool2D: runPooling, .maxPool2D: runPooling]

    /// AVERAGE_POOL_2D and MAX_POOL_2D: the pooling rows, or the plain loop for empty shapes.
    static func runPooling(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let x = try input(0)
        let same = try o?.byte(0) == 0
        let sw = Int(try o?.int(1) ?? 1), sh = Int(try o?.int(2) ?? 1)
        let fw = Int(try o?.int(3) ?? 1), fh = Int(try o?.int(4) ?? 1)
        let act = try op.activation(field: 5)
        guard x.shape.count == 4, [sw, sh, fw, fh].allSatisfy({ $0 > 0 && $0 < 1 << 16 }) else {
            throw ModelError("pool of input \(x.shape) with filter (\(fh), \(fw)), strides (\(sh), \(sw))")
        }
        let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oh, pt) = padding(same, h, fh, sh, 1), (ow, pl) = padding(same, wd, fw, sw, 1)
        guard oh > 0, ow > 0 else { throw ModelError("pool output \(oh) × \(ow) of input \(x.shape)") }
        _ = try Checked.elements([n, oh, ow, c], "pool output")
        var out = Scratch.filled(n * oh * ow * c, op.code == .maxPool2D ? -.infinity : 0)
        let xf = x.asFloats
        if !out.isEmpty && !xf.isEmpty {
            let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: fh, kw: fw, sh: sh, sw: sw, dh: 1, dw: 1, pt: pt, pl: pl)
            xf.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    for b in 0..<n {
                        pool(g, max: op.code == .maxPool2D, x: X.baseAddress! + b * h * wd * c, y: Y.baseAddress! + b * oh * ow * c)
                    }
                }
            }
            activation(act, &out)
            return Tensor(shape: [n, oh, ow, c], floats: out)
        }
        for b in 0..<n {
            for y in 0..<oh {
                for xo in 0..<ow {
                    for ch in 0..<c {
                        var m: Float = op.code == .maxPool2D ? -.infinity : 0
                        var count = 0
                        for ky in 0..<fh {
                            let iy = y * sh - pt + ky
                            if iy < 0 || iy >= h { continue }
                            for kx in 0..<fw {
                                let ix = xo * sw - pl + kx
                                if ix < 0 || ix >= wd { continue }
                                let v = xf[((b * h + iy) * wd + ix) * c + ch]
                                if op.code == .maxPool2D { m = max(m, v) } else { m += v }
                                count += 1
                            }
                        }
                        out[((b * oh + y) * ow + xo) * c + ch] = op.code == .maxPool2D ? m : m / Float(max(count, 1))
                    }
                }
            }
        }
        activation(act, &out)
        return Tensor(shape: [n, oh, ow, c], floats: out)
    }
}
