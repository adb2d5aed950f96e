import CFrameFlowKernels
import Foundation
import FrameFlow

/// OpenCV's `CascadeClassifier::detectMultiScale`, in Swift, for Haar and LBP cascades.
///
/// The image is scanned with the cascade's fixed window over a pyramid of downscaled copies:
/// scales 1, f, f², … while the window fits (then limited to `minSize`…`maxSize`), each level
/// resized from the original with bit-exact bilinear interpolation (OpenCV's
/// `INTER_LINEAR_EXACT`), integral images per level (sum, squared sum, tilted), windows every
/// 2 pixels below scale 2 and every pixel above (one more pixel skipped after a window fails
/// the first stage), Haar features normalized by the window's standard deviation (windows of
/// nearly constant brightness are rejected), stage sums compared with the thresholds. Hits
/// are grouped with `groupRectangles(minNeighbors, eps 0.2)`. Scales run in parallel.
///
/// ```swift
/// let detector = HaarCascadeDetector(cascade: try CascadeClassifier(contentsOfFile: path))
/// let faces = try detector.detect(gray, parameters: .init(scaleFactor: 1.1, minNeighbors: 2, minSize: (30, 30)))
/// ```
public struct HaarCascadeDetector: Sendable {
    /// `detectMultiScale`'s parameters.
    public struct Parameters: Sendable {
        public var scaleFactor: Double
        public var minNeighbors: Int
        public var minSize: (width: Int, height: Int)
        /// (0, 0): the image size.
        public var maxSize: (width: Int, height: Int)
        public init(scaleFactor: Double = 1.1, minNeighbors: Int = 3, minSize: (Int, Int) = (0, 0), maxSize: (Int, Int) = (0, 0)) {
            self.scaleFactor = scaleFactor
            self.minNeighbors = minNeighbors
            self.minSize = minSize
            self.maxSize = maxSize
        }
    }

    /// A detection: the box in image pixels and how many raw hits its group had.
    public struct Hit: Sendable, Equatable {
        public var x: Int, y: Int, width: Int, height: Int
        public var neighbors: Int
    }

    public let cascade: CascadeClassifier
    private let stumps: [Stump]?
    private let subsets: [Int32]

    /// A one-split tree: feature, threshold, left and right values (the C kernel's layout).
    typealias Stump = ff_haar_stump

    public init(cascade: CascadeClassifier) {
        self.cascade = cascade
        if cascade.isStumpBased {
            stumps = cascade.stages.flatMap {
                $0.trees.map { t in
                    Stump(
                        feature: t.nodes[0].feature, threshold: t.nodes[0].threshold, left: t.leaves[-Int(t.nodes[0].left)],
                        right: t.leaves[-Int(t.nodes[0].right)])
                }
            }
        } else {
            stumps = nil
        }
        subsets = cascade.stages.flatMap { $0.trees.flatMap { $0.nodes.flatMap(\.subset) } }
    }

    /// OpenCV's `cvRound`: round half to even.
    @inline(__always) static func round(_ v: Float) -> Int { Int(saturating: v.rounded(.toNearestOrEven)) }
    @inline(__always) static func round(_ v: Double) -> Int { Int(saturating: v.rounded(.toNearestOrEven)) }

    /// The scales `detectMultiScale` scans for an image of `width`×`height`.
    public func scales(width: Int, height: Int, parameters p: Parameters) -> [Float] {
        let (ww, wh) = cascade.windowSize
        var all: [Float] = []
        var factor = 1.0
        while true {
            let w = Self.round(Double(ww) * factor), h = Self.round(Double(wh) * factor)
            if w > width || h > height { break }
            all.append(Float(factor))
            factor *= p.scaleFactor
            if all.count > 1000 { break }
        }
        let maxW = p.maxSize.width > 0 ? p.maxSize.width : width, maxH = p.maxSize.height > 0 ? p.maxSize.height : height
        var scales: [Float] = []
        for s in all {
            let w = Self.round(Float(ww) * s), h = Self.round(Float(wh) * s)
            if w > maxW || h > maxH { break }
            if w < p.minSize.width || h < p.minSize.height { continue }
            scales.append(s)
        }
        if scales.isEmpty && !all.isEmpty {
            // minSize == maxSize between two scales: the closest one, as OpenCV does.
            var best = 0, bestD = Double.infinity
            for (i, s) in all.enumerated() {
                let dw = Double(p.minSize.width - Self.round(Float(ww) * s)), dh = Double(p.minSize.height - Self.round(Float(wh) * s))
                if dw * dw + dh * dh < bestD { bestD = dw * dw + dh * dh; best = i }
            }
            scales.append(all[best])
        }
        return scales
    }

