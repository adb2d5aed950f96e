import CFrameFlowKernels
import Foundation
import FrameFlow

/// OpenCV's `HOGDescriptor` (Dalal–Triggs histograms of oriented gradients with a linear SVM),
/// read from the file OpenCV's `HOGDescriptor::save` writes (FileStorage XML), computing what
/// OpenCV 4.x computes: the same descriptors, scores and `detectMultiScale` boxes.
///
/// Features: optional gamma correction (square root), gradients by [−1, 0, 1] over an image
/// reflected at its borders (BORDER_REFLECT_101), for colour the channel with the largest
/// gradient, magnitude and OpenCV's fast polar angle, votes split between the two nearest
/// orientation bins, a Gaussian window over each block (OpenCV's σ), votes spread over the
/// neighbouring cells (trilinear), L2-Hys normalization (clip at the threshold, renormalize).
/// Descriptors list blocks column by column, cells column by column, bins. The float
/// operations are OpenCV's in its order, so scores agree to the last bit.
///
/// ```swift
/// let hog = try HOGDescriptor(contentsOfFile: ".build/fixtures/hog/hog_people_default.xml")
/// let people = try hog.detectMultiScale(frame, parameters: .init())   // OpenCV's defaults
/// ```
///
/// A malformed file is a `HOGModelError` naming the file, the element and its line.
public struct HOGDescriptor: Sendable {
    /// A width and a height in pixels.
    public struct Size: Sendable, Equatable {
        public var width: Int, height: Int
        /// A size of `width` × `height`.
        public init(_ width: Int, _ height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// The detection window.
    public var windowSize: Size
    /// Blocks (normalized together), their step, and cells (one histogram each).
    public var blockSize: Size, blockStride: Size, cellSize: Size
    /// Orientation bins per cell.
    public var bins: Int
    /// σ of the Gaussian weighting a block's pixels (the file's `winSigma`; OpenCV writes the
    /// effective value, (block width + block height) / 8 when it was left at −1).
    public var windowSigma: Double
    /// L2-Hys clipping threshold (0.2 in OpenCV's default).
    public var l2HysThreshold: Double
    /// Whether pixel values are square-rooted first.
    public var gammaCorrection: Bool
    /// Orientations over 360° instead of 180°.
    public var signedGradient: Bool
    /// The most pyramid levels `detectMultiScale` scans (`nlevels`).
    public var levels: Int
    /// The SVM weights, one per descriptor element, in descriptor order.
    public var svm: [Float]
    /// The SVM's constant term (the weight after the descriptor's; 0 when the file has none).
    public var bias: Float

    /// Floats in one window's descriptor.
    public var descriptorSize: Int {
        blockHistogramSize * ((windowSize.width - blockSize.width) / blockStride.width + 1)
            * ((windowSize.height - blockSize.height) / blockStride.height + 1)
    }
    /// Floats in one block's histogram.
    var blockHistogramSize: Int { bins * (blockSize.width / cellSize.width) * (blockSize.height / cellSize.height) }

    /// Loads a descriptor saved by OpenCV (`HOGDescriptor::save`, XML).
    public init(contentsOfFile path: String, limits: ResourceLimits = ResourceLimits()) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HOGModelError(file: path, element: "", line: 0, message: "cannot read the file")
        }
        try self.init(xml: data, file: path, limits: limits)
    }

