import CFrameFlowKernels
import FrameFlow

/// A convolution as one matrix product without im2col, output channels × pixels (taken where
/// the kernels run at AVX-512; `Microkernel.multiplyShifted`).
///
/// The input is copied into zero-bordered planes (a band of output rows at a time, so that
/// they stay in cache), split by phase for strides above 1:
/// plane (c, ry, rx) holds the bordered input's rows ry, ry + sh, … and columns rx, rx + sw, ….
/// Count the output pixels (oy, ox) as j = oy·wq + ox, wq being a plane's width; then tap
/// (c, ky, kx) of every output pixel is the plane of phase (ky·dh mod sh, kx·dw mod sw) read at
/// j + (ky·dh / sh)·wq + kx·dw / sw — one contiguous run of the plane per tap. So the filter
/// (output channels × K, as the model stores it) times "B", whose row p is the planes seen
/// through tap p's offset, is the convolution, with wq − ow extra columns per output row
/// computed and dropped. Output channels fill the rows of the 8 × 48 tiles and pixels their
/// 16-lane columns: few output channels (PP-OCR's 24, BlazeFace's first layer's 24) waste
/// no lanes, and no im2col is written and read back.
enum ShiftedConvolution {
    /// Where the input's channels are, which is also the order of the filter's K axis:
    /// (c, ky, kx) for NCHW input and OIHW filters (ONNX), (ky, kx, c) for NHWC and OHWI (TFLite).
    enum Layout { case channelsFirst, channelsLast }

    /// Whether this process takes the path: its kernels run at AVX-512, where the 16-lane
    /// tiles pay (below, the im2col tiles and OpenBLAS are faster).
    static var built: Bool { KernelLevel.active >= .avx512 }

    /// Whether the 8-lane tiles take NCHW convolutions (`Conv.shiftedRowsApply`): the
    /// process's kernels are AVX2 ones (below, a tile's twelve accumulators spill).
    static var eightLane: Bool { KernelLevel.active == .avx2 }

    /// The shapes the path takes: more than one tap, no negative padding, and at least half of
    /// the 16-lane columns useful (below that OpenBLAS on im2col wins).
    static func fits(_ g: NHWC.Window) -> Bool {
        let n = g.oh * planeWidth(g)
        return g.kh * g.kw > 1 && g.pt >= 0 && g.pl >= 0 && 2 * g.oh * g.ow >= (n + 15) / 16 * 16
    }

    /// Columns of a phase plane: the output width plus the widest tap's shift within a phase.
    static func planeWidth(_ g: NHWC.Window) -> Int { g.ow + (g.kw - 1) * g.dw / g.sw }
    /// Rows of a phase plane, likewise.
    static func planeHeight(_ g: NHWC.Window) -> Int { g.oh + (g.kh - 1) * g.dh / g.sh }

    /// Floats of `run`'s phase-plane buffer: the planes, then zeros for the reads past the
    /// last one. `multiplyShifted` reads 48 columns from every block start below n, and the
    /// widest tap's shift reaches the wq − ow dropped columns past the last output row, so
    /// the slack is 48 + wq − ow (48 alone overran by up to kw − 2 floats).
    static func paddedCount(_ g: NHWC.Window) -> Int { paddedCount(g, rows: g.oh) }

    /// `paddedCount` for a band of `rows` output rows: its planes hold those rows plus the
    /// taps' reach below them.
    static func paddedCount(_ g: NHWC.Window, rows: Int) -> Int {
        g.c * g.sh * g.sw * (rows + planeHeight(g) - g.oh) * planeWidth(g) + 48 + planeWidth(g) - g.ow
    }

    /// Output rows per band of `run`: the band's planes (every channel and phase) within
    /// about 160 KB, so that the product reads them from L2 where the whole image's planes
    /// stream from memory (YOLOv8n's stem, 3 → 16 at stride 2 on 640 × 640: 4.1 → 2.8 ms).
    static func bandRows(_ g: NHWC.Window) -> Int {
        let rowFloats = max(1, g.c * g.sh * g.sw * planeWidth(g))
        return min(g.oh, max(1, 40_960 / rowFloats - (planeHeight(g) - g.oh)))
    }

    /// Where tap (ky, kx) of output pixel 0 reads, from the start of its channel's first
    /// phase plane (`plane` floats each): the plane of the tap's phase, then its shift.
    static func tapOffset(_ g: NHWC.Window, ky: Int, kx: Int, plane: Int) -> Int {
        let dy = ky * g.dh, dx = kx * g.dw
        return ((dy % g.sh) * g.sw + dx % g.sw) * plane + dy / g.sh * planeWidth(g) + dx / g.sw
    }