    /// Detects objects in a gray8 image. `parallel` runs the scales concurrently (e.g. a
    /// graph's `parallelFor`); by default they run in turn.
    public func detect(
        _ gray: ImageFrame, parameters p: Parameters,
        parallel: (Int, @escaping (Range<Int>) -> Void) -> Void = { n, body in body(0..<n) }
    ) throws -> [Hit] {
        guard gray.format == .gray8 else { throw ImageError.unsupportedFormat(gray.format, "HaarCascadeDetector (convert to gray8 first)") }
        guard p.scaleFactor > 1 else { throw GraphError(.invalidOption, "scale_factor must be greater than 1") }
        let (ww, wh) = cascade.windowSize
        let W = gray.width, H = gray.height
        guard W >= ww, H >= wh else { return [] }
        let scales = scales(width: W, height: H, parameters: p)
        guard !scales.isEmpty else { return [] }
        // Stripes as OpenCV cuts them: this decides which rows the last stripe reaches.
        let sz0 = (Self.round(Float(W) / scales[0]), Self.round(Float(H) / scales[0]))
        let nstripes = Int(saturating: (Double(max(sz0.0 + 1 - ww, 0)) / 32).rounded(.up))
        // Levels are built in parallel, then every level's rows are cut into bands so that
        // the big levels do not leave workers idle.
        let levels = LevelSlots(count: scales.count)
        let me = self
        let tilted = cascade.haarFeatures.contains { $0.tilted }
        parallel(scales.count) { range in
            for i in range {
                let s = scales[i]
                let sw = Self.round(Float(W) / s), sh = Self.round(Float(H) / s)
                if sw >= ww && sh >= wh { levels.set(i, PyramidLevel(gray, width: sw, height: sh, tilted: tilted)) }
            }
        }
        var tasks: [(scale: Int, rows: Range<Int>)] = []
        for i in 0..<scales.count {
            guard let level = levels.get(i) else { continue }
            let rows = scanRows(level, scale: scales[i], nstripes: nstripes)
            let step = max(8, (rows.count + 7) / 8)
            for lo in stride(from: 0, to: rows.count, by: step) { tasks.append((i, lo..<min(lo + step, rows.count))) }
        }
        let allRows = (0..<scales.count).map { i in levels.get(i).map { me.scanRows($0, scale: scales[i], nstripes: nstripes) } ?? [] }
        let results = ResultSlots(count: tasks.count)
        parallel(tasks.count) { range in
            for t in range {
                let task = tasks[t]
                guard let level = levels.get(task.scale) else { continue }
                results.set(t, me.scan(level, scale: scales[task.scale], rows: Array(allRows[task.scale][task.rows])))
            }
        }
        var candidates: [(Int, Int, Int, Int)] = []
        for t in 0..<tasks.count { candidates += results.get(t) }
        let grouped = GroupRectangles.group(candidates, threshold: p.minNeighbors, eps: 0.2)
        // Clip to the image, drop empty boxes.
        return grouped.compactMap { r in
            let x0 = max(r.x, 0), y0 = max(r.y, 0), x1 = min(r.x + r.width, W), y1 = min(r.y + r.height, H)
            guard x1 > x0, y1 > y0 else { return nil }
            return Hit(x: x0, y: y0, width: x1 - x0, height: y1 - y0, neighbors: r.neighbors)
        }
    }

