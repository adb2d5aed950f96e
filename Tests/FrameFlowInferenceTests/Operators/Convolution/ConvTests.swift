import Foundation
@testable import FrameFlowInference
import FrameFlow
import Testing

/// NCHW pooling against the window written out in the test: widths with several blocks of
/// eight outputs (the vectorised stride-2 path) and rows of 16 and more (the row reduction's
/// blocks), both window widths it takes, padding at both ends, shapes it does not take, and
/// the average; at every kernel level this machine runs.
@Suite struct ConvTests {
    @Test(arguments: [(3, 2, 0, 1), (2, 2, 0, 0), (3, 2, 1, 1), (3, 1, 1, 1), (2, 2, 1, 0)], KernelLevel.available)
    func maxPoolMatchesTheFormula(_ shape: (kernel: Int, stride: Int, padBegin: Int, padEnd: Int), level: KernelLevel) throws {
        let (k, s, p0, p1) = shape
        for (c, h, w) in [(3, 13, 47), (2, 5, 9)] {
            let data = GEMMTests.random(c * h * w, seed: 31)
            var node = ONNXNode(name: "", opType: "MaxPool", domain: "", inputs: [], outputs: [], attributes: [:])
            node.attributes["kernel_shape"] = .ints([Int64(k), Int64(k)])
            node.attributes["strides"] = .ints([Int64(s), Int64(s)])
            node.attributes["pads"] = .ints([Int64(p0), Int64(p0), Int64(p1), Int64(p1)])
            for isMax in [true, false] {
                let y = try KernelLevel.withThreadLevel(level) { try Conv.pool(node, Tensor(shape: [1, c, h, w], floats: data), max: isMax) }
                let oh = (h + p0 + p1 - k) / s + 1, ow = (w + p0 + p1 - k) / s + 1
                #expect(y.shape == [1, c, oh, ow])
                var worst: Float = 0
                for ch in 0..<c {
                    for oy in 0..<oh {
                        for ox in 0..<ow {
                            var m = -Float.infinity, sum: Float = 0, n = 0
                            for ky in 0..<k {
                                for kx in 0..<k {
                                    let iy = oy * s - p0 + ky, ix = ox * s - p0 + kx
                                    if iy >= 0 && iy < h && ix >= 0 && ix < w {
                                        m = max(m, data[(ch * h + iy) * w + ix])
                                        sum += data[(ch * h + iy) * w + ix]
                                        n += 1
                                    }
                                }
                            }
                            let got = y.floats[(ch * oh + oy) * ow + ox]
                            worst = max(worst, got.isNaN ? .infinity : isMax ? (got == m ? 0 : .infinity) : abs(got - sum / Float(n)))
                        }
                    }
                }
                #expect(worst <= 1e-6, "\(level): \(c)×\(h)×\(w), \(k)×\(k) stride \(s) pads \(p0), \(p1) max \(isMax): error \(worst)")
            }
        }
    }