    /// Parses a descriptor in OpenCV's FileStorage XML; `file` names it in errors. The first
    /// element under `<opencv_storage>` is the descriptor, whatever its name (as OpenCV's
    /// `load` without an object name takes it).
    public init(xml: Data, file: String = "<hog>", limits: ResourceLimits = ResourceLimits()) throws {
        let root: XMLTree.Element
        do {
            root = try XMLTree.parse(xml, file: file, maxDepth: min(limits.maxNestingDepth, 16))
        } catch let e as CascadeError {
            throw HOGModelError(file: e.file, element: e.element, line: e.line, message: e.message)
        }
        func fail(_ e: XMLTree.Element, _ m: String) -> HOGModelError { HOGModelError(file: file, element: e.path, line: e.line, message: m) }
        guard root.name == "opencv_storage" else { throw fail(root, "the root element must be <opencv_storage>") }
        guard let d = root.children.first else { throw fail(root, "no descriptor under <opencv_storage>") }
        func required(_ name: String) throws -> XMLTree.Element {
            guard let c = d.child(name) else { throw fail(d, "missing <\(name)>") }
            return c
        }
        func tokens(_ e: XMLTree.Element) -> [Substring] {
            e.text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        }
        func ints(_ name: String, count: Int, _ range: ClosedRange<Int>) throws -> [Int] {
            let e = try required(name)
            let t = tokens(e)
            guard t.count == count else { throw fail(e, "\(count == 1 ? "one integer" : "\(count) integers") expected, found \(t.count) values") }
            return try t.map { s in
                guard let v = Int(s) else { throw fail(e, "'\(s.prefix(40))' is not an integer") }
                guard range.contains(v) else { throw fail(e, "\(v) is out of range \(range.lowerBound)…\(range.upperBound)") }
                return v
            }
        }
        func number(_ name: String) throws -> Double {
            let e = try required(name)
            let t = tokens(e)
            guard t.count == 1, let v = Double(t[0]), v.isFinite else {
                throw fail(e, "'\(e.text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(40))' is not a finite number")
            }
            return v
        }
        func size(_ name: String) throws -> Size {
            let v = try ints(name, count: 2, 1...4096)
            return Size(v[0], v[1])
        }
        windowSize = try size("winSize")
        blockSize = try size("blockSize")
        blockStride = try size("blockStride")
        cellSize = try size("cellSize")
        bins = try ints("nbins", count: 1, 2...64)[0]
        if d.child("derivAperture") != nil { _ = try ints("derivAperture", count: 1, Int.min...Int.max) }
        let sigma = d.child("winSigma") == nil ? -1 : try number("winSigma")
        windowSigma = sigma > 0 ? sigma : Double(blockSize.width + blockSize.height) / 8
        guard windowSigma <= 1e6 else { throw fail(try required("winSigma"), "winSigma \(windowSigma) is out of range (0…1e6)") }
        if d.child("histogramNormType") != nil {
            guard try ints("histogramNormType", count: 1, Int.min...Int.max)[0] == 0 else {
                throw fail(try required("histogramNormType"), "only L2Hys (0) normalization exists")
            }
        }
        l2HysThreshold = d.child("L2HysThreshold") == nil ? 0.2 : try number("L2HysThreshold")
        guard l2HysThreshold > 0, l2HysThreshold <= 1e6 else {
            throw fail(try required("L2HysThreshold"), "L2HysThreshold \(l2HysThreshold) is out of range (above 0, at most 1e6)")
        }
        gammaCorrection = d.child("gammaCorrection") == nil ? true : try ints("gammaCorrection", count: 1, 0...1)[0] == 1
        levels = d.child("nlevels") == nil ? 64 : try ints("nlevels", count: 1, 1...1000)[0]
        signedGradient = d.child("signedGradient") == nil ? false : try ints("signedGradient", count: 1, 0...1)[0] == 1

        // The geometry OpenCV asserts, and the kernels' limits.
        func check(_ ok: Bool, _ name: String, _ m: String) throws { if !ok { throw fail(try required(name), m) } }
        try check(
            blockSize.width % cellSize.width == 0 && blockSize.height % cellSize.height == 0, "cellSize",
            "cellSize \(cellSize.width)×\(cellSize.height) does not divide blockSize \(blockSize.width)×\(blockSize.height)")
        try check(
            blockSize.width * blockSize.height <= 1024, "blockSize", "blockSize \(blockSize.width)×\(blockSize.height) is over 1024 pixels")
        try check(
            windowSize.width >= blockSize.width && windowSize.height >= blockSize.height, "winSize",
            "winSize \(windowSize.width)×\(windowSize.height) is smaller than blockSize \(blockSize.width)×\(blockSize.height)")
        try check(windowSize.width * windowSize.height <= 1 << 20, "winSize", "winSize \(windowSize.width)×\(windowSize.height) is over 2²⁰ pixels")
        try check(
            (windowSize.width - blockSize.width) % blockStride.width == 0 && (windowSize.height - blockSize.height) % blockStride.height == 0,
            "blockStride",
            "blocks \(blockSize.width)×\(blockSize.height) every \(blockStride.width)×\(blockStride.height) do not tile winSize "
                + "\(windowSize.width)×\(windowSize.height)")
        try check(
            blockStride.width <= blockSize.width && blockStride.height <= blockSize.height, "blockStride",
            "blockStride \(blockStride.width)×\(blockStride.height) is larger than blockSize")
        let hs = bins * (blockSize.width / cellSize.width) * (blockSize.height / cellSize.height)
        try check(hs >= 4, "nbins", "a block histogram of \(hs) values is too small (at least 4)")
        let dsize =
            hs * ((windowSize.width - blockSize.width) / blockStride.width + 1) * ((windowSize.height - blockSize.height) / blockStride.height + 1)
        try check(dsize <= 1 << 22, "winSize", "descriptors of \(dsize) values are too large")

        let svmElement = try required("SVMDetector")
        let t = tokens(svmElement)
        guard t.count == dsize || t.count == dsize + 1 else {
            throw fail(svmElement, "\(t.count) coefficients, the descriptor has \(dsize) (\(dsize) or \(dsize + 1) with the bias expected)")
        }
        var w = [Float]()
        w.reserveCapacity(t.count)
        for (i, s) in t.enumerated() {
            guard let v = Double(s) else { throw fail(svmElement, "coefficient \(i): '\(s.prefix(40))' is not a number") }
            let f = Float(v)
            guard f.isFinite else { throw fail(svmElement, "coefficient \(i) is \(s.prefix(40)), not a finite float") }
            w.append(f)
        }
        bias = t.count > dsize ? w[dsize] : 0
        svm = Array(w.prefix(dsize))
    }