    /// The integral images (sum, squared sum, tilted) of a gray8 image, as OpenCV's
    /// `integral3` computes them; for tests and tools.
    public static func integrals(of gray: ImageFrame) -> (sum: [Int32], sqsum: [Int32], tilted: [Int32]) {
        let l = PyramidLevel(gray, width: gray.width, height: gray.height, tilted: true)
        return (l.sum, l.sqsum, l.tilted)
    }

    /// The window rows OpenCV scans on a level: every `ystep`-th row, up to where its
    /// stripes reach.
    func scanRows(_ level: PyramidLevel, scale s: Float, nstripes: Int) -> [Int] {
        let (_, wh) = cascade.windowSize
        let ystep = s >= 2 ? 1 : 2
        let szwH = max(level.height + 1 - wh, 0)
        let stripe = max((szwH / ystep + nstripes - 1) / max(nstripes, 1), 1) * ystep
        let yLimit = min(nstripes * stripe, szwH)
        return Array(stride(from: 0, to: yLimit, by: ystep))
    }

    /// Raw hits on `rows` of one level, in original-image pixels.
    func scan(_ level: PyramidLevel, scale s: Float, rows: [Int]) -> [(Int, Int, Int, Int)] {
        let (ww, wh) = cascade.windowSize
        let ystep = s >= 2 ? 1 : 2
        let szwW = max(level.width + 1 - ww, 0)
        let win = (Self.round(Float(ww) * s), Self.round(Float(wh) * s))
        var out: [(Int, Int, Int, Int)] = []
        let evaluator = Evaluator(self, level)
        for y in rows {
            var x = 0
            while x < szwW {
                let r = evaluator.run(x, y)
                if r > 0 { out.append((Self.round(Float(x) * s), Self.round(Float(y) * s), win.0, win.1)) }
                if r == 0 { x += ystep }
                x += ystep
            }
        }
        return out
    }

    /// A Haar feature with its integral offsets for one level: flat, so the hot loop reads
    /// it without reference counting.
    struct OptHaar {
        var o: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
        var w0: Float, w1: Float, w2: Float
        var tilted: Bool
    }

    /// Feature evaluation on one pyramid level, offsets precomputed for its stride.
    struct Evaluator {
        let detector: HaarCascadeDetector
        let level: PyramidLevel
        let haar: [OptHaar]
        /// `haar` for the stump kernel (`ff_haar_stumps`).
        let haarC: [ff_haar_feature]
        let lbp: [[Int]]
        let norm: (Int, Int, Int, Int)
        let area: Double
        let stageSizes: [Int]
        let stageSizes32: [Int32]
        let stageThresholds: [Float]

        init(_ d: HaarCascadeDetector, _ level: PyramidLevel) {
            detector = d
            self.level = level
            let step = level.stride
            func sumOfs(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int, Int, Int) {
                (x + step * y, x + w + step * y, x + step * (y + h), x + w + step * (y + h))
            }
            func tiltedOfs(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int, Int, Int) {
                (x + step * y, x - h + step * (y + h), x + w + step * (y + w), x + w - h + step * (y + w + h))
            }
            haar = d.cascade.haarFeatures.map { f in
                let o = f.rects.map { r in
                    f.tilted ? tiltedOfs(Int(r.x), Int(r.y), Int(r.width), Int(r.height)) : sumOfs(Int(r.x), Int(r.y), Int(r.width), Int(r.height))
                }
                let o2 = o.count > 2 ? o[2] : (0, 0, 0, 0)
                return OptHaar(
                    o: (o[0].0, o[0].1, o[0].2, o[0].3, o[1].0, o[1].1, o[1].2, o[1].3, o2.0, o2.1, o2.2, o2.3),
                    w0: f.rects[0].weight, w1: f.rects[1].weight, w2: f.rects.count > 2 ? f.rects[2].weight : 0, tilted: f.tilted)
            }
            haarC = haar.map { f in
                ff_haar_feature(o: f.o, w: (f.w0, f.w1, f.w2), tilted: f.tilted ? 1 : 0)
            }
            lbp = d.cascade.lbpFeatures.map { r in
                // The 4×4 grid of integral corners of the 3×3 blocks.
                var o = [Int](repeating: 0, count: 16)
                for gy in 0..<4 { for gx in 0..<4 { o[gy * 4 + gx] = (Int(r.x) + gx * Int(r.width)) + step * (Int(r.y) + gy * Int(r.height)) } }
                return o
            }
            let (ww, wh) = d.cascade.windowSize
            norm = sumOfs(1, 1, ww - 2, wh - 2)
            area = Double((ww - 2) * (wh - 2))
            stageSizes = d.cascade.stages.map(\.trees.count)
            stageSizes32 = stageSizes.map { Int32($0) }
            stageThresholds = d.cascade.stages.map(\.threshold)
        }

