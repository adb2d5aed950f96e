import FrameFlow

/// Cheap motion detection as Frigate does it, bit-exact with the OpenCV calls it is made of
/// (`scripts/fixtures/make_motion_fixtures.py` runs them): the grey frame is resized to a small
/// working frame (`frameHeight` rows, `frameHeight · W / H` columns, `INTER_LINEAR_EXACT`),
/// blurred (OpenCV's binomial `GaussianBlur` of size 3 or 5, reflected borders), compared with a
/// running-average background (`absdiff(blurred, convertScaleAbs(average))`, then
/// `accumulateWeighted(blurred, average, frameAlpha)` in `Float`), thresholded (`> threshold`),
/// dilated (`dilation` times with a 3 × 3 square) and split into 8-connected components; those of
/// at least `minArea` working pixels are the motion boxes, scaled back to the frame.
///
/// The first frame seeds the background and has no motion. When more than
/// `lightningThreshold` of the working frame changes at once it is a lighting change (a light
/// switched on, a cloud, the camera's exposure): no motion, and the background is re-seeded
/// with the frame; a slow ramp is absorbed by the running average. Working pixels whose centre
/// lies inside a mask polygon (normalised 0…1 coordinates, even-odd rule) never count.
///
/// Float steps: only `accumulateWeighted` is floating point (`src·α + avg·(1 − α)` in `Float`);
/// OpenCV's SIMD loop may fuse the multiply-add (one rounding instead of two, ≤ 1 ulp ≈ 1.5e-5 at
/// 255), which changes `convertScaleAbs` only when an average lies within that of a .5 tie, so
/// a delta differs by at most 1 and a box only when that delta is exactly at the threshold.
///
/// ```swift
/// var motion = try MotionDetector(MotionDetector.Parameters())
/// let result = try motion.detect(grayFrame)   // result.boxes: frame pixels
/// ```
public struct MotionDetector: Sendable {
    /// The detector's settings (Frigate's `motion` config, in working pixels).
    public struct Parameters: Sendable, Equatable {
        /// Rows of the working frame (its width follows the frame's aspect ratio).
        public var frameHeight = 100
        /// Gaussian blur size: 1 (none), 3 or 5.
        public var blurKernelSize = 3
        /// Weight of the new frame in the running-average background.
        public var frameAlpha = 0.02
        /// A working pixel moves when it differs from the background by more than this.
        public var threshold = 30
        /// Dilations of the motion pixels with a 3 × 3 square.
        public var dilation = 2
        /// Smallest component (working pixels) that counts as motion.
        public var minArea = 10
        /// Fraction of the working frame above which a change is lighting, not motion.
        public var lightningThreshold = 0.8
        /// Polygons (normalised x, y points) where motion never counts.
        public var mask: [[Point]] = []
        public init() {}
    }

    /// A motion box in working pixels, with its component's pixel count.
    public struct Box: Sendable, Hashable, Comparable {
        public var x: Int, y: Int, width: Int, height: Int, area: Int
        public init(x: Int, y: Int, width: Int, height: Int, area: Int) {
            (self.x, self.y, self.width, self.height, self.area) = (x, y, width, height, area)
        }
        public static func < (a: Box, b: Box) -> Bool { (a.x, a.y, a.width, a.height) < (b.x, b.y, b.width, b.height) }
    }

    /// One frame's answer.
    public struct Result: Sendable, Equatable {
        /// Motion boxes in working pixels, sorted by x, y, width, height.
        public var workingBoxes: [Box] = []
        /// The same boxes in frame pixels.
        public var boxes: [Rect] = []
        /// Whether the frame was taken for a lighting change (the background was re-seeded).
        public var lightning = false
        /// Fraction of the working frame that changed (after dilation and mask).
        public var changedFraction = 0.0
        /// The working frame's size.
        public var workingWidth = 0, workingHeight = 0
    }

    public let parameters: Parameters
    private var average: [Float] = []
    private var mask: [Bool] = []
    private var size: (frame: (Int, Int), working: (Int, Int))?