    /// `detectMultiScale`'s parameters (OpenCV's defaults).
    public struct Parameters: Sendable {
        /// Windows scoring at least this are hits.
        public var hitThreshold: Double
        /// The window step; (0, 0) is the block stride.
        public var windowStride: Size
        /// Pixels added (reflected) on each side, rounded up to the cache step.
        public var padding: Size
        /// The pyramid's scale step (> 1; 1 scans the image at its own size only).
        public var scale: Double
        /// Groups need more than this many hits (`groupRectangles`, eps 0.2); 0 keeps every hit.
        public var groupThreshold: Int
        /// Only levels whose scaled window is at least this large, and at most `maxSize`
        /// ((0, 0): no limit). FrameFlow's addition; OpenCV scans every level.
        public var minSize: Size
        /// See `minSize`.
        public var maxSize: Size
        /// The image is first scaled by this (to round(w·upscale) × round(h·upscale), as
        /// `cv2.resize` with INTER_LINEAR_EXACT), so that people smaller than the window are
        /// found; boxes are mapped back to the image (round(x·w / scaled w)). FrameFlow's addition.
        public var upscale: Double
        /// OpenCV's defaults unless given.
        public init(
            hitThreshold: Double = 0, windowStride: Size = Size(0, 0), padding: Size = Size(0, 0), scale: Double = 1.05,
            groupThreshold: Int = 2, minSize: Size = Size(0, 0), maxSize: Size = Size(0, 0), upscale: Double = 1
        ) {
            self.upscale = upscale
            self.hitThreshold = hitThreshold
            self.windowStride = windowStride
            self.padding = padding
            self.scale = scale
            self.groupThreshold = groupThreshold
            self.minSize = minSize
            self.maxSize = maxSize
        }
    }

    /// A detection in image pixels, with the SVM score (the best of its group).
    public struct Hit: Sendable, Equatable {
        /// The box's top-left corner and size.
        public var x: Int, y: Int, width: Int, height: Int
        /// The SVM score: the window's, or the best of its group's.
        public var weight: Double
    }

    /// OpenCV's `cvRound`: half to even.
    @inline(__always) static func round(_ v: Double) -> Int { Int(saturating: v.rounded(.toNearestOrEven)) }

    /// The scales `detectMultiScale` scans for a `width`×`height` image.
    public func scales(width: Int, height: Int, parameters p: Parameters) -> [Double] {
        var all: [Double] = []
        var s = 1.0
        for _ in 0..<levels {
            all.append(s)
            if Self.round(Double(width) / s) < windowSize.width || Self.round(Double(height) / s) < windowSize.height || p.scale <= 1 {
                all.removeLast()
                break
            }
            s *= p.scale
        }
        if all.isEmpty { all = [1] }
        return all.filter { s in
            let w = Self.round(Double(windowSize.width) * s), h = Self.round(Double(windowSize.height) * s)
            return w >= p.minSize.width && h >= p.minSize.height && (p.maxSize.width <= 0 || w <= p.maxSize.width)
                && (p.maxSize.height <= 0 || h <= p.maxSize.height)
        }
    }

