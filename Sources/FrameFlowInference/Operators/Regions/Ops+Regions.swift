import Foundation

/// Region and set ops: NonMaxSuppression (detection post-processing), RoiAlign (two-stage
/// detectors' box pooling), MaxUnpool (segmentation decoders), Unique, and Det.
extension Ops {
    /// Region and set ops by op type.
    static let regionKernels = kernels(["RoiAlign", "MaxUnpool", "Unique", "Det"]) { n, ins, c in try runRegions(n, ins, opset: c.opset) }
        .merging(["NonMaxSuppression": runNonMaxSuppression], uniquingKeysWith: twice)

    static func runRegions(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        switch n.opType {
        case "RoiAlign": return [try roiAlign(n, ins, opset: opset)]
        case "MaxUnpool":
            let x = try Ops.need(ins, 0), indices = try Ops.need(ins, 1)
            guard let k = n.ints("kernel_shape")?.map({ Int($0) }), x.shape.count == k.count + 2, indices.shape == x.shape else {
                throw ModelError("MaxUnpool: kernel, input \(x.shape) and indices \(indices.shape) do not fit")
            }
            let d = k.count
            let strides = n.ints("strides")?.map { Int($0) } ?? Array(repeating: 1, count: d)
            let pads = n.ints("pads")?.map { Int($0) } ?? Array(repeating: 0, count: 2 * d)
            guard strides.count == d, pads.count == 2 * d, (k + strides).allSatisfy({ $0 > 0 && $0 < 1 << 16 }),
                pads.allSatisfy({ $0.magnitude < 1 << 16 })
            else {
                throw ModelError("MaxUnpool kernel \(k), strides \(strides) or pads \(pads) do not fit \(d) axes")
            }
            // Indices count in the inferred shape; a larger `output_shape` keeps each value at
            // the same coordinates (zeros after).
            let inferred = Array(x.shape[..<2]) + (0..<d).map { (x.shape[2 + $0] - 1) * strides[$0] + k[$0] - pads[$0] - pads[d + $0] }
            let shape = ins.count > 2 ? ins[2].map { $0.asInts.map { Int(clamping: $0) } } ?? inferred : inferred
            guard inferred.allSatisfy({ $0 > 0 }), let inferredCount = ONNXModel.elementCount(inferred), shape.count == inferred.count,
                zip(shape, inferred).allSatisfy({ $0 >= $1 }), let count = ONNXModel.elementCount(shape)
            else { throw ModelError("MaxUnpool output \(shape) does not fit the unpooled shape \(inferred)") }
            let inStrides = Tensor(shape: inferred, floats: []).strides, outStrides = Tensor(shape: shape, floats: []).strides
            var out = [Double](repeating: 0, count: count)
            let v = values(x)
            for (i, target) in indices.asInts.enumerated() {
                guard target >= 0, target < Int64(inferredCount) else {
                    throw ModelError("MaxUnpool index \(target) is outside the unpooled shape \(inferred)")
                }
                let o = inferred.indices.reduce(0) { $0 + (Int(target) / inStrides[$1]) % inferred[$1] * outStrides[$1] }
                out[o] = v[i]
            }
            return [tensor(shape, out, type: x.type)]
        case "Unique": return try unique(n, try Ops.need(ins, 0))
        case "Det":
            let x = try Ops.need(ins, 0)
            let r = x.shape.count
            guard r >= 2, x.shape[r - 1] == x.shape[r - 2] else { throw ModelError("Det needs square matrices, got \(x.shape)") }
            let m = x.shape[r - 1], v = values(x)
            let dets = (0..<(x.count / max(m * m, 1))).map { b -> Double in
                // LU with partial pivoting.
                var a = Array(v[(b * m * m)..<((b + 1) * m * m)])
                var det = 1.0
                for c in 0..<m {
                    let p = (c..<m).max { abs(a[$0 * m + c]) < abs(a[$1 * m + c]) }!
                    if a[p * m + c] == 0 { return 0 }
                    if p != c {
                        for j in 0..<m { a.swapAt(p * m + j, c * m + j) }
                        det = -det
                    }
                    det *= a[c * m + c]
                    for i in (c + 1)..<max(m, c + 1) {
                        let f = a[i * m + c] / a[c * m + c]
                        for j in c..<m { a[i * m + j] -= f * a[c * m + j] }
                    }
                }
                return det
            }
            return [tensor(Array(x.shape[..<(r - 2)]), dets, type: x.type)]
        default:
            throw ModelError("op '\(n.opType)' is not implemented")
        }
    }