    /// A detector with `parameters` (checked: see `Parameters.validate`).
    public init(_ parameters: Parameters) throws {
        try parameters.validate()
        self.parameters = parameters
    }

    /// Forgets the background: the next frame seeds it.
    public mutating func reset() {
        average = []
        size = nil
    }

    /// The working frame's size for a `width` × `height` frame.
    public func workingSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (parameters.frameHeight * width / height, parameters.frameHeight)
    }

    /// Motion in a gray8 frame, against the frames before it (a new frame size starts over).
    public mutating func detect(_ gray: ImageFrame) throws -> Result {
        guard gray.format == .gray8 else { throw ImageError.unsupportedFormat(gray.format, "motion detection (gray8)") }
        let (w, h) = workingSize(width: gray.width, height: gray.height)
        guard w >= 4, h >= 4 else {
            throw GraphError(
                .calculatorFailed,
                "a \(gray.width)×\(gray.height) frame gives a \(w)×\(h) working frame; motion needs at least 4×4 (frame_height \(parameters.frameHeight))"
            )
        }
        if size == nil || size!.frame != (gray.width, gray.height) {
            size = ((gray.width, gray.height), (w, h))
            average = []
            mask = Self.rasterize(parameters.mask, w, h)
        }
        var small = PyramidLevel.resizeExact(gray, w, h)
        if parameters.blurKernelSize > 1 { small = Self.binomialBlur(small, w, h, parameters.blurKernelSize) }
        var result = Result()
        (result.workingWidth, result.workingHeight) = (w, h)
        guard !average.isEmpty else {
            average = small.map { Float($0) }
            return result
        }
        let n = w * h
        var moving = [UInt8](repeating: 0, count: n)
        let a = Float(parameters.frameAlpha), b = 1 - a, t = parameters.threshold
        small.withUnsafeBufferPointer { s in
            average.withUnsafeMutableBufferPointer { avg in
                mask.withUnsafeBufferPointer { m in
                    for i in 0..<n {
                        let background = Int(saturating: min(abs(avg[i]).rounded(.toNearestOrEven), 255))
                        let delta = abs(Int(s[i]) - background)
                        avg[i] = Float(s[i]) * a + avg[i] * b
                        if delta > t && !m[i] { moving[i] = 1 }
                    }
                }
            }
        }
        for _ in 0..<parameters.dilation { moving = Self.dilate3x3(moving, w, h) }
        var count = 0
        for i in 0..<n {
            if mask[i] { moving[i] = 0 }
            count += Int(moving[i])
        }
        result.changedFraction = Double(count) / Double(n)
        if Double(count) > parameters.lightningThreshold * Double(n) {
            average = small.map { Float($0) }
            result.lightning = true
            return result
        }
        result.workingBoxes = Self.components(moving, w, h).filter { $0.area >= parameters.minArea }.sorted()
        let sx = Double(gray.width) / Double(w), sy = Double(gray.height) / Double(h)
        result.boxes = result.workingBoxes.map {
            Rect(x: Double($0.x) * sx, y: Double($0.y) * sy, width: Double($0.width) * sx, height: Double($0.height) * sy)
        }
        return result
    }

    /// OpenCV's 8-bit `GaussianBlur` for sizes 3 and 5 with sigma 0: the binomial kernels
    /// (1 2 1, 1 4 6 4 1), exact in its fixed point, so an integer sum rounded half up;
    /// `BORDER_REFLECT_101`.
    static func binomialBlur(_ src: [UInt8], _ w: Int, _ h: Int, _ k: Int) -> [UInt8] {
        let taps = k == 3 ? [1, 2, 1] : [1, 4, 6, 4, 1]
        let r = k / 2, total = taps.reduce(0, +) * taps.reduce(0, +)
        func reflect(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i) }
        var rows = [Int](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0
                for j in 0..<k { s += taps[j] * Int(src[y * w + reflect(x + j - r, w)]) }
                rows[y * w + x] = s
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s = 0
                for j in 0..<k { s += taps[j] * rows[reflect(y + j - r, h) * w + x] }
                out[y * w + x] = UInt8((s + total / 2) / total)
            }
        }
        return out
    }

    /// One dilation with a 3 × 3 square; outside the frame counts as not moving.
    static func dilate3x3(_ src: [UInt8], _ w: Int, _ h: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var v: UInt8 = 0
                for yy in max(y - 1, 0)...min(y + 1, h - 1) {
                    for xx in max(x - 1, 0)...min(x + 1, w - 1) where src[yy * w + xx] != 0 { v = 1 }
                }
                out[y * w + x] = v
            }
        }
        return out
    }

    /// 8-connected components of the non-zero pixels: bounding box and pixel count of each.
    static func components(_ bits: [UInt8], _ w: Int, _ h: Int) -> [Box] {
        var seen = [Bool](repeating: false, count: w * h)
        var boxes: [Box] = []
        var stack: [Int] = []
        for start in 0..<(w * h) where bits[start] != 0 && !seen[start] {
            var (x0, y0, x1, y1, area) = (w, h, -1, -1, 0)
            seen[start] = true
            stack.append(start)
            while let p = stack.popLast() {
                let x = p % w, y = p / w
                (x0, y0, x1, y1) = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
                area += 1
                for yy in max(y - 1, 0)...min(y + 1, h - 1) {
                    for xx in max(x - 1, 0)...min(x + 1, w - 1) {
                        let q = yy * w + xx
                        if bits[q] != 0 && !seen[q] {
                            seen[q] = true
                            stack.append(q)
                        }
                    }
                }
            }
            boxes.append(Box(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, area: area))
        }
        return boxes
    }

    /// The working pixels whose centre lies inside any polygon (even-odd crossing test).
    static func rasterize(_ polygons: [[Point]], _ w: Int, _ h: Int) -> [Bool] {
        var out = [Bool](repeating: false, count: w * h)
        guard !polygons.isEmpty else { return out }
        for y in 0..<h {
            for x in 0..<w {
                let px = (Double(x) + 0.5) / Double(w), py = (Double(y) + 0.5) / Double(h)
                for poly in polygons where contains(poly, px, py) { out[y * w + x] = true }
            }
        }
        return out
    }

    /// Whether (`px`, `py`) is inside `poly` (even-odd rule).
    static func contains(_ poly: [Point], _ px: Double, _ py: Double) -> Bool {
        var inside = false
        var j = poly.count - 1
        for i in poly.indices {
            let (xi, yi, xj, yj) = (poly[i].x, poly[i].y, poly[j].x, poly[j].y)
            if (yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
        }
        return inside
    }
}