    /// MaxPool's Indices output against the window written out here, in both storage orders:
    /// two images of three channels (the index counts over N × C), padding on both sides (a
    /// padded position is never an index), and repeated values (the first in window order
    /// wins). ONNX's node tests cover only row-major order.
    @Test(arguments: [0, 1])
    func maxPoolIndicesMatchTheFormula(storageOrder: Int) throws {
        let (n, c, h, w, k, s, p) = (2, 3, 5, 7, 3, 2, 1)
        // Values in 0…5: many ties.
        let data = (0..<(n * c * h * w)).map { Float(($0 * 7) % 6) }
        var node = ONNXNode(name: "", opType: "MaxPool", domain: "", inputs: ["x"], outputs: ["y", "i"], attributes: [:])
        node.attributes["kernel_shape"] = .ints([Int64(k), Int64(k)])
        node.attributes["strides"] = .ints([Int64(s), Int64(s)])
        node.attributes["pads"] = .ints([Int64(p), Int64(p), Int64(p), Int64(p)])
        node.attributes["storage_order"] = .int(Int64(storageOrder))
        let (y, indices) = try Conv.maxPoolWithIndices(node, Tensor(shape: [n, c, h, w], floats: data))
        let oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1
        #expect(y.shape == [n, c, oh, ow] && indices.shape == [n, c, oh, ow] && indices.type == .int64)
        var mismatches = 0
        for plane in 0..<(n * c) {
            for oy in 0..<oh {
                for ox in 0..<ow {
                    var best = -Float.infinity, at = -1
                    for ky in 0..<k {
                        for kx in 0..<k {
                            let iy = oy * s - p + ky, ix = ox * s - p + kx
                            guard iy >= 0 && iy < h && ix >= 0 && ix < w else { continue }
                            let v = data[(plane * h + iy) * w + ix]
                            if v > best { best = v; at = plane * h * w + (storageOrder == 0 ? iy * w + ix : iy + ix * h) }
                        }
                    }
                    let o = (plane * oh + oy) * ow + ox
                    if y.floats[o] != best || indices.ints[o] != Int64(at) { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Depthwise (group = channels ≥ 8) against the formula: channel counts on and off a
    /// multiple of 8, strides, dilation, uneven padding, on NaN-filled scratch. With the kernels
    /// at AVX-512 the stride-1 cases (rows of 9–11 outputs) take `ShiftedConvolution.depthwise`,
    /// two 64-column runs with a partial last one; the rest, and every case elsewhere, the
    /// channels-last path: 3 × 3 undilated through `NHWC.depthwisePixels`, the others 32
    /// channels at a time (≥ 32) and then 8 (the last block overlapping).
    @Test(arguments: [
        (12, 5, 1, 1, 2), (8, 3, 2, 1, 1), (19, 3, 1, 2, 0), (9, 5, 2, 1, 3), (16, 3, 1, 1, 1), (13, 3, 1, 1, 1), (24, 3, 2, 1, 0), (40, 5, 1, 1, 2),
        (64, 5, 2, 1, 2), (33, 3, 1, 2, 1),
    ])
    func depthwiseMatchesTheFormula(channels c: Int, kernel k: Int, stride s: Int, dilation d: Int, pad p: Int) throws {
        let (h, w) = (7, 10)
        let x = GEMMTests.random(c * h * w, seed: 41), wt = GEMMTests.random(c * k * k, seed: 42), bias = GEMMTests.random(c, seed: 43)
        var node = ONNXNode(name: "", opType: "Conv", domain: "", inputs: [], outputs: [], attributes: [:])
        node.attributes["group"] = .int(Int64(c))
        node.attributes["strides"] = .ints([Int64(s), Int64(s)])
        node.attributes["dilations"] = .ints([Int64(d), Int64(d)])
        node.attributes["pads"] = .ints([Int64(p), Int64(p + 1), Int64(p), Int64(p)])
        let y = try Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
            try Conv.run(node, [Tensor(shape: [1, c, h, w], floats: x), Tensor(shape: [c, 1, k, k], floats: wt), Tensor(shape: [c], floats: bias)])
        }
        let ek = (k - 1) * d + 1
        let oh = (h + 2 * p - ek) / s + 1, ow = (w + 2 * p + 1 - ek) / s + 1
        #expect(y.shape == [1, c, oh, ow])
        let plane = Conv.Plane2D(
            batch: 1, cin: c, h: h, w: w, cout: c, group: c, kh: k, kw: k, strideH: s, strideW: s, dilationH: d, dilationW: d,
            padTop: p, padLeft: p + 1, oh: oh, ow: ow)
        #expect(Conv.shiftedDepthwiseApply(plane) == (ShiftedConvolution.built && s == 1 && ow >= 8))
        let worst = Self.depthwiseWorstError(y.floats, x: x, wt: wt, bias: bias, plane: plane)
        #expect(worst <= 1e-4, "max error \(worst)")
    }

    /// The largest difference between `y` (NCHW, one image) and the depthwise formula for
    /// `plane` (pads top/left as given, bottom/right whatever the output size leaves); NaN
    /// counts as infinite.
    static func depthwiseWorstError(_ y: [Float], x: [Float], wt: [Float], bias: [Float], plane g: Conv.Plane2D) -> Float {
        let (c, h, w, k, s, d) = (g.cin, g.h, g.w, g.kh, g.strideH, g.dilationH)
        var worst: Float = 0
        for ch in 0..<c {
            for oy in 0..<g.oh {
                for ox in 0..<g.ow {
                    var v = bias[ch]
                    for ky in 0..<k {
                        for kx in 0..<k {
                            let iy = oy * s - g.padTop + ky * d, ix = ox * s - g.padLeft + kx * d
                            if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(ch * h + iy) * w + ix] * wt[(ch * k + ky) * k + kx] }
                        }
                    }
                    let got = y[(ch * g.oh + oy) * g.ow + ox]
                    worst = max(worst, got.isNaN ? .infinity : abs(v - got))
                }
            }
        }
        return worst
    }

    /// Depthwise on two images with a fused clamp (the second image's planes and outputs at
    /// their offsets; at AVX-512 through `ShiftedConvolution.depthwise`).
    @Test func depthwiseTwoImagesMatchTheFormula() throws {
        let (b, c, h, w, k) = (2, 12, 9, 17, 3)
        let x = GEMMTests.random(b * c * h * w, seed: 44), wt = GEMMTests.random(c * k * k, seed: 45), bias = GEMMTests.random(c, seed: 46)
        var node = ONNXNode(name: "", opType: "Conv", domain: "", inputs: [], outputs: [], attributes: [:])
        node.attributes["group"] = .int(Int64(c))
        node.attributes["pads"] = .ints([1, 1, 1, 1])
        node.attributes[Conv.fusedClamp] = .floats([-1, 1.5])
        let y = try Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
            try Conv.run(node, [Tensor(shape: [b, c, h, w], floats: x), Tensor(shape: [c, 1, k, k], floats: wt), Tensor(shape: [c], floats: bias)])
        }
        #expect(y.shape == [b, c, h, w])
        var worst: Float = 0
        for n in 0..<b {
            for ch in 0..<c {
                for oy in 0..<h {
                    for ox in 0..<w {
                        var v = bias[ch]
                        for ky in 0..<k {
                            for kx in 0..<k {
                                let iy = oy - 1 + ky, ix = ox - 1 + kx
                                if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[((n * c + ch) * h + iy) * w + ix] * wt[(ch * k + ky) * k + kx] }
                            }
                        }
                        v = min(max(v, -1), 1.5)
                        let got = y.floats[((n * c + ch) * h + oy) * w + ox]
                        worst = max(worst, got.isNaN ? .infinity : abs(v - got))
                    }
                }
            }
        }
        #expect(worst <= 1e-4, "max error \(worst)")
    }