    /// The image as the kernels take it: grey, or packed B, G, R (OpenCV's channel order).
    struct Source {
        var bytes: [UInt8]
        var width: Int, height: Int, channels: Int
    }

    static func source(_ image: ImageFrame) throws -> Source {
        let w = image.width, h = image.height
        switch image.format {
        case .gray8:
            var b = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h { let r = image.row(y); for x in 0..<w { b[y * w + x] = r[x] } }
            return Source(bytes: b, width: w, height: h, channels: 1)
        case .rgb8, .rgba8, .bgra8:
            let n = image.format.bytesPerPixel()
            let (ri, bi) = image.format == .bgra8 ? (2, 0) : (0, 2)
            var b = [UInt8](repeating: 0, count: w * h * 3)
            b.withUnsafeMutableBufferPointer { out in
                for y in 0..<h {
                    let r = image.row(y)
                    let o = out.baseAddress! + y * w * 3
                    for x in 0..<w {
                        o[3 * x] = r[x * n + bi]
                        o[3 * x + 1] = r[x * n + 1]
                        o[3 * x + 2] = r[x * n + ri]
                    }
                }
            }
            return Source(bytes: b, width: w, height: h, channels: 3)
        default:
            throw ImageError.unsupportedFormat(image.format, "HOGDescriptor (gray8, rgb8, rgba8, bgra8; convert first)")
        }
    }

    var geometry: ff_hog_geometry {
        ff_hog_geometry(
            win_w: Int32(windowSize.width), win_h: Int32(windowSize.height), block_w: Int32(blockSize.width), block_h: Int32(blockSize.height),
            stride_x: Int32(blockStride.width), stride_y: Int32(blockStride.height), cell_w: Int32(cellSize.width),
            cell_h: Int32(cellSize.height), nbins: Int32(bins), gamma: gammaCorrection ? 1 : 0, signed_gradient: signedGradient ? 1 : 0,
            win_sigma: Float(windowSigma), l2hys_threshold: Float(l2HysThreshold))
    }

    /// Gradients of `src` over a grid padded by `pad` on each side.
    func gradients(_ src: Source, pad: Size) -> (grad: [Float], qangle: [UInt8], width: Int, height: Int) {
        let gw = src.width + 2 * pad.width, gh = src.height + 2 * pad.height
        var grad = [Float](repeating: 0, count: gw * gh * 2)
        var qangle = [UInt8](repeating: 0, count: gw * gh * 2)
        var scratch = [Float](repeating: 0, count: 4 * gw)
        var maps = [Int32](repeating: 0, count: gw + gh + 4)
        var g = geometry
        src.bytes.withUnsafeBufferPointer { img in
            ff_hog_gradient(
                img.baseAddress, src.width * src.channels, Int32(src.width), Int32(src.height), Int32(src.channels), Int32(pad.width),
                Int32(pad.height), &g, &grad, &qangle, &scratch, &maps)
        }
        return (grad, qangle, gw, gh)
    }

    /// Descriptors of the windows whose top-left corners are `locations` (image pixels; the
    /// window must lie inside the image), as OpenCV's `compute(img, locations:)` returns them.
    public func compute(_ image: ImageFrame, locations: [(x: Int, y: Int)]) throws -> [[Float]] {
        let src = try Self.source(image)
        let (grad, qangle, gw, _) = gradients(src, pad: Size(0, 0))
        let hs = blockHistogramSize
        let nbx = (windowSize.width - blockSize.width) / blockStride.width + 1
        let nby = (windowSize.height - blockSize.height) / blockStride.height + 1
        var g = geometry
        return try locations.map { loc in
            guard loc.x >= 0, loc.y >= 0, loc.x + windowSize.width <= src.width, loc.y + windowSize.height <= src.height else {
                throw GraphError(.invalidOption, "window at (\(loc.x), \(loc.y)) is not inside the \(src.width)×\(src.height) image")
            }
            var d = [Float](repeating: 0, count: descriptorSize)
            for bx in 0..<nbx {
                for by in 0..<nby {
                    let ofs = (loc.y + by * blockStride.height) * gw + loc.x + bx * blockStride.width
                    d.withUnsafeMutableBufferPointer { out in
                        grad.withUnsafeBufferPointer { gp in
                            qangle.withUnsafeBufferPointer { qp in
                                ff_hog_blocks(
                                    gp.baseAddress! + 2 * ofs, qp.baseAddress! + 2 * ofs, Int32(gw), &g, 1, 1, 1, 0, 1,
                                    out.baseAddress! + (bx * nby + by) * hs)
                            }
                        }
                    }
                }
            }
            return d
        }
    }