    /// The convolution of one image `x` by `weights` (outputs × K in `layout`'s order), for
    /// `outputs` channels, stored in `layout`: `y[o · oh · ow + oy · ow + ox]` (channels
    /// first, no bias: the caller adds it with its activation) or
    /// `y[(oy · ow + ox) · outputs + o]` (channels last, plus `bias`, clamped to `clamp`, as
    /// the result is transposed). Channels first with `activation`: each block's rows go
    /// through `ff_bias_activate_rows_f32` while they are in L1 (row o takes the
    /// activation's row o), the same operations a pass over `y` after would do.
    static func run(
        _ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, outputs: Int, y: UnsafeMutablePointer<Float>,
        bias: UnsafePointer<Float>? = nil, clamp: (Float, Float) = (-.infinity, .infinity), activation: UnsafePointer<ff_row_activation>? = nil
    ) {
        let (c, sh, sw) = (g.c, g.sh, g.sw)
        let wq = planeWidth(g), planes = c * sh * sw, K = c * g.kh * g.kw, P = g.oh * g.ow
        // Bands of output rows, each filling its own planes (rows + the taps' reach) and
        // multiplying them while they are in cache; a band buffer per thread.
        let rowsPerBand = bandRows(g), bands = (g.oh + rowsPerBand - 1) / rowsPerBand
        let bandPlaneRows = rowsPerBand + planeHeight(g) - g.oh, plane = bandPlaneRows * wq
        let bufferCount = paddedCount(g, rows: rowsPerBand)
        let slots = max(1, min(bands, Scratch.parallelism?.threads ?? 1))
        var offsets = [Int](repeating: 0, count: K)
        for ch in 0..<c {
            for ky in 0..<g.kh {
                for kx in 0..<g.kw {
                    let p = layout == .channelsFirst ? (ch * g.kh + ky) * g.kw + kx : (ky * g.kw + kx) * c + ch
                    offsets[p] = ch * sh * sw * plane + tapOffset(g, ky: ky, kx: kx, plane: plane)
                }
            }
        }
        var padded = Scratch.uninitialized(bufferCount * slots)
        padded.withUnsafeMutableBufferPointer { XP in
            offsets.withUnsafeBufferPointer { O in
                let base = XP.baseAddress!, tapOffsets = O.baseAddress!
                Scratch.parallelFor(slots, work: outputs * K * g.oh * wq) { slotRange in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: outputs * 48) { buffer in
                        let cb = buffer.baseAddress!
                        for slot in slotRange {
                            let xp = base + slot * bufferCount
                            (xp + planes * plane).update(repeating: 0, count: bufferCount - planes * plane)
                            for band in bands * slot / slots..<bands * (slot + 1) / slots {
                                let oy0 = band * rowsPerBand, n = min(rowsPerBand, g.oh - oy0) * wq
                                fill(g, layout: layout, x: x, into: xp, rows: bandPlaneRows, columns: wq, firstRow: oy0, split: false)
                                // Blocks of 48 columns, each multiplied into a small buffer and stored
                                // while it is in L1.
                                for j0 in stride(from: 0, to: n, by: 48) {
                                    let j1 = min(n, j0 + 48)
                                    Microkernel.multiplyShifted(
                                        m: outputs, n: j1 - j0, k: K, a: weights, lda: K, b: xp + j0, offsets: tapOffsets, c: cb, ldc: 48)
                                    if let activation, layout == .channelsFirst { ff_bias_activate_rows_f32(cb, outputs, j1 - j0, 48, activation) }
                                    // The block's runs of real pixels (columns ox < ow of each output row).
                                    var j = j0
                                    while j < j1 {
                                        let oy = j / wq, ox = j - oy * wq
                                        let count = min(j1, oy * wq + g.ow) - j
                                        if count > 0 {
                                            let src = cb + (j - j0), pixel = (oy0 + oy) * g.ow + ox
                                            if layout == .channelsFirst {
                                                for o in 0..<outputs { Microkernel.copy(y + o * P + pixel, from: src + o * 48, count: count) }
                                            } else {
                                                ff_transpose_bias_clamp_f32(src, 48, count, outputs, y + pixel * outputs, bias, clamp.0, clamp.1)
                                            }
                                        }
                                        j = (oy + 1) * wq
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&padded)
    }

    /// A depthwise convolution (one filter per channel, `weights` c × kh·kw) of one NCHW
    /// image through the same phase planes: output pixel j of channel ch is the sum over
    /// taps of the weight times the channel's plane of that tap's phase read at j plus
    /// the tap's offset, so each 16-pixel run of a channel is kh·kw vector loads and
    /// multiply-adds with no border tests, for any stride. `y` gets channel-major output
    /// plus `bias`; the caller applies any activation. Against the channels-last path it
    /// replaced on PP-OCR's wide planes, no transposes in and out.
    static func depthwise(
        _ g: NHWC.Window, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>
    ) {
        let (c, sh, sw) = (g.c, g.sh, g.sw)
        let hq = planeHeight(g), wq = planeWidth(g), plane = hq * wq, taps = g.kh * g.kw
        let n = g.oh * wq, P = g.oh * g.ow
        // Each tap's start relative to its channel's first phase plane.
        var offsets = [Int](repeating: 0, count: taps)
        for ky in 0..<g.kh { for kx in 0..<g.kw { offsets[ky * g.kw + kx] = tapOffset(g, ky: ky, kx: kx, plane: plane) } }
        // Slack after the last plane: a channel's last block of 64 reads up to 63 past its n
        // columns, and the widest tap up to (kw − 1)·dw / sw further.
        var padded = Scratch.uninitialized(c * sh * sw * plane + 64 + (g.kw - 1) * g.dw / sw)
        let bf = bias ?? []
        padded.withUnsafeMutableBufferPointer { XP in
            offsets.withUnsafeBufferPointer { O in
                bf.withUnsafeBufferPointer { B in
                    let xp = XP.baseAddress!, o = O.baseAddress!
                    (xp + c * sh * sw * plane).update(repeating: 0, count: XP.count - c * sh * sw * plane)
                    fill(g, layout: .channelsFirst, x: x, into: xp, rows: hq, columns: wq)
                    Scratch.parallelFor(c, work: c * taps * n, threshold: NHWC.memoryBoundSplit) { channels in
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: n + 64) { buffer in
                            let out = buffer.baseAddress!
                            for ch in channels {
                                ff_shifted_depthwise_f32(xp + ch * sh * sw * plane, o, taps, weights + ch * taps, B.isEmpty ? 0 : B[ch], n, out)
                                // The output rows: the first ow of each wq columns.
                                let yc = y + ch * P
                                for oy in 0..<g.oh { Microkernel.copy(yc + oy * g.ow, from: out + oy * wq, count: g.ow) }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&padded)
    }

    /// The phase planes of `x`, each `rows` × `columns`, zeros outside the image: each
    /// plane zeroed in one pass and the image's rows copied in (zeroing around each row
    /// took as long as PP-OCR's 16 × 24 convolution's product); planes split across threads.
    /// With `firstRow`, the planes' rows from that one on (a band of `run`); without `split`,
    /// on the calling thread.
    private static func fill(
        _ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, into xp: UnsafeMutablePointer<Float>, rows: Int, columns: Int, firstRow: Int = 0,
        split: Bool = true
    ) {
        let (c, h, w, sh, sw) = (g.c, g.h, g.w, g.sh, g.sw)
        let planes = c * sh * sw, plane = rows * columns
        let body: (Range<Int>) -> Void = { range in
            for p in range {
                let ch = p / (sh * sw), ry = p / sw % sh, rx = p % sw
                let dst = xp + p * plane
                dst.update(repeating: 0, count: plane)
                // Plane columns v with an input column v·sw + rx − pl inside the image.
                let inside = Conv.stridedRange(count: columns, stride: sw, offset: rx - g.pl, limit: w)
                if inside.isEmpty { continue }
                let ix0 = inside.lowerBound * sw + rx - g.pl
                // Plane rows u with an input row (firstRow + u)·sh + ry − pt inside the image.
                let rowOffset = firstRow * sh + ry - g.pt
                for u in Conv.stridedRange(count: rows, stride: sh, offset: rowOffset, limit: h) {
                    let iy = u * sh + rowOffset, d = dst + u * columns + inside.lowerBound
                    if layout == .channelsFirst {
                        let s = x + (ch * h + iy) * w + ix0
                        if sw == 1 {
                            Microkernel.copy(d, from: s, count: inside.count)
                        } else {
                            ff_strided_copy_f32(d, s, sw, inside.count, c * h * w - ((ch * h + iy) * w + ix0))
                        }
                    } else {
                        ff_strided_copy_f32(d, x + (iy * w + ix0) * c + ch, sw * c, inside.count, 0)
                    }
                }
            }
        }
        if split {
            Scratch.parallelFor(planes, work: planes * plane, threshold: NHWC.memoryBoundSplit, body)
        } else {
            body(0..<planes)
        }
    }
}