extension MotionDetector.Parameters {
    /// Checks every value; the errors name the option as graph files spell it.
    public func validate() throws {
        try OptionCheck.range(frameHeight, 8...4096, "frame_height")
        guard [1, 3, 5].contains(blurKernelSize) else {
            throw GraphError(.invalidOption, "blur_kernel_size must be 1 (no blur), 3 or 5, not \(blurKernelSize)")
        }
        try OptionCheck.range(frameAlpha, 0.0001...1, "frame_alpha")
        try OptionCheck.range(threshold, 1...254, "threshold")
        try OptionCheck.range(dilation, 0...10, "dilation")
        try OptionCheck.range(minArea, 1...16_777_216, "min_area")
        try OptionCheck.range(lightningThreshold, 0.01...1, "lightning_threshold")
        for (i, poly) in mask.enumerated() {
            guard poly.count >= 3 else { throw GraphError(.invalidOption, "mask \(i) needs at least 3 points, not \(poly.count)") }
            for p in poly {
                guard p.x.isFinite, p.y.isFinite, (0...1).contains(p.x), (0...1).contains(p.y) else {
                    throw GraphError(.invalidOption, "mask \(i) point (\(p.x), \(p.y)) must be normalised: x and y from 0 to 1")
                }
            }
        }
    }
}