    /// OpenCV's `detectMultiScale` with weights: windows over an image pyramid (scales 1,
    /// s, s², … while the window fits, at most `levels`), each level resized from the image
    /// by bit-exact bilinear interpolation (INTER_LINEAR_EXACT), hits grouped by
    /// `groupRectangles` (eps 0.2, a group's weight its best hit's) and clipped to the image.
    /// `parallel` runs levels concurrently (e.g. a graph's `parallelFor`). Takes gray8 and
    /// RGB/RGBA/BGRA images (colour as OpenCV's BGR).
    public func detectMultiScale(
        _ image: ImageFrame, parameters p: Parameters,
        parallel: (Int, @escaping (Range<Int>) -> Void) -> Void = { n, body in body(0..<n) }
    ) throws -> [Hit] {
        guard p.hitThreshold.isFinite, p.scale.isFinite, p.scale >= 1, p.groupThreshold >= 0,
            p.windowStride.width >= 0, p.windowStride.height >= 0, p.padding.width >= 0, p.padding.height >= 0,
            p.padding.width <= 4096, p.padding.height <= 4096, p.upscale.isFinite, p.upscale >= 1, p.upscale <= 8
        else {
            throw GraphError(.invalidOption, "HOG parameters out of range (finite threshold, scale ≥ 1, 1 ≤ upscale ≤ 8, non-negative sizes)")
        }
        let original = try Self.source(image)
        let uw = Self.round(Double(original.width) * p.upscale), uh = Self.round(Double(original.height) * p.upscale)
        if uw != original.width || uh != original.height {
            let pixels = uw.multipliedReportingOverflow(by: uh)
            guard !pixels.overflow, pixels.partialValue <= ResourceLimits().maxImagePixels else {
                throw GraphError(.invalidOption, "upscale \(p.upscale) makes a \(uw)×\(uh) image, over the pixel limit")
            }
        }
        let src = uw == original.width && uh == original.height ? original : Self.resize(original, uw, uh)
        let stride = p.windowStride == Size(0, 0) ? blockStride : p.windowStride
        guard stride.width > 0, stride.height > 0 else { throw GraphError(.invalidOption, "win_stride must be positive (or both 0)") }
        let scales = scales(width: src.width, height: src.height, parameters: p)
        let me = self
        let results = HOGLevelSlots(count: scales.count)
        // The largest levels first, so that no worker is left with one at the end.
        parallel(scales.count) { range in
            for i in range { results.set(i, me.detectLevel(src, scale: scales[i], stride: stride, parameters: p)) }
        }
        var rects: [(Int, Int, Int, Int)] = []
        var weights: [Double] = []
        for i in 0..<scales.count {
            for h in results.get(i) {
                rects.append((h.x, h.y, h.width, h.height))
                weights.append(h.weight)
            }
        }
        let grouped = Self.group(rects, weights, threshold: p.groupThreshold, eps: 0.2)
        let back = (x: Double(original.width) / Double(src.width), y: Double(original.height) / Double(src.height))
        return grouped.compactMap { r in
            var x0 = max(r.x, 0), y0 = max(r.y, 0), x1 = min(r.x + r.width, src.width), y1 = min(r.y + r.height, src.height)
            if src.width != original.width || src.height != original.height {
                (x0, x1) = (Self.round(Double(x0) * back.x), Self.round(Double(x1) * back.x))
                (y0, y1) = (Self.round(Double(y0) * back.y), Self.round(Double(y1) * back.y))
            }
            guard x1 > x0, y1 > y0 else { return nil }
            return Hit(x: x0, y: y0, width: x1 - x0, height: y1 - y0, weight: r.weight)
        }
    }