        /// 1: passed every stage; −k: rejected at stage k (0: the first); −1 also when the
        /// window is too flat to normalize.
        @inline(__always) func run(_ x: Int, _ y: Int) -> Int {
            let base = x + level.stride * y
            var vnf: Float = 1
            let isHaar = detector.cascade.featureType == .haar
            if isHaar {
                let (s, q) = level.sum.withUnsafeBufferPointer { sum in
                    level.sqsum.withUnsafeBufferPointer { sq in
                        (
                            sum[base + norm.0] &- sum[base + norm.1] &- sum[base + norm.2] &+ sum[base + norm.3],
                            UInt32(bitPattern: sq[base + norm.0] &- sq[base + norm.1] &- sq[base + norm.2] &+ sq[base + norm.3])
                        )
                    }
                }
                var nf = area * Double(q) - Double(s) * Double(s)
                if nf > 0 {
                    nf = nf.squareRoot()
                    vnf = Float(1 / nf)
                    if !(area * Double(vnf) < 0.1) { return -1 }
                } else {
                    return -1
                }
            }
            if let stumps = detector.stumps, isHaar {
                return stumps.withUnsafeBufferPointer { st in
                    haarC.withUnsafeBufferPointer { hf in
                        stageSizes32.withUnsafeBufferPointer { sizes in
                            stageThresholds.withUnsafeBufferPointer { thresholds in
                                level.sum.withUnsafeBufferPointer { sum in
                                    level.tilted.withUnsafeBufferPointer { tl in
                                        Int(
                                            ff_haar_stumps(
                                                st.baseAddress, hf.baseAddress, sizes.baseAddress, thresholds.baseAddress, Int32(sizes.count),
                                                sum.baseAddress, tl.baseAddress, base, vnf))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if let stumps = detector.stumps {
                // LBP stumps: each looks its code up in the stump's 256-bit subset.
                return stumps.withUnsafeBufferPointer { st in
                    detector.subsets.withUnsafeBufferPointer { subsets in
                        var k = 0
                        for si in 0..<stageSizes.count {
                            var tmp = 0.0
                            for _ in 0..<stageSizes[si] {
                                let stump = st[k]
                                let c = lbpCode(Int(stump.feature), base)
                                let bits = subsets[k &* 8 &+ (c >> 5)]
                                tmp += Double((bits & (1 << Int32(c & 31))) != 0 ? stump.left : stump.right)
                                k &+= 1
                            }
                            if tmp < Double(stageThresholds[si]) { return -si }
                        }
                        return 1
                    }
                }
            }
            // Trees deeper than one split.
            for (si, stage) in detector.cascade.stages.enumerated() {
                var sumStage = 0.0
                for tree in stage.trees {
                    var idx: Int32 = 0
                    repeat {
                        let node = tree.nodes[Int(idx)]
                        if isHaar {
                            let v =
                                level.sum.withUnsafeBufferPointer { sum in
                                    level.tilted.withUnsafeBufferPointer { tl in Self.haarValue(haar[Int(node.feature)], base, sum, tl) }
                                } * vnf
                            idx = v < node.threshold ? node.left : node.right
                        } else {
                            let c = lbpCode(Int(node.feature), base)
                            let bits = node.subset[c >> 5]
                            idx = (bits & (1 << Int32(c & 31))) != 0 ? node.left : node.right
                        }
                    } while idx > 0
                    sumStage += Double(tree.leaves[Int(-idx)])
                }
                if sumStage < Double(stage.threshold) { return -si }
            }
            return 1
        }

        /// The weighted rectangle sums, in OpenCV's float order.
        @inline(__always) static func haarValue(
            _ f: OptHaar, _ base: Int, _ sum: UnsafeBufferPointer<Int32>, _ tilted: UnsafeBufferPointer<Int32>
        ) -> Float {
            let t = f.tilted ? tilted : sum
            let o = f.o
            let r0 = t[base &+ o.0] &- t[base &+ o.1] &- t[base &+ o.2] &+ t[base &+ o.3]
            let r1 = t[base &+ o.4] &- t[base &+ o.5] &- t[base &+ o.6] &+ t[base &+ o.7]
            var r = f.w0 * Float(r0) + f.w1 * Float(r1)
            if f.w2 != 0 {
                let r2 = t[base &+ o.8] &- t[base &+ o.9] &- t[base &+ o.10] &+ t[base &+ o.11]
                r += f.w2 * Float(r2)
            }
            return r
        }

        @inline(__always) func lbpCode(_ f: Int, _ base: Int) -> Int {
            lbp[f].withUnsafeBufferPointer { o in
                level.sum.withUnsafeBufferPointer { s in
                    @inline(__always) func block(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int32 {
                        s[base &+ o[a]] &- s[base &+ o[b]] &- s[base &+ o[c]] &+ s[base &+ o[d]]
                    }
                    let c = block(5, 6, 9, 10)
                    var code = 0
                    if block(0, 1, 4, 5) >= c { code |= 128 }
                    if block(1, 2, 5, 6) >= c { code |= 64 }
                    if block(2, 3, 6, 7) >= c { code |= 32 }
                    if block(6, 7, 10, 11) >= c { code |= 16 }
                    if block(10, 11, 14, 15) >= c { code |= 8 }
                    if block(9, 10, 13, 14) >= c { code |= 4 }
                    if block(8, 9, 12, 13) >= c { code |= 2 }
                    if block(4, 5, 8, 9) >= c { code |= 1 }
                    return code
                }
            }
        }
    }
}

/// One pyramid level: the image resized with bit-exact bilinear interpolation, and its
/// integral images (Int32, wrapping as OpenCV's).
struct PyramidLevel {
    let width: Int, height: Int
    /// Row stride of the integrals: width + 1.
    let stride: Int
    let sum: [Int32]
    let sqsum: [Int32]
    let tilted: [Int32]

    init(_ gray: ImageFrame, width: Int, height: Int, tilted needTilted: Bool) {
        self.width = width
        self.height = height
        let img = PyramidLevel.resizeExact(gray, width, height)
        stride = width + 1
        var sum = [Int32](repeating: 0, count: stride * (height + 1))
        var sq = [Int32](repeating: 0, count: stride * (height + 1))
        for y in 0..<height {
            var rs: Int32 = 0, rq: Int32 = 0
            for x in 0..<width {
                let v = Int32(img[y * width + x])
                rs &+= v
                rq &+= v &* v
                sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1] &+ rs
                sq[(y + 1) * stride + x + 1] = sq[y * stride + x + 1] &+ rq
            }
        }
        self.sum = sum
        self.sqsum = sq
        self.tilted = needTilted ? PyramidLevel.tiltedIntegral(img, width, height) : []
    }

    /// OpenCV's tilted integral: T(X, Y) = Σ I(x, y) over y < Y, |x − X + 1| ≤ Y − y − 1,
    /// by the recurrence T(X,Y) = T(X−1,Y−1) + T(X+1,Y−1) − T(X,Y−2) + I(X−1,Y−1) + I(X−1,Y−2),
    /// computed on columns widened by the height so the triangles never leave the buffer.
    static func tiltedIntegral(_ img: [UInt8], _ w: Int, _ h: Int) -> [Int32] {
        let pad = h + 2
        let ew = w + 1 + 2 * pad
        var t = [Int32](repeating: 0, count: ew * (h + 1))
        func I(_ x: Int, _ y: Int) -> Int32 { x >= 0 && x < w && y >= 0 && y < h ? Int32(img[y * w + x]) : 0 }
        for Y in 1...max(h, 1) where h > 0 {
            for ex in 1..<(ew - 1) {
                let X = ex - pad
                var v = t[(Y - 1) * ew + ex - 1] &+ t[(Y - 1) * ew + ex + 1] &+ I(X - 1, Y - 1)
                if Y >= 2 { v = v &- t[(Y - 2) * ew + ex] &+ I(X - 1, Y - 2) }
                t[Y * ew + ex] = v
            }
        }
        var out = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for Y in 0...h { for X in 0...w { out[Y * (w + 1) + X] = t[Y * ew + X + pad] } }
        return out
    }

    /// Bilinear resize with 8-bit fixed-point weights, bit-exact with OpenCV's
    /// `INTER_LINEAR_EXACT` (the rule its own test states): source position
    /// (d + ½)·scale − ½ in double, weights rounded to 1/256, indices clamped to the image,
    /// result ((p00·x0 + p01·x1)·y0 + (p10·x0 + p11·x1)·y1 + 2¹⁵) >> 16.
    static func resizeExact(_ gray: ImageFrame, _ dw: Int, _ dh: Int) -> [UInt8] {
        let sw = gray.width, sh = gray.height
        var out = [UInt8](repeating: 0, count: dw * dh)
        if dw == sw && dh == sh {
            for y in 0..<sh { let r = gray.row(y); for x in 0..<sw { out[y * sw + x] = r[x] } }
            return out
        }
        func taps(_ src: Int, _ dst: Int) -> [(Int, Int, Int64, Int64)] {
            let scale = 1.0 / (Double(dst) / Double(src))
            return (0..<dst).map { d in
                let f = scale * (Double(d) + 0.5) - 0.5
                let s = Int(saturating: f.rounded(.down))
                let c1 = Int64(saturating: ((f - Double(s)) * 256).rounded(.toNearestOrEven))
                return (min(max(s, 0), src - 1), min(max(s + 1, 0), src - 1), 256 - c1, c1)
            }
        }
        let xt = taps(sw, dw), yt = taps(sh, dh)
        for y in 0..<dh {
            let (r0, r1, y0, y1) = yt[y]
            let a = gray.row(r0), b = gray.row(r1)
            for x in 0..<dw {
                let (c0, c1, x0, x1) = xt[x]
                let top = Int64(a[c0]) * x0 + Int64(a[c1]) * x1
                let bot = Int64(b[c0]) * x0 + Int64(b[c1]) * x1
                out[y * dw + x] = UInt8(min(255, (top * y0 + bot * y1 + 32768) >> 16))
            }
        }
        return out
    }
}

/// Pyramid levels built in parallel, one slot per scale.
final class LevelSlots: @unchecked Sendable {  // each slot is written once, read after the join
    private var slots: [PyramidLevel?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ v: PyramidLevel) { lock.lock(); slots[i] = v; lock.unlock() }
    func get(_ i: Int) -> PyramidLevel? { lock.lock(); defer { lock.unlock() }; return slots[i] }
}

/// Results written by parallel scans, one slot per task.
final class ResultSlots: @unchecked Sendable {  // each slot is written by exactly one band
    private var slots: [[(Int, Int, Int, Int)]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ v: [(Int, Int, Int, Int)]) { lock.lock(); slots[i] = v; lock.unlock() }
    func get(_ i: Int) -> [(Int, Int, Int, Int)] { lock.lock(); defer { lock.unlock() }; return slots[i] }
}