    /// RoiAlign: each region of interest (x1, y1, x2, y2, scaled by `spatial_scale`) split
    /// into output_height × output_width bins, each the average (or maximum) of bilinear
    /// samples on a grid of `sampling_ratio` per side (or as many as the bin is pixels wide).
    static func roiAlign(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try Ops.need(ins, 0), rois = try Ops.need(ins, 1), batchIndex = try Ops.need(ins, 2).asInts
        guard x.shape.count == 4, rois.shape.count == 2, rois.shape[1] == 4, batchIndex.count == rois.shape[0] else {
            throw ModelError("RoiAlign: input \(x.shape), rois \(rois.shape) and \(batchIndex.count) batch indices do not fit")
        }
        let (C, H, W) = (x.shape[1], x.shape[2], x.shape[3])
        let oh = Int(n.int("output_height", 1)), ow = Int(n.int("output_width", 1)), ratio = Int(n.int("sampling_ratio", 0))
        guard oh > 0, ow > 0, ratio >= 0 else { throw ModelError("RoiAlign output \(oh) × \(ow), sampling ratio \(ratio)") }
        let scale = Double(n.float("spatial_scale", 1)), isMax = n.string("mode", "avg") == "max"
        let halfPixel = n.string("coordinate_transformation_mode", opset >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel"
        let v = values(x), r = values(rois)
        var out = [Double](repeating: 0, count: try Checked.elements([rois.shape[0], C, oh, ow], "RoiAlign output"))
        for k in 0..<rois.shape[0] {
            let b = Int(batchIndex[k])
            guard b >= 0, b < x.shape[0] else { throw ModelError("RoiAlign batch index \(b) for \(x.shape[0]) images") }
            let offset = halfPixel ? 0.5 : 0
            let (x1, y1) = (r[k * 4] * scale - offset, r[k * 4 + 1] * scale - offset)
            var (rw, rh) = (r[k * 4 + 2] * scale - offset - x1, r[k * 4 + 3] * scale - offset - y1)
            if !halfPixel { (rw, rh) = (max(rw, 1), max(rh, 1)) }
            guard rw.isFinite, rh.isFinite, rw / Double(ow) < 65_536, rh / Double(oh) < 65_536 else {
                throw ModelError("RoiAlign region \(k) is \(rw) × \(rh) pixels")
            }
            let (bw, bh) = (rw / Double(ow), rh / Double(oh))
            let gh = ratio > 0 ? ratio : Int(saturating: (rh / Double(oh)).rounded(.up)),
                gw = ratio > 0 ? ratio : Int(saturating: (rw / Double(ow)).rounded(.up))
            let samples = Double(max(gh * gw, 1))
            for c in 0..<C {
                let base = (b * C + c) * H * W
                for py in 0..<oh {
                    for px in 0..<ow {
                        var acc = isMax ? -Double.infinity : 0, any = false
                        for iy in 0..<gh {
                            for ix in 0..<gw {
                                var y = y1 + Double(py) * bh + (Double(iy) + 0.5) * bh / Double(gh)
                                var xx = x1 + Double(px) * bw + (Double(ix) + 0.5) * bw / Double(gw)
                                any = true
                                // Outside the image by more than a pixel: the sample is 0.
                                if y < -1 || y > Double(H) || xx < -1 || xx > Double(W) {
                                    acc = isMax ? max(acc, 0) : acc
                                    continue
                                }
                                y = max(y, 0); xx = max(xx, 0)
                                var (yl, xl) = (Int(y), Int(xx))
                                var (yh, xh) = (yl + 1, xl + 1)
                                if yl >= H - 1 { (yl, yh, y) = (H - 1, H - 1, Double(H - 1)) }
                                if xl >= W - 1 { (xl, xh, xx) = (W - 1, W - 1, Double(W - 1)) }
                                let (ly, lx) = (y - Double(yl), xx - Double(xl))
                                let terms = [
                                    (1 - ly) * (1 - lx) * v[base + yl * W + xl], (1 - ly) * lx * v[base + yl * W + xh],
                                    ly * (1 - lx) * v[base + yh * W + xl], ly * lx * v[base + yh * W + xh],
                                ]
                                // Max mode takes the largest weighted corner, as onnxruntime does.
                                acc = isMax ? max(acc, terms.max()!) : acc + terms.reduce(0, +)
                            }
                        }
                        out[((k * C + c) * oh + py) * ow + px] = isMax ? (any ? acc : 0) : acc / samples
                    }
                }
            }
        }
        return tensor([rois.shape[0], C, oh, ow], out, type: x.type)
    }

    /// Unique: the distinct values (or slices along `axis`) in sorted or first-seen order,
    /// with each one's first index, the inverse map and the counts.
    static func unique(_ n: ONNXNode, _ x: Tensor) throws -> [Tensor] {
        let sorted = n.int("sorted", 1) != 0
        let v = values(x)
        let axis: Int? = n.attributes["axis"] == nil ? nil : try Ops.axis(n.int("axis", 0), rank: x.shape.count)
        let (outer, len, inner) = axis.map { (x.shape[..<$0].reduce(1, *), x.shape[$0], x.shape[($0 + 1)...].reduce(1, *)) } ?? (1, v.count, 1)
        /// Slice i along the axis (one element without an axis).
        func slice(_ i: Int) -> [Double] { (0..<outer).flatMap { o in (0..<inner).map { v[(o * len + i) * inner + $0] } } }
        let slices = (0..<len).map(slice)
        var firsts: [Int] = [], seen: [[Double]: Int] = [:]
        for (i, s) in slices.enumerated() where seen[s] == nil {
            seen[s] = firsts.count
            firsts.append(i)
        }
        if sorted { firsts.sort { slices[$0].lexicographicallyPrecedes(slices[$1]) } }
        let position = Dictionary(uniqueKeysWithValues: firsts.enumerated().map { (slices[$0.element], $0.offset) })
        let inverse = slices.map { Int64(position[$0]!) }
        var counts = [Int64](repeating: 0, count: firsts.count)
        for i in inverse { counts[Int(i)] += 1 }
        let y =
            try axis.map { try Ops.gather(x, Tensor(shape: [firsts.count], ints: firsts.map(Int64.init)), axis: $0) }
            ?? gather(x, shape: [firsts.count], offsets: firsts)
        return [
            y, Tensor(shape: [firsts.count], ints: firsts.map(Int64.init)), Tensor(shape: [len], ints: inverse),
            Tensor(shape: [firsts.count], ints: counts),
        ]
    }

    static func runNonMaxSuppression(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try nonMaxSuppression(n, ins)]
    }