    /// The hits of one pyramid level, in image pixels.
    func detectLevel(_ src: Source, scale: Double, stride: Size, parameters p: Parameters) -> [Hit] {
        let sw = Self.round(Double(src.width) / scale), sh = Self.round(Double(src.height) / scale)
        let level = sw == src.width && sh == src.height ? src : Self.resize(src, sw, sh)
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let cache = Size(gcd(stride.width, blockStride.width), gcd(stride.height, blockStride.height))
        let pad = Size(
            (p.padding.width + cache.width - 1) / cache.width * cache.width, (p.padding.height + cache.height - 1) / cache.height * cache.height)
        let gw = sw + 2 * pad.width, gh = sh + 2 * pad.height
        guard gw >= windowSize.width, gh >= windowSize.height else { return [] }
        let nwx = (gw - windowSize.width) / stride.width + 1, nwy = (gh - windowSize.height) / stride.height + 1
        let (grad, qangle, _, _) = gradients(level, pad: pad)
        let nx = ((nwx - 1) * stride.width + windowSize.width - blockSize.width) / cache.width + 1
        let hs = blockHistogramSize
        // Block histograms for bands of window rows, each band's at most ~32 MB (a stride of 1
        // has a block at every pixel): a window row needs `rowsPerWindow` block rows, and each
        // next one `step` more.
        let step = stride.height / cache.height, rowsPerWindow = (windowSize.height - blockSize.height) / cache.height + 1
        let band = max(1, ((32 << 20) / max(nx * hs * 4, 1) - rowsPerWindow) / step + 1)
        var g = geometry
        var hits: [(x: Int, y: Int, score: Double)] = []
        for wy0 in Swift.stride(from: 0, to: nwy, by: band) {
            let wy1 = min(nwy, wy0 + band)
            let r0 = wy0 * step, rows = (wy1 - 1 - wy0) * step + rowsPerWindow
            var blocks = [Float](repeating: 0, count: nx * rows * hs)
            ff_hog_blocks(grad, qangle, Int32(gw), &g, Int32(cache.width), Int32(cache.height), Int32(nx), Int32(r0), Int32(r0 + rows), &blocks)
            var xy = [Int32](repeating: 0, count: 2 * nwx * (wy1 - wy0))
            var scores = [Double](repeating: 0, count: nwx * (wy1 - wy0))
            // Window rows relative to the band: its first block row is the band's.
            let n = svm.withUnsafeBufferPointer { w in
                Int(
                    ff_hog_scan(
                        blocks, Int32(nx), &g, Int32(cache.width), Int32(cache.height), Int32(stride.width), Int32(stride.height), Int32(nwx), 0,
                        Int32(wy1 - wy0), w.baseAddress, Double(bias), p.hitThreshold, &xy, &scores))
            }
            for i in 0..<n { hits.append((Int(xy[2 * i]), Int(xy[2 * i + 1]) + wy0, scores[i])) }
        }
        let ww = Self.round(Double(windowSize.width) * scale), wh = Self.round(Double(windowSize.height) * scale)
        return hits.map { h in
            let x = h.x * stride.width - pad.width, y = h.y * stride.height - pad.height
            return Hit(x: Self.round(Double(x) * scale), y: Self.round(Double(y) * scale), width: ww, height: wh, weight: h.score)
        }
    }

    /// `src` resized to `dw`×`dh` as OpenCV's INTER_LINEAR_EXACT does it: source position
    /// (d + ½)·scale − ½ in double, weights rounded to 1/256, indices clamped to the image.
    static func resize(_ src: Source, _ dw: Int, _ dh: Int) -> Source {
        func taps(_ s: Int, _ d: Int, _ mult: Int) -> (ofs: [Int32], w: [Int32]) {
            let scale = 1.0 / (Double(d) / Double(s))
            var ofs = [Int32](), w = [Int32]()
            ofs.reserveCapacity(2 * d)
            w.reserveCapacity(2 * d)
            for i in 0..<d {
                let f = scale * (Double(i) + 0.5) - 0.5
                let k = Int(saturating: f.rounded(.down))
                let c1 = Int32(((f - Double(k)) * 256).rounded(.toNearestOrEven))  // checked: f − ⌊f⌋ is in [0, 1)
                ofs.append(Int32(min(max(k, 0), s - 1) * mult))
                ofs.append(Int32(min(max(k + 1, 0), s - 1) * mult))
                w.append(256 - c1)
                w.append(c1)
            }
            return (ofs, w)
        }
        let cn = src.channels
        let (xo1, xw1) = taps(src.width, dw, cn)
        // Per channel: every destination byte has its own source pair.
        var xofs = [Int32](repeating: 0, count: 2 * dw * cn), xw = [Int32](repeating: 0, count: 2 * dw * cn)
        for x in 0..<dw {
            for c in 0..<cn {
                let j = x * cn + c
                xofs[2 * j] = xo1[2 * x] + Int32(c)
                xofs[2 * j + 1] = xo1[2 * x + 1] + Int32(c)
                xw[2 * j] = xw1[2 * x]
                xw[2 * j + 1] = xw1[2 * x + 1]
            }
        }
        let (yofs, yw) = taps(src.height, dh, 1)
        var out = [UInt8](repeating: 0, count: dw * dh * cn)
        ff_hog_resize(src.bytes, src.width * cn, Int32(cn), &out, Int32(dw), Int32(dh), xofs, xw, yofs, yw)
        return Source(bytes: out, width: dw, height: dh, channels: cn)
    }

