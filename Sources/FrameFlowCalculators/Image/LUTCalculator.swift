import CFrameFlowKernels
import FrameFlow

/// Applies a `.cube` colour lookup table: 3-D (trilinear or tetrahedral interpolation) or
/// 1-D (linear, per channel), blended with the original by `intensity`.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (rgb8, rgba8, bgra8; alpha unchanged).
/// Outputs:
///   - `IMAGE`: the graded image.
/// Side packets:
///   - `LUT` (optional): a `CubeLUT`, instead of `lut_path`.
/// Options: `frameflow.LUTCalculatorOptions` { lut_path, interpolation (TETRAHEDRAL |
/// TRILINEAR), intensity (1.0, 0…1) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LUTCalculator"
///   input_stream: "IMAGE:in"
///   output_stream: "IMAGE:graded"
///   options { [frameflow.LUTCalculatorOptions.ext] { lut_path: "Looks/film.cube" intensity: 0.8 } }
/// }
/// ```
public final class LUTCalculator: ImageFilterCalculator {
    public enum LUTInterpolation: String, Codable, Sendable, CaseIterable {
        case trilinear = "TRILINEAR"
        case tetrahedral = "TETRAHEDRAL"
    }

    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.LUTCalculatorOptions"
        public var lutPath = ""
        public var interpolation = LUTInterpolation.tetrahedral
        public var intensity = 1.0
        public init() {}
        public init(lutPath: String, interpolation: LUTInterpolation = .tetrahedral, intensity: Double = 1) {
            self.lutPath = lutPath
            self.interpolation = interpolation
            self.intensity = intensity
        }