    /// 1 × 1 convolutions with the filter packed at load (inputs 4 and 5, as `Model` adds
    /// them), taking the channels-last path: 96 → 192 channels on 4 × 6 (24 pixels, k ≥ 96),
    /// and 384 → 384 on 2 × 3 — a 590 KB filter, whose tiles prefetch and, with two workers,
    /// split their column blocks — with a bias and a fused clamp, on one thread and two.
    @Test(arguments: [(96, 192, 4, 6), (384, 384, 2, 3), (200, 40, 5, 5)])
    func packedPointwiseMatchesTheFormula(cin: Int, cout: Int, h: Int, w: Int) throws {
        let x = GEMMTests.random(cin * h * w, seed: 81), wt = GEMMTests.random(cout * cin, seed: 82), bias = GEMMTests.random(cout, seed: 83)
        let packed = PackedFilter(outputsByInputs: wt, outputs: cout, bias: bias)
        var node = ONNXNode(name: "", opType: "Conv", domain: "", inputs: [], outputs: [], attributes: [:])
        let spread = 1.3 * Float(cin).squareRoot()
        node.attributes[Conv.fusedClamp] = .floats([-spread, spread])
        let inputs: [Tensor?] = [
            Tensor(shape: [1, cin, h, w], floats: x), Tensor(shape: [cout, cin, 1, 1], floats: wt), Tensor(shape: [cout], floats: bias), nil,
            Tensor(shape: [packed.weights.count], floats: packed.weights), Tensor(shape: [packed.bias.count], floats: packed.bias),
        ]
        #expect(Conv.channelsLastPays(k: cin, outputs: cout, pixels: h * w, pointwise: true) == (ShiftedConvolution.built || h * w <= 16))
        let workers = WorkerPool(threads: 1, name: "test.conv")
        defer { workers.shutdown() }
        for split in [false, true] {
            let y = try Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
                try Scratch.$parallelism.withValue(split ? Parallelism(workers) : nil) { try Conv.run(node, inputs) }
            }
            #expect(y.shape == [1, cout, h, w])
            var worst: Float = 0
            for o in 0..<cout {
                for p in 0..<(h * w) {
                    var v = bias[o]
                    for c in 0..<cin { v += wt[o * cin + c] * x[c * h * w + p] }
                    v = min(max(v, -spread), spread)
                    let got = y.floats[o * h * w + p]
                    worst = max(worst, got.isNaN ? .infinity : abs(v - got) / max(1, abs(v)))
                }
            }
            #expect(worst <= 1e-4, "\(cin) → \(cout) on \(h) × \(w), split \(split): max relative error \(worst)")
        }
    }

    /// Dense convolutions (the `ShiftedConvolution` path with AVX-512 or AVX2 kernels) against the
    /// formula: output channels on and off a multiple of 8, filters deeper than one k block
    /// (K = 360 > 256), strides 2 and 3 (phase planes), dilation, uneven padding on all four
    /// sides, no padding, two images, more than one 48-column tile with a partial last one,
    /// and a fused clamp.
    @Test(arguments: [
        (3, 10, 3, 1, 1, [1, 1, 1, 1], 2), (40, 24, 3, 1, 1, [1, 0, 2, 1], 1), (16, 8, 3, 1, 2, [2, 2, 2, 2], 1), (7, 17, 2, 1, 1, [0, 0, 0, 0], 2),
        (12, 33, 5, 1, 1, [2, 1, 2, 3], 1), (9, 16, 3, 1, 1, [0, 0, 0, 0], 1), (3, 24, 5, 2, 1, [1, 1, 2, 2], 1), (5, 12, 3, 2, 1, [0, 1, 1, 0], 2),
        (4, 9, 4, 3, 1, [1, 2, 2, 1], 1), (6, 16, 3, 2, 2, [2, 2, 2, 2], 1),
    ])
    func denseMatchesTheFormula(cin: Int, cout: Int, k: Int, stride st: Int, d: Int, pads: [Int], batch: Int) throws {
        try dense(cin: cin, cout: cout, k: k, stride: st, d: d, pads: pads, batch: batch, h: 11, w: 13)
    }

    /// Stride 2 on rows wide enough (70 columns) for the phase planes' vector even-column copy,
    /// with both paddings of the left edge.
    @Test(arguments: [[1, 1, 1, 1], [0, 0, 1, 1]])
    func denseStride2OnWideRowsMatchesTheFormula(pads: [Int]) throws {
        try dense(cin: 3, cout: 16, k: 3, stride: 2, d: 1, pads: pads, batch: 1, h: 9, w: 70)
    }

    /// Images wide enough that `ShiftedConvolution.run` takes them in several bands of output
    /// rows, the last one shorter: stride 2 (bands of 4 rows over 11) and stride 1 (bands of
    /// one row).
    @Test(arguments: [(24, 21, 160, 2), (32, 4, 330, 1)])
    func denseInBandsMatchesTheFormula(cin: Int, h: Int, w: Int, stride st: Int) throws {
        let oh = (h + 2 - 3) / st + 1, ow = (w + 2 - 3) / st + 1
        let g = NHWC.Window(h: h, w: w, c: cin, oh: oh, ow: ow, kh: 3, kw: 3, sh: st, sw: st, dh: 1, dw: 1, pt: 1, pl: 1)
        #expect(ShiftedConvolution.bandRows(g) < oh, "meant for several bands")
        try dense(cin: cin, cout: 8, k: 3, stride: st, d: 1, pads: [1, 1, 1, 1], batch: 1, h: h, w: w)
    }

    /// Issue 21's valid model that read past the phase planes (ASan): 41 output channels of a
    /// 3 × 3, pad-1 filter on one 7 × 5 plane. A plane row is 7 columns, so n = 49 and the
    /// last 48-column block holds one column, whose last tap read one float past the 48 of
    /// slack the buffer had.
    @Test func denseWithOneColumnLastBlockMatchesTheFormula() throws {
        try dense(cin: 1, cout: 41, k: 3, stride: 1, d: 1, pads: [1, 1, 1, 1], batch: 1, h: 7, w: 5)
    }

    /// Every read of `Microkernel.multiplyShifted` (48 floats from each block start below n,
    /// through each tap's offset, as `ShiftedConvolution.run` sets them) lies inside the
    /// buffer `run` allocates (the 6 × 16 tiles read within the same 48 columns) — checked
    /// whatever this machine's level. Last blocks of 1 … 5 columns with filters 2 … 7 wide, strides and dilation.
    @Test func shiftedReadsStayInsideThePlanes() {
        var checked = 0
        for (c, h, w, k, s, d, p) in [
            (1, 7, 5, 3, 1, 1, 1), (2, 7, 5, 3, 1, 1, 1), (1, 6, 6, 5, 1, 1, 2), (3, 9, 9, 7, 1, 1, 0), (1, 11, 13, 3, 2, 1, 1),
            (2, 10, 20, 3, 1, 2, 2), (1, 5, 40, 4, 3, 1, 1), (1, 8, 3, 2, 1, 1, 0),
        ] {
            for extraRows in 0..<24 {
                let hh = h + extraRows, ek = (k - 1) * d + 1
                let oh = (hh + 2 * p - ek) / s + 1, ow = (w + 2 * p - ek) / s + 1
                let g = NHWC.Window(h: hh, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: d, dw: d, pt: p, pl: p)
                // Bands of one row, of `run`'s choice, and the whole image.
                for rows in Set([1, ShiftedConvolution.bandRows(g), oh]) {
                    let wq = ShiftedConvolution.planeWidth(g), plane = (rows + ShiftedConvolution.planeHeight(g) - oh) * wq, n = rows * wq
                    var furthest = 0
                    for ch in 0..<c {
                        for ky in 0..<k {
                            for kx in 0..<k {
                                let offset = ch * s * s * plane + ShiftedConvolution.tapOffset(g, ky: ky, kx: kx, plane: plane)
                                furthest = max(furthest, (n - 1) / 48 * 48 + offset + 47)
                            }
                        }
                    }
                    let count = ShiftedConvolution.paddedCount(g, rows: rows)
                    #expect(furthest < count, "\(g), bands of \(rows) rows: reads float \(furthest) of \(count)")
                }
                checked += 1
            }
        }
        #expect(checked == 8 * 24)
    }

    /// A node's kept setup (`Conv.SetupMemo`, one per planned Conv) across runs whose shapes
    /// change and change back: each run must take its geometry from its own shapes.
    @Test func keptSetupFollowsTheShapes() throws {
        let memo = Conv.SetupMemo()
        for (h, w, batch) in [(11, 13, 1), (6, 20, 2), (11, 13, 1), (11, 13, 2)] {
            try dense(cin: 4, cout: 8, k: 3, stride: 1, d: 1, pads: [1, 1, 1, 1], batch: batch, h: h, w: w, memo: memo, pathCheck: false)
        }
    }

    func dense(
        cin: Int, cout: Int, k: Int, stride st: Int, d: Int, pads: [Int], batch: Int, h: Int, w: Int, memo: Conv.SetupMemo? = nil,
        pathCheck: Bool = true
    ) throws {
        let x = GEMMTests.random(batch * cin * h * w, seed: 51), wt = GEMMTests.random(cout * cin * k * k, seed: 52),
            bias = GEMMTests.random(cout, seed: 53)
        var node = ONNXNode(name: "", opType: "Conv", domain: "", inputs: [], outputs: [], attributes: [:])
        node.attributes["strides"] = .ints([Int64(st), Int64(st)])
        node.attributes["dilations"] = .ints([Int64(d), Int64(d)])
        node.attributes["pads"] = .ints(pads.map { Int64($0) })  // top, left, bottom, right
        // A clamp at about one standard deviation of the sums (inputs and weights in ±2).
        let spread = 1.3 * Float(cin * k * k).squareRoot()
        node.attributes[Conv.fusedClamp] = .floats([-spread, 1.5 * spread])
        // Scratch arrays full of NaN: a buffer the path forgets to zero shows in the result.
        let y = try Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
            try Conv.run(
                node,
                [Tensor(shape: [batch, cin, h, w], floats: x), Tensor(shape: [cout, cin, k, k], floats: wt), Tensor(shape: [cout], floats: bias)],
                memo: memo)
        }
        let ek = (k - 1) * d + 1
        let oh = (h + pads[0] + pads[2] - ek) / st + 1, ow = (w + pads[1] + pads[3] - ek) / st + 1
        #expect(y.shape == [batch, cout, oh, ow])
        let plane = Conv.Plane2D(
            batch: batch, cin: cin, h: h, w: w, cout: cout, group: 1, kh: k, kw: k, strideH: st, strideW: st, dilationH: d, dilationW: d,
            padTop: pads[0], padLeft: pads[1], oh: oh, ow: ow)
        // The shapes above (stride 1, or few input channels) are meant for the shifted path,
        // which AVX-512 and AVX2 processes take.
        if pathCheck {
            #expect(
                Conv.shiftedRowsApply(plane) == (ShiftedConvolution.built || ShiftedConvolution.eightLane),
                "the shapes above are meant for the shifted path")
        }
        var worst: Float = 0
        for b in 0..<batch {
            for o in 0..<cout {
                for oy in 0..<oh {
                    for ox in 0..<ow {
                        var v = bias[o]
                        for c in 0..<cin {
                            for ky in 0..<k {
                                for kx in 0..<k {
                                    let iy = oy * st - pads[0] + ky * d, ix = ox * st - pads[1] + kx * d
                                    if iy >= 0 && iy < h && ix >= 0 && ix < w {
                                        v += x[((b * cin + c) * h + iy) * w + ix] * wt[((o * cin + c) * k + ky) * k + kx]
                                    }
                                }
                            }
                        }
                        v = min(max(v, -spread), 1.5 * spread)
                        let got = y.floats[((b * cout + o) * oh + oy) * ow + ox]
                        worst = max(worst, got.isNaN ? .infinity : abs(v - got) / max(1, abs(v)))
                    }
                }
            }
        }
        #expect(worst <= 1e-4, "max relative error \(worst)")  // float sums of up to 360 terms
    }

    /// ConvTranspose whose kernel equals its stride (2 × 2 stride 2 as PP-OCR upsamples, and
    /// 3 × 2 stride (3, 2)): the path that stores each tap straight into place, against the
    /// formula, with a bias, two groups and two images, on NaN-filled scratch.
    @Test(arguments: [(2, 2, 1), (3, 2, 2)])
    func transposedKernelEqualStrideMatchesTheFormula(kh: Int, kw: Int, group: Int) throws {
        let (batch, cin, cout, h, w) = (2, 4, 6, 5, 7)
        let (ipg, opg) = (cin / group, cout / group)
        let x = GEMMTests.random(batch * cin * h * w, seed: 71), wt = GEMMTests.random(cin * opg * kh * kw, seed: 72),
            bias = GEMMTests.random(cout, seed: 73)
        var node = ONNXNode(name: "", opType: "ConvTranspose", domain: "", inputs: [], outputs: [], attributes: [:])
        node.attributes["strides"] = .ints([Int64(kh), Int64(kw)])
        node.attributes["group"] = .int(Int64(group))
        let y = try Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
            try Ops.convTranspose(
                node,
                [Tensor(shape: [batch, cin, h, w], floats: x), Tensor(shape: [cin, opg, kh, kw], floats: wt), Tensor(shape: [cout], floats: bias)])
        }
        let (oh, ow) = (h * kh, w * kw)
        #expect(y.shape == [batch, cout, oh, ow])
        var worst: Float = 0
        for b in 0..<batch {
            for o in 0..<cout {
                for oy in 0..<oh {
                    for ox in 0..<ow {
                        let g = o / opg
                        var v = bias[o]
                        for c in 0..<ipg {
                            let ic = g * ipg + c
                            v += x[((b * cin + ic) * h + oy / kh) * w + ox / kw] * wt[((ic * opg + o % opg) * kh + oy % kh) * kw + ox % kw]
                        }
                        let got = y.floats[((b * cout + o) * oh + oy) * ow + ox]
                        worst = max(worst, got.isNaN ? .infinity : abs(v - got))
                    }
                }
            }
        }
        #expect(worst <= 1e-4, "max error \(worst)")
    }

    /// The shifted paths' kernels at every level (their C variant follows the thread's level;
    /// which path runs, the process's): the 8 × 48 or 6 × 16 product and the stride-2 plane fill through
    /// the NCHW dense cases above, the depthwise runs through a depthwise case.
    @Test(arguments: KernelLevel.available)
    func shiftedPathsMatchTheFormulaAtEveryLevel(level: KernelLevel) throws {
        try KernelLevel.withThreadLevel(level) {
            try denseStride2OnWideRowsMatchesTheFormula(pads: [1, 1, 1, 1])
            try denseWithOneColumnLastBlockMatchesTheFormula()
            try depthwiseMatchesTheFormula(channels: 13, kernel: 3, stride: 1, dilation: 1, pad: 1)
        }
    }

    /// `ShiftedConvolution.run` on an NHWC image with an OHWI filter (TFLite's layout): the
    /// strided plane fill, the product, and the transpose to pixel-major with bias and clamp
    /// (13 outputs: an 8 × 8 block and 5 left over; 19 or 10 output columns: whole and
    /// partial 8-pixel blocks), at every level.
    @Test(arguments: [1, 2], KernelLevel.available)
    func shiftedChannelsLastMatchesTheFormula(stride s: Int, level: KernelLevel) {
        let (h, w, c, oc, k, p) = (9, 21, 3, 13, 3, 1)
        let oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1
        let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: 1, dw: 1, pt: p, pl: p)
        let x = GEMMTests.random(h * w * c, seed: 61), wt = GEMMTests.random(oc * k * k * c, seed: 62), bias = GEMMTests.random(oc, seed: 63)
        var y = [Float](repeating: .nan, count: oh * ow * oc)
        KernelLevel.withThreadLevel(level) {
            x.withUnsafeBufferPointer { X in
                wt.withUnsafeBufferPointer { W in
                    bias.withUnsafeBufferPointer { B in
                        y.withUnsafeMutableBufferPointer { Y in
                            ShiftedConvolution.run(
                                g, layout: .channelsLast, x: X.baseAddress!, weights: W.baseAddress!, outputs: oc, y: Y.baseAddress!,
                                bias: B.baseAddress, clamp: (-1, 1.5))
                        }
                    }
                }
            }
        }
        var worst: Float = 0
        for oy in 0..<oh {
            for ox in 0..<ow {
                for o in 0..<oc {
                    var v = bias[o]
                    for ky in 0..<k {
                        for kx in 0..<k {
                            for ch in 0..<c {
                                let iy = oy * s - p + ky, ix = ox * s - p + kx
                                if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[((o * k + ky) * k + kx) * c + ch] }
                            }
                        }
                    }
                    v = min(max(v, -1), 1.5)
                    let got = y[(oy * ow + ox) * oc + o]
                    worst = max(worst, got.isNaN ? .infinity : abs(v - got))
                }
            }
        }
        #expect(worst <= 1e-4, "stride \(s) at \(level): max error \(worst)")
    }
}