    /// `HOGDescriptor::groupRectangles`: clusters of similar boxes (cv::partition), kept when
    /// they have more than `threshold` members, averaged in double and rounded, weighted by
    /// their best member; clusters inside a stronger one are dropped. `threshold` 0 keeps all.
    static func group(_ rects: [(Int, Int, Int, Int)], _ weights: [Double], threshold: Int, eps: Double) -> [(
        x: Int, y: Int, width: Int, height: Int, weight: Double
    )] {
        if threshold <= 0 || rects.isEmpty {
            return zip(rects, weights).map { (x: $0.0, y: $0.1, width: $0.2, height: $0.3, weight: $1) }
        }
        let (labels, n) = GroupRectangles.partition(rects, eps: eps)
        var sums = Array(repeating: (0.0, 0.0, 0.0, 0.0), count: n)
        var counts = Array(repeating: 0, count: n)
        var best = Array(repeating: -Double.greatestFiniteMagnitude, count: n)
        for (i, l) in labels.enumerated() {
            sums[l].0 += Double(rects[i].0)
            sums[l].1 += Double(rects[i].1)
            sums[l].2 += Double(rects[i].2)
            sums[l].3 += Double(rects[i].3)
            best[l] = max(best[l], weights[i])
            counts[l] += 1
        }
        let avg = (0..<n).map { l -> (Int, Int, Int, Int) in
            let s = 1.0 / Double(counts[l])
            return (round(sums[l].0 * s), round(sums[l].1 * s), round(sums[l].2 * s), round(sums[l].3 * s))
        }
        var out: [(x: Int, y: Int, width: Int, height: Int, weight: Double)] = []
        for i in 0..<n where counts[i] > threshold {
            let r1 = avg[i], n1 = counts[i]
            var nested = false
            for j in 0..<n where j != i && counts[j] > threshold {
                let r2 = avg[j], n2 = counts[j]
                let dx = round(Double(r2.2) * eps), dy = round(Double(r2.3) * eps)
                if r1.0 >= r2.0 - dx && r1.1 >= r2.1 - dy && r1.0 + r1.2 <= r2.0 + r2.2 + dx && r1.1 + r1.3 <= r2.1 + r2.3 + dy
                    && (n2 > max(3, n1) || n1 < 3)
                {
                    nested = true
                    break
                }
            }
            if !nested { out.append((r1.0, r1.1, r1.2, r1.3, best[i])) }
        }
        return out
    }
}

/// A malformed HOG descriptor file: the file, the element path, its line and what is wrong.
public struct HOGModelError: Error, Sendable, CustomStringConvertible {
    /// The file, as given.
    public var file: String
    /// The element's path from the root (`opencv_storage/hog/SVMDetector`).
    public var element: String
    /// The element's line (0 when the file could not be read).
    public var line: Int
    /// What is wrong.
    public var message: String
    public var description: String { "\(file):\(line): <\(element)>: \(message)" }
}

/// Hits of levels run in parallel, one slot per level.
final class HOGLevelSlots: @unchecked Sendable {  // each slot is written once, read after the join
    private var slots: [[HOGDescriptor.Hit]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ v: [HOGDescriptor.Hit]) { lock.lock(); slots[i] = v; lock.unlock() }
    func get(_ i: Int) -> [HOGDescriptor.Hit] { lock.lock(); defer { lock.unlock() }; return slots[i] }
}