        public func validate() throws { try OptionCheck.range(intensity, 0...1, "intensity") }
    }

    /// The image to grade (read by `ImageFilterCalculator.process`).
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The graded image.
    public static let graded = OutputPort<ImageFrame>("IMAGE")
    /// The table, instead of `lut_path`.
    public static let lutSidePacket = InputSidePacket<CubeLUT>("LUT", optional: true)

    public static let contract = CalculatorContract(ports: [image, graded, lutSidePacket])

    private var options: Options
    private var lut: CubeLUT?
    private var environment = GraphEnvironment()

    public init(options: Options) throws {
        guard (0...1).contains(options.intensity) else { throw GraphError(.invalidOption, "intensity must be in 0…1") }
        self.options = options
    }

    public func update(options: Options) throws {
        guard (0...1).contains(options.intensity) else { throw GraphError(.invalidOption, "intensity must be in 0…1") }
        if options.lutPath != self.options.lutPath, !options.lutPath.isEmpty {
            lut = try CubeLUT(contentsOfFile: environment.resolve(options.lutPath), limits: environment.limits)
        }
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        environment = cc.environment
        if cc.sidePacket(Self.lutSidePacket.tag) != nil {
            lut = try cc.get(Self.lutSidePacket)  // a wrong type names the side packet
        } else {
            guard !options.lutPath.isEmpty else { throw GraphError(.invalidOption, "set lut_path or the LUT side packet") }
            lut = try CubeLUT(contentsOfFile: environment.resolve(options.lutPath), limits: environment.limits)
        }
    }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        guard let lut else { return nil }
        return try Self.apply(lut, to: image, interpolation: options.interpolation, intensity: options.intensity, pool: cc.pool, context: cc)
    }

    /// `input` graded with `lut`.
    public static func apply(
        _ lut: CubeLUT, to input: ImageFrame, interpolation: LUTInterpolation = .tetrahedral, intensity: Double = 1,
        pool: ImagePool = .shared, context: CalculatorContext? = nil
    ) throws -> ImageFrame {
        guard let l = Kernels.layout(input.format), l.bpp >= 3 else { throw ImageError.unsupportedFormat(input.format, "LUTCalculator") }
        // A LUT made in code (CubeLUT(kind:size:table:)) is not checked like a parsed file; the
        // size is bounded before it is cubed, so that cannot overflow.
        guard lut.size >= 2, lut.size <= 65536 else {
            throw GraphError(.invalidOption, "a LUT's size must be 2…65536, not \(lut.size)")
        }
        let entries = lut.kind == .threeD ? lut.size * lut.size * lut.size : lut.size
        guard lut.table.count == 3 * entries else {
            throw GraphError(.invalidOption, "a LUT of size \(lut.size) needs \(3 * entries) values, it has \(lut.table.count)")
        }
        // An infinite or empty domain would make the table coordinates NaN, which trap as indexes.
        guard lut.domainMin.count == 3, lut.domainMax.count == 3,
            (0..<3).allSatisfy({ lut.domainMin[$0].isFinite && lut.domainMax[$0].isFinite && lut.domainMax[$0] > lut.domainMin[$0] })
        else {
            throw GraphError(
                .invalidOption, "a LUT's domain must be 3 finite minimums below 3 finite maximums, not \(lut.domainMin)…\(lut.domainMax)")
        }
        let out = try pool.makeImage(width: input.width, height: input.height, format: input.format)
        let w = input.width
        let k = Float(intensity)
        // Input codes 0…255 → table coordinates, once per channel.
        let n = lut.size
        let coords: [[Float]] = (0..<3).map { c in
            (0..<256).map { v in
                let x = (Float(v) / 255 - lut.domainMin[c]) / (lut.domainMax[c] - lut.domainMin[c])
                return Swift.min(Swift.max(x, 0), 1) * Float(n - 1)
            }
        }
        let table = lut.table
        let tetra = interpolation == .tetrahedral
        let is3D = lut.kind == .threeD
        if is3D && tetra {
            tetrahedralImage(lut, coords, input, out, l, k, context)
            return out.freeze()
        }
        Kernels.rows(input.height, context) { rows in
            table.withUnsafeBufferPointer { t in
                for y in rows {
                    let s = Kernels.rowPointer(input, y), d = Kernels.rowPointer(out, y)
                    for x in 0..<w {
                        let p = s + x &* l.bpp, q = d + x &* l.bpp
                        let r = coords[0][Int(p[l.r])], g = coords[1][Int(p[l.g])], b = coords[2][Int(p[l.b])]
                        var o: (Float, Float, Float)
                        if is3D {
                            o = trilinear(t, n, r, g, b)  // tetrahedral 3-D LUTs took tetrahedralImage
                        } else {
                            o = (oneD(t, n, r, 0), oneD(t, n, g, 1), oneD(t, n, b, 2))
                        }
                        let sr = Float(p[l.r]), sg = Float(p[l.g]), sb = Float(p[l.b])
                        q[l.r] = Kernels.clamp255(sr + k * (o.0 * 255 - sr))
                        q[l.g] = Kernels.clamp255(sg + k * (o.1 * 255 - sg))
                        q[l.b] = Kernels.clamp255(sb + k * (o.2 * 255 - sb))
                        if l.a >= 0 { q[l.a] = p[l.a] }
                    }
                }
            }
        }
        return out.freeze()
    }

    /// `tetrahedral(_:_:_:_:_:)` without branches, the blend folded into a table pre-scaled by
    /// 255 × intensity, one row at a time in `ff_lut_tetrahedral_row` (sixteen pixels' cells and
    /// weights as vectors, then four vertex loads each).
    /// Its sums associate differently, so a rounding tie may land one level apart (tests allow 1).
    private static func tetrahedralImage(
        _ lut: CubeLUT, _ coords: [[Float]], _ input: ImageFrame, _ out: MutableImageFrame, _ l: (r: Int, g: Int, b: Int, a: Int, bpp: Int),
        _ k: Float,
        _ context: CalculatorContext?
    ) {
        typealias V = SIMD4<Float>
        let n = lut.size, w = input.width, bpp = l.bpp
        var padded = [V](repeating: .zero, count: n * n * n)
        for i in padded.indices {
            var v = V.zero
            v[l.r] = lut.table[3 * i] * 255 * k
            v[l.g] = lut.table[3 * i + 1] * 255 * k
            v[l.b] = lut.table[3 * i + 2] * 255 * k
            padded[i] = v
        }
        // Constants the row closure captures are `let`s: a captured `var` is read through its
        // box with a dynamic exclusivity check (`swift_beginAccess`), which showed in profiles.
        let keep: V = {
            var keep = V(repeating: 0)
            (keep[l.r], keep[l.g], keep[l.b]) = (1 - k, 1 - k, 1 - k)
            if l.a >= 0 { keep[l.a] = 1 }
            return keep
        }()
        // Entry strides: red varies fastest.
        let stride = [1, n, n * n]
        var base = [Int32](repeating: 0, count: 768), frac = [Float](repeating: 0, count: 768)
        for c in 0..<3 {
            for v in 0..<256 {
                let x = coords[c][v], i0 = Swift.min(Int(x), n - 2)
                base[c * 256 + v] = Int32(i0 * stride[c])
                frac[c * 256 + v] = x - Float(i0)
            }
        }
        // key = (fr > fg) | (fg > fb) << 1 | (fr > fb) << 2 → the offsets of the vertex one
        // step (the largest fraction's axis) and two steps (plus the middle one's) from the
        // base. Keys 3 and 4 cannot occur; ties give the skipped vertex weight 0, so either
        // path through them is the same sum.
        let (R, G, B) = (stride[0], stride[1], stride[2])
        let steps: [(Int, Int)] = [
            (B, B + G),  // 0: b ≥ g ≥ r
            (B, B + R),  // 1: b ≥ r > g
            (G, G + B),  // 2: g > b ≥ r
            (R, R + G),  // 3: —
            (R, R + G),  // 4: —
            (R, R + B),  // 5: r > b ≥ g
            (G, G + R),  // 6: g ≥ r > b
            (R, R + G),  // 7: r > g > b
        ]
        let step1 = steps.map { Int32($0.0) }, step2 = steps.map { Int32($0.1) }
        // The same orderings as axis indices (largest, middle, smallest fraction).
        let order: [SIMD4<Int32>] = [
            [2, 1, 0, 0], [2, 0, 1, 0], [1, 2, 0, 0], [0, 1, 2, 0], [0, 1, 2, 0], [0, 2, 1, 0], [1, 0, 2, 0], [0, 1, 2, 0],
        ]
        let far = R + G + B
        // Entries in 0…1 (so scaled ones in 0…255 × intensity): a convex blend of them needs
        // no clamp. The bytes of R, G and B in a little-endian pixel word (alpha's stay).
        let inRange = lut.table.allSatisfy { (0...1).contains($0) }
        let colourMask = [l.r, l.g, l.b].reduce(UInt32(0)) { $0 | 0xFF << (8 * UInt32($1)) }
        let (cr, cg, cb) = (l.r, l.g, l.b)
        // x = (v / 255 − min) / (max − min) as one multiply-add (a division per block of 16
        // took a fifth of the time); within an ulp of `coords`.
        let top = Float(n - 1)
        let scale = (0..<3).map { top / (255 * (lut.domainMax[$0] - lut.domainMin[$0])) }
        let shift = (0..<3).map { top * lut.domainMin[$0] / (lut.domainMax[$0] - lut.domainMin[$0]) }
        let order32 = order.flatMap { [$0[0], $0[1], $0[2], $0[3]] }
        let fast: Int32 = inRange && k == 1 ? 1 : 0
        Kernels.rows(input.height, context) { rows in
            padded.withUnsafeBufferPointer { T in
                base.withUnsafeBufferPointer { BI in
                    frac.withUnsafeBufferPointer { F in
                        step1.withUnsafeBufferPointer { S1 in
                            step2.withUnsafeBufferPointer { S2 in
                                order32.withUnsafeBufferPointer { O in
                                    T.baseAddress!.withMemoryRebound(to: Float.self, capacity: 4 * T.count) { table in
                                        var p = ff_lut_tetrahedral()
                                        p.table = UnsafePointer(table)
                                        (p.base, p.frac) = (BI.baseAddress, F.baseAddress)
                                        (p.step1, p.step2, p.order) = (S1.baseAddress, S2.baseAddress, O.baseAddress)
                                        p.keep = (keep[0], keep[1], keep[2], keep[3])
                                        p.scale = (scale[0], scale[1], scale[2])
                                        p.shift = (shift[0], shift[1], shift[2])
                                        p.top = top
                                        (p.n, p.far_offset) = (Int32(n), Int32(far))
                                        (p.cr, p.cg, p.cb) = (Int32(cr), Int32(cg), Int32(cb))
                                        p.colour_mask = colourMask
                                        p.fast = fast
                                        for y in rows {
                                            ff_lut_tetrahedral_row(&p, Kernels.rowPointer(input, y), Kernels.rowPointer(out, y), w, Int32(bpp))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always) static func oneD(_ t: UnsafeBufferPointer<Float>, _ n: Int, _ x: Float, _ c: Int) -> Float {
        let i = Swift.min(Int(x), n - 2), f = x - Float(i)
        return t[3 &* i &+ c] * (1 - f) + t[3 &* (i &+ 1) &+ c] * f
    }

    @inline(__always) static func at(_ t: UnsafeBufferPointer<Float>, _ n: Int, _ r: Int, _ g: Int, _ b: Int) -> (Float, Float, Float) {
        let i = 3 &* ((b &* n &+ g) &* n &+ r)
        return (t[i], t[i &+ 1], t[i &+ 2])
    }

    static func trilinear(_ t: UnsafeBufferPointer<Float>, _ n: Int, _ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        let r0 = Swift.min(Int(r), n - 2), g0 = Swift.min(Int(g), n - 2), b0 = Swift.min(Int(b), n - 2)
        let fr = r - Float(r0), fg = g - Float(g0), fb = b - Float(b0)
        func lerp(_ a: (Float, Float, Float), _ b: (Float, Float, Float), _ f: Float) -> (Float, Float, Float) {
            (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, a.2 + (b.2 - a.2) * f)
        }
        let c00 = lerp(at(t, n, r0, g0, b0), at(t, n, r0 + 1, g0, b0), fr)
        let c10 = lerp(at(t, n, r0, g0 + 1, b0), at(t, n, r0 + 1, g0 + 1, b0), fr)
        let c01 = lerp(at(t, n, r0, g0, b0 + 1), at(t, n, r0 + 1, g0, b0 + 1), fr)
        let c11 = lerp(at(t, n, r0, g0 + 1, b0 + 1), at(t, n, r0 + 1, g0 + 1, b0 + 1), fr)
        return lerp(lerp(c00, c10, fg), lerp(c01, c11, fg), fb)
    }

    /// Tetrahedral interpolation: the cube cell is split into six tetrahedra along its
    /// main diagonal; the one containing the point is chosen by ordering the fractions.
    /// The readable per-pixel form of `tetrahedralImage`; the tests check that the two agree
    /// on every pixel.
    static func tetrahedral(_ t: UnsafeBufferPointer<Float>, _ n: Int, _ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        let r0 = Swift.min(Int(r), n - 2), g0 = Swift.min(Int(g), n - 2), b0 = Swift.min(Int(b), n - 2)
        let fr = r - Float(r0), fg = g - Float(g0), fb = b - Float(b0)
        let c000 = at(t, n, r0, g0, b0), c111 = at(t, n, r0 + 1, g0 + 1, b0 + 1)
        func mix(
            _ w0: Float, _ a: (Float, Float, Float), _ w1: Float, _ b: (Float, Float, Float), _ w2: Float, _ c: (Float, Float, Float), _ w3: Float,
            _ d: (Float, Float, Float)
        ) -> (Float, Float, Float) {
            (w0 * a.0 + w1 * b.0 + w2 * c.0 + w3 * d.0, w0 * a.1 + w1 * b.1 + w2 * c.1 + w3 * d.1, w0 * a.2 + w1 * b.2 + w2 * c.2 + w3 * d.2)
        }
        if fr > fg {
            if fg > fb {
                return mix(1 - fr, c000, fr - fg, at(t, n, r0 + 1, g0, b0), fg - fb, at(t, n, r0 + 1, g0 + 1, b0), fb, c111)
            } else if fr > fb {
                return mix(1 - fr, c000, fr - fb, at(t, n, r0 + 1, g0, b0), fb - fg, at(t, n, r0 + 1, g0, b0 + 1), fg, c111)
            } else {
                return mix(1 - fb, c000, fb - fr, at(t, n, r0, g0, b0 + 1), fr - fg, at(t, n, r0 + 1, g0, b0 + 1), fg, c111)
            }
        } else {
            if fb > fg {
                return mix(1 - fb, c000, fb - fg, at(t, n, r0, g0, b0 + 1), fg - fr, at(t, n, r0, g0 + 1, b0 + 1), fr, c111)
            } else if fb > fr {
                return mix(1 - fg, c000, fg - fb, at(t, n, r0, g0 + 1, b0), fb - fr, at(t, n, r0, g0 + 1, b0 + 1), fr, c111)
            } else {
                return mix(1 - fg, c000, fg - fr, at(t, n, r0, g0 + 1, b0), fr - fb, at(t, n, r0 + 1, g0 + 1, b0), fb, c111)
            }
        }
    }
}