/// `Conv.activate` (the C row kernel) against its formula, at every kernel level: bias, then a
/// slope and clamp or HardSwish, then the row's scale and shift; lengths with tails.
struct ConvActivationTests {
    /// The activation as `Conv.activate` defines it, on `v` = input + bias: HardSwish, or the
    /// negative slope then the clamp to [−1.5, 3]; then the affine.
    static func reference(_ v: Float, hardSwish: Bool, slope: Float?, clamp: Bool, affine: (Float, Float)?) -> Float {
        var v = v
        if hardSwish {
            v *= min(max(v / 6 + 0.5, 0), 1)
        } else {
            if let slope, v < 0 { v *= slope }
            if clamp { v = min(max(v, -1.5), 3) }
        }
        if let affine { v = v * affine.0 + affine.1 }
        return v
    }

    @Test(arguments: KernelLevel.available)
    func activationRowsMatchTheFormula(level: KernelLevel) {
        let slope: [Float] = [0.25, -0.5], scale: [Float] = [1.5, 0.5], shift: [Float] = [-0.25, 2]
        for n in [1, 7, 8, 13, 40] {
            let x = (0..<n).map { Float(sin(Double($0) * 1.3) * 8) }
            for (hardSwish, withSlope, clamp, affine) in [
                (false, false, true, false), (false, true, true, true), (true, false, false, true), (false, true, false, false),
            ] {
                slope.withUnsafeBufferPointer { sl in
                    scale.withUnsafeBufferPointer { sc in
                        shift.withUnsafeBufferPointer { sh in
                            var e = GEMMEpilogue()
                            if clamp { (e.lower, e.upper) = (-1.5, 3) }
                            e.hardSwish = hardSwish
                            if withSlope { e.rowSlope = sl.baseAddress }
                            if affine { (e.rowScale, e.rowShift) = (sc.baseAddress, sh.baseAddress) }
                            var y = [Float](repeating: 9, count: n + 2)
                            for i in 0..<n { y[i + 1] = x[i] }
                            KernelLevel.withThreadLevel(level) {
                                y.withUnsafeMutableBufferPointer { Conv.activate($0.baseAddress!, 1..<(n + 1), bias: 0.75, e, row: 1) }
                            }
                            #expect(y[0] == 9 && y[n + 1] == 9, "outside the range untouched")
                            for i in 0..<n {
                                let v = Self.reference(
                                    x[i] + 0.75, hardSwish: hardSwish, slope: withSlope ? slope[1] : nil, clamp: clamp,
                                    affine: affine ? (scale[1], shift[1]) : nil)
                                #expect(
                                    abs(y[i + 1] - v) <= 1e-5 * max(1, abs(v)), "n \(n) i \(i) hardSwish \(hardSwish) slope \(withSlope) at \(level)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// SiLU, `v·sigmoid(v)`, against the formula (Foundation's exp) with and without the
    /// affine, one row with tails and whole planes with each row's bias; and exactly what the
    /// unfused pair computes (the Sigmoid kernel, then the product) at the same level.
    @Test(arguments: KernelLevel.available)
    func siluRowsMatchTheFormulaAndTheUnfusedPair(level: KernelLevel) {
        let bias: [Float] = [0.75, -2, 0.5], scale: [Float] = [1.5, 0.5, -1], shift: [Float] = [-0.25, 2, 1]
        for n in [1, 7, 8, 13, 40] {
            let x = (0..<3 * n).map { Float(sin(Double($0) * 0.7) * 12) } + [-100, 100, 0, -0.0]
            let m = x.count / 3
            for affine in [false, true] {
                scale.withUnsafeBufferPointer { sc in
                    shift.withUnsafeBufferPointer { sh in
                        var e = GEMMEpilogue()
                        e.silu = true
                        if affine { (e.rowScale, e.rowShift) = (sc.baseAddress, sh.baseAddress) }
                        var planes = x, row = x
                        var pairs = x, sig = x
                        KernelLevel.withThreadLevel(level) {
                            planes.withUnsafeMutableBufferPointer { Conv.activateRows($0.baseAddress!, rows: 3, count: m, bias: bias, e) }
                            row.withUnsafeMutableBufferPointer { Conv.activate($0.baseAddress!, 1..<x.count, bias: 0.75, e, row: 1) }
                            for i in pairs.indices where i >= m && i < 2 * m { pairs[i] += bias[1] }
                            sig = Ops.exponential(pairs, sigmoid: true)
                        }
                        for i in 0..<3 * m {
                            let r = i / m, v = x[i] + bias[r]
                            var want = v / (1 + Float(exp(-Double(v))))
                            if affine { want = want * scale[r] + shift[r] }
                            #expect(abs(planes[i] - want) <= 1e-5 * max(1, abs(want)), "plane n \(n) i \(i) at \(level)")
                            if !affine && r == 1 { #expect(planes[i] == pairs[i] * sig[i], "unfused pair at \(i), \(level)") }
                        }
                        #expect(row[0] == x[0], "outside the range untouched")
                        for i in 1..<x.count {
                            let v = x[i] + 0.75
                            var want = v / (1 + Float(exp(-Double(v))))
                            if affine { want = want * scale[1] + shift[1] }
                            #expect(abs(row[i] - want) <= 1e-5 * max(1, abs(want)), "row n \(n) i \(i) at \(level)")
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: KernelLevel.available)
    func activationOfWholePlanesUsesEachRowsParameters(level: KernelLevel) {
        let bias: [Float] = [0.75, -2, 0.5], slope: [Float] = [0.25, -0.5, 2], scale: [Float] = [1.5, 0.5, -1], shift: [Float] = [-0.25, 2, 1]
        for n in [1, 17, 40] {
            let x = (0..<3 * n).map { Float(sin(Double($0) * 0.7) * 8) }
            for (hardSwish, withSlope, withBias, affine) in [(false, true, true, true), (true, false, true, false), (false, false, false, true)] {
                slope.withUnsafeBufferPointer { sl in
                    scale.withUnsafeBufferPointer { sc in
                        shift.withUnsafeBufferPointer { sh in
                            var e = GEMMEpilogue()
                            (e.lower, e.upper) = (-1.5, 3)
                            e.hardSwish = hardSwish
                            if withSlope { e.rowSlope = sl.baseAddress }
                            if affine { (e.rowScale, e.rowShift) = (sc.baseAddress, sh.baseAddress) }
                            var y = x
                            KernelLevel.withThreadLevel(level) {
                                y.withUnsafeMutableBufferPointer {
                                    Conv.activateRows($0.baseAddress!, rows: 3, count: n, bias: withBias ? bias : nil, e)
                                }
                            }
                            for row in 0..<3 {
                                for i in 0..<n {
                                    let v = Self.reference(
                                        x[row * n + i] + (withBias ? bias[row] : 0), hardSwish: hardSwish, slope: withSlope ? slope[row] : nil,
                                        clamp: true, affine: affine ? (scale[row], shift[row]) : nil)
                                    #expect(abs(y[row * n + i] - v) <= 1e-5 * max(1, abs(v)), "n \(n) row \(row) i \(i) at \(level)")
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