    /// NonMaxSuppression: per image and class, boxes above `score_threshold` taken by
    /// descending score (equal scores by index), each kept unless its IoU with a kept box
    /// exceeds `iou_threshold`, at most `max_output_boxes_per_class` of them. Rows of the
    /// result: (image, class, box).
    static func nonMaxSuppression(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let boxes = try Ops.need(ins, 0), scores = try Ops.need(ins, 1)
        guard boxes.shape.count == 3, boxes.shape[2] == 4, scores.shape.count == 3, scores.shape[0] == boxes.shape[0],
            scores.shape[2] == boxes.shape[1]
        else {
            throw ModelError("NonMaxSuppression: boxes \(boxes.shape) and scores \(scores.shape) do not fit")
        }
        let maxOut = ins.count > 2 ? ins[2]?.asInts.first ?? 0 : 0
        let iouThreshold = ins.count > 3 ? ins[3].flatMap { values($0).first } ?? 0 : 0
        let scoreThreshold = ins.count > 4 ? ins[4].flatMap { values($0).first } : nil
        let center = n.int("center_point_box", 0) != 0
        let (images, count, classes) = (boxes.shape[0], boxes.shape[1], scores.shape[1])
        let bv = values(boxes), sv = values(scores)
        /// Box k of image b as (y1, x1, y2, x2) with y1 ≤ y2, x1 ≤ x2.
        func corners(_ b: Int, _ k: Int) -> (Double, Double, Double, Double) {
            let p = (b * count + k) * 4
            if center {
                let (xc, yc, w, h) = (bv[p], bv[p + 1], bv[p + 2], bv[p + 3])
                return (yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2)
            }
            return (min(bv[p], bv[p + 2]), min(bv[p + 1], bv[p + 3]), max(bv[p], bv[p + 2]), max(bv[p + 1], bv[p + 3]))
        }
        func iou(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
            let ih = max(0, min(a.2, b.2) - max(a.0, b.0)), iw = max(0, min(a.3, b.3) - max(a.1, b.1))
            let inter = ih * iw, union = (a.2 - a.0) * (a.3 - a.1) + (b.2 - b.0) * (b.3 - b.1) - inter
            return union > 0 ? inter / union : 0
        }
        var rows: [Int64] = []
        guard maxOut > 0 else { return Tensor(shape: [0, 3], ints: []) }
        for b in 0..<images {
            for c in 0..<classes {
                let base = (b * classes + c) * count
                let order = (0..<count).filter { scoreThreshold == nil || sv[base + $0] > scoreThreshold! }
                    .sorted { sv[base + $0] == sv[base + $1] ? $0 < $1 : sv[base + $0] > sv[base + $1] }
                var kept: [(Double, Double, Double, Double)] = []
                for k in order where Int64(kept.count) < maxOut {
                    let box = corners(b, k)
                    if kept.allSatisfy({ iou($0, box) <= iouThreshold }) {
                        kept.append(box)
                        rows += [Int64(b), Int64(c), Int64(k)]
                    }
                }
            }
        }
        return Tensor(shape: [rows.count / 3, 3], ints: rows)
    }
}
