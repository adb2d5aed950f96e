import Foundation

/// GridSample (opset 16–20): each output pixel samples the input at a normalised (x, y) in
/// [−1, 1] from the grid — bilinear, nearest (half to even) or bicubic (a = −0.75) — with
/// zero, border or reflection padding, and either corner convention (`align_corners`).
extension Ops {
    static let gridSampleKernels: [String: OpKernel] = ["GridSample": { n, ins, _ in [try gridSample(n, ins)] }]

    static func gridSample(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let x = try Ops.need(ins, 0), grid = try Ops.need(ins, 1)
        guard x.shape.count == 4, grid.shape.count == 4, grid.shape[0] == x.shape[0], grid.shape[3] == 2 else {
            throw ModelError("GridSample supports 4-D input and grid (N, H, W, 2), got \(x.shape) and \(grid.shape)")
        }
        let mode = n.string("mode", "bilinear"), padding = n.string("padding_mode", "zeros")
        let alignCorners = n.int("align_corners", 0) != 0
        guard ["bilinear", "linear", "nearest", "bicubic", "cubic"].contains(mode), ["zeros", "border", "reflection"].contains(padding) else {
            throw ModelError("GridSample mode '\(mode)' or padding '\(padding)' is not known")
        }
        let (N, C, H, W) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (OH, OW) = (grid.shape[1], grid.shape[2])
        let v = values(x), g = values(grid)
        /// A normalised coordinate as a pixel position along an axis of `len`.
        func unnormalize(_ c: Double, _ len: Int) -> Double {
            alignCorners ? (c + 1) / 2 * Double(len - 1) : ((c + 1) * Double(len) - 1) / 2
        }
        /// `p` reflected into [lo, hi] as many times as it takes.
        func reflect(_ p: Double, _ lo: Double, _ hi: Double) -> Double {
            let span = hi - lo
            guard span > 0 else { return lo }
            var d = abs(p - lo)
            let flips = (d / span).rounded(.down)
            d -= flips * span
            return Int(flips) % 2 == 0 ? lo + d : hi - d
        }
        /// The coordinate after the padding rule (border and reflection move it inside).
        func pad(_ p: Double, _ len: Int) -> Double {
            switch padding {
            case "border": return min(max(p, 0), Double(len - 1))
            case "reflection":
                let r = alignCorners ? reflect(p, 0, Double(len - 1)) : reflect(p, -0.5, Double(len) - 0.5)
                return min(max(r, 0), Double(len - 1))
            default: return p
            }
        }
        /// Pixel (iy, ix) of plane `base`: zero outside the image with zero padding; with the
        /// others, the index clamped (border) or reflected (reflection), as bicubic needs.
        func pixel(_ base: Int, _ iy: Int, _ ix: Int) -> Double {
            var (yy, xx) = (iy, ix)
            if yy < 0 || yy >= H || xx < 0 || xx >= W {
                switch padding {
                case "zeros": return 0
                case "border": (yy, xx) = (min(max(yy, 0), H - 1), min(max(xx, 0), W - 1))
                default:
                    yy = Int(saturating: pad(Double(yy), H).rounded())
                    xx = Int(saturating: pad(Double(xx), W).rounded())
                }
            }
            return v[base + yy * W + xx]
        }
        var out = [Double](repeating: 0, count: try Checked.elements([N, C, OH, OW], "GridSample output"))
        for b in 0..<N {
            for oy in 0..<OH {
                for ox in 0..<OW {
                    let gp = ((b * OH + oy) * OW + ox) * 2
                    let gx = g[gp], gy = g[gp + 1]
                    guard gx.isFinite, gy.isFinite else { continue }
                    // Far outside the image is as good as 10⁹ pixels outside (and fits an Int).
                    var px = min(max(unnormalize(gx, W), -1e9), 1e9), py = min(max(unnormalize(gy, H), -1e9), 1e9)
                    if mode != "bicubic" && mode != "cubic" { (px, py) = (pad(px, W), pad(py, H)) }
                    for c in 0..<C {
                        let base = (b * C + c) * H * W
                        let value: Double
                        switch mode {
                        case "nearest":
                            value = pixel(base, Int(saturating: py.rounded(.toNearestOrEven)), Int(saturating: px.rounded(.toNearestOrEven)))
                        case "bicubic", "cubic":
                            let (fx, fy) = (px.rounded(.down), py.rounded(.down))
                            let (wx, wy) = (Ops.keysWeights(px - fx, a: -0.75), Ops.keysWeights(py - fy, a: -0.75))
                            var s = 0.0
                            for j in 0..<4 { for i in 0..<4 { s += wy[j] * wx[i] * pixel(base, Int(fy) - 1 + j, Int(fx) - 1 + i) } }
                            value = s
                        default:
                            let (fx, fy) = (px.rounded(.down), py.rounded(.down))
                            let (tx, ty) = (px - fx, py - fy), (ix, iy) = (Int(fx), Int(fy))
                            value =
                                (1 - ty) * ((1 - tx) * pixel(base, iy, ix) + tx * pixel(base, iy, ix + 1))
                                + ty * ((1 - tx) * pixel(base, iy + 1, ix) + tx * pixel(base, iy + 1, ix + 1))
                        }
                        out[((b * C + c) * OH + oy) * OW + ox] = value
                    }
                }
            }
        }
        return tensor([N, C, OH, OW], out, type: x.type)
    }
}
