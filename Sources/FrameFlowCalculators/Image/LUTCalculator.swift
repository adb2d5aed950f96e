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
/// TRILINEAR), intensity (1.0) }.
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
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)], outputs: [PortSpec("IMAGE", ImageFrame.self)],
        inputSidePackets: [PortSpec("LUT", CubeLUT.self, optional: true)])

    private var options: Options
    private var lut: CubeLUT?

    public init(options: Options) throws {
        guard (0...1).contains(options.intensity) else { throw GraphError(.invalidOption, "intensity must be in 0…1") }
        self.options = options
    }

    public func update(options: Options) throws {
        guard (0...1).contains(options.intensity) else { throw GraphError(.invalidOption, "intensity must be in 0…1") }
        if options.lutPath != self.options.lutPath, !options.lutPath.isEmpty { lut = try CubeLUT(contentsOfFile: ResourcePaths.resolve(options.lutPath)) }
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        if cc.sidePacket("LUT") != nil {
            lut = try cc.sidePacket("LUT", as: CubeLUT.self)  // a wrong type names the side packet
        } else {
            guard !options.lutPath.isEmpty else { throw GraphError(.invalidOption, "set lut_path or the LUT side packet") }
            lut = try CubeLUT(contentsOfFile: ResourcePaths.resolve(options.lutPath))
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
            throw GraphError(.invalidOption, "a LUT's domain must be 3 finite minimums below 3 finite maximums, not \(lut.domainMin)…\(lut.domainMax)")
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
    /// 255 × intensity; 4-byte pixels sixteen at a time (`block16`), then four vertex loads each.
    /// Its sums associate differently, so a rounding tie may land one level apart (tests allow 1).
    private static func tetrahedralImage(
        _ lut: CubeLUT, _ coords: [[Float]], _ input: ImageFrame, _ out: MutableImageFrame, _ l: (r: Int, g: Int, b: Int, a: Int, bpp: Int), _ k: Float,
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
        let order: [SIMD4<Int32>] = [[2, 1, 0, 0], [2, 0, 1, 0], [1, 2, 0, 0], [0, 1, 2, 0], [0, 1, 2, 0], [0, 2, 1, 0], [1, 0, 2, 0], [0, 1, 2, 0]]
        let far = R + G + B, far16 = 16 * far
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
        Kernels.rows(input.height, context) { rows in
            padded.withUnsafeBufferPointer { T in base.withUnsafeBufferPointer { BI in frac.withUnsafeBufferPointer { F in
                step1.withUnsafeBufferPointer { S1 in step2.withUnsafeBufferPointer { S2 in order.withUnsafeBufferPointer { O in
                    let tr = UnsafeRawPointer(T.baseAddress!)
                    /// The four weighted vertices: the base at byte offset `a`, the inner ones at
                    /// `b` and `c`, and the far corner.
                    @inline(__always) func corners(_ a: Int, _ b: Int, _ c: Int, _ w0: Float, _ w1: Float, _ w2: Float, _ w3: Float) -> V {
                        var v = tr.load(fromByteOffset: a, as: V.self) * w0
                        v.addProduct(tr.load(fromByteOffset: b, as: V.self), V(repeating: w1))
                        v.addProduct(tr.load(fromByteOffset: c, as: V.self), V(repeating: w2))
                        v.addProduct(tr.load(fromByteOffset: a &+ far16, as: V.self), V(repeating: w3))
                        return v
                    }
                    /// `corners` plus the pixel's own bytes × `keep`, as bytes.
                    @inline(__always) func mix(_ a: Int, _ b: Int, _ c: Int, _ w0: Float, _ w1: Float, _ w2: Float, _ w3: Float, _ source: V) -> SIMD4<UInt8> {
                        var v = corners(a, b, c, w0, w1, w2, w3)
                        v.addProduct(source, keep)
                        return Kernels.clamp255(v)
                    }
                    /// One pixel: `source` its bytes as floats.
                    @inline(__always) func graded(_ p: UnsafePointer<UInt8>, _ source: V) -> SIMD4<UInt8> {
                        let r = Int(p[cr]), g = 256 &+ Int(p[cg]), b = 512 &+ Int(p[cb])
                        let i = Int(BI[r] &+ BI[g] &+ BI[b])
                        let fr = F[r], fg = F[g], fb = F[b]
                        // Orders by integer arithmetic on the bit patterns (fractions are ≥ 0,
                        // so they order as their patterns do): compared as floats, the
                        // compiler branched on them, and on noise every other branch missed.
                        @inline(__always) func gt(_ a: Float, _ b: Float) -> Int { Int((b.bitPattern &- a.bitPattern) >> 31) }
                        let key = gt(fr, fg) | gt(fg, fb) << 1 | gt(fr, fb) << 2
                        let fs = V(fr, fg, fb, 0), ax = O[key]
                        let f1 = fs[Int(ax[0])], f2 = fs[Int(ax[1])], f3 = fs[Int(ax[2])]
                        return mix(i &<< 4, (i &+ Int(S1[key])) &<< 4, (i &+ Int(S2[key])) &<< 4, 1 - f1, f1 - f2, f2 - f3, f3, source)
                    }
                    @inline(__always) func bytes(_ p: UnsafePointer<UInt8>) -> V {
                        V(SIMD4<UInt8>(p[0], p[1], p[2], bpp == 4 ? p[3] : 0))
                    }
                    /// Sixteen 4-byte pixels: cell, fractions, tetrahedron and weights for all
                    /// sixteen as 16-lane vectors (no table lookups: the coordinates are
                    /// computed as `coords` was), then each pixel's four vertex loads and
                    /// multiply-adds.
                    @inline(__always) func block16(_ p: UnsafePointer<UInt8>, _ q: UnsafeMutablePointer<UInt8>, _ scratch: UnsafeMutableRawPointer) {
                        typealias F16 = SIMD16<Float>
                        typealias U16 = SIMD16<UInt32>
                        let words = UnsafeRawPointer(p).loadUnaligned(as: U16.self)
                        @inline(__always) func axis(_ byte: Int, _ c: Int) -> (i: U16, f: F16) {
                            latticeCell(words, byte: byte, scale: scale[c], shift: shift[c], top: top)
                        }
                        let (ir, fr) = axis(cr, 0), (ig, fg) = axis(cg, 1), (ib, fb) = axis(cb, 2)
                        let base = ir &+ ig &* UInt32(n) &+ ib &* UInt32(n * n)
                        @inline(__always) func mx(_ a: F16, _ b: F16) -> F16 { a.replacing(with: b, where: a .< b) }
                        @inline(__always) func mn(_ a: F16, _ b: F16) -> F16 { a.replacing(with: b, where: a .> b) }
                        let f1 = mx(fr, mx(fg, fb)), f3 = mn(fr, mn(fg, fb)), f2 = mx(mn(fr, fg), mn(mx(fr, fg), fb))
                        // The largest fraction's axis (ties to red, then green) gives the first
                        // step; the smallest's (ties to blue, then green) is left out of the
                        // second: s2 = R + G + B − its stride.
                        // Each choice is one compare against a max or min, the later replace
                        // winning (masks combined with `.&` / `.!` compile to packs on AVX2).
                        var s1 = U16(repeating: UInt32(n * n)), minStride = U16(repeating: 1)
                        s1.replace(with: U16(repeating: UInt32(n)), where: fg .>= fb)
                        s1.replace(with: U16(repeating: 1), where: fr .>= mx(fg, fb))
                        minStride.replace(with: U16(repeating: UInt32(n)), where: fg .<= fr)
                        minStride.replace(with: U16(repeating: UInt32(n * n)), where: fb .<= mn(fr, fg))
                        // Vertex positions as byte offsets into the table (16 bytes an entry).
                        let i0 = scratch.assumingMemoryBound(to: UInt32.self), w = (scratch + 192).assumingMemoryBound(to: Float.self)
                        UnsafeMutableRawPointer(i0).storeBytes(of: base &<< 4, as: U16.self)
                        UnsafeMutableRawPointer(i0 + 16).storeBytes(of: (base &+ s1) &<< 4, as: U16.self)
                        UnsafeMutableRawPointer(i0 + 32).storeBytes(of: (base &+ U16(repeating: UInt32(far)) &- minStride) &<< 4, as: U16.self)
                        UnsafeMutableRawPointer(w).storeBytes(of: 1 - f1, as: F16.self)
                        UnsafeMutableRawPointer(w + 16).storeBytes(of: f1 - f2, as: F16.self)
                        UnsafeMutableRawPointer(w + 32).storeBytes(of: f2 - f3, as: F16.self)
                        UnsafeMutableRawPointer(w + 48).storeBytes(of: f3, as: F16.self)
                        if inRange && k == 1 {
                            // The weights sum to 1 and the entries are in 0…255, so the sum is
                            // too (to rounding, which the 1.5·2²³ addition absorbs): no clamp,
                            // no blend; alpha comes back from the source word.
                            for j in 0..<16 {
                                let v = corners(Int(i0[j]), Int(i0[16 &+ j]), Int(i0[32 &+ j]), w[j], w[16 &+ j], w[32 &+ j], w[48 &+ j])
                                let bytes = SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(v + V(repeating: 12_582_912), to: SIMD4<UInt32>.self))
                                let word = unsafeBitCast(bytes, to: UInt32.self) & colourMask
                                let src = UnsafeRawPointer(p + j &* 4).loadUnaligned(as: UInt32.self) & ~colourMask
                                UnsafeMutableRawPointer(q + j &* 4).storeBytes(of: word | src, as: UInt32.self)
                            }
                        } else {
                            for j in 0..<16 {
                                let source = V(UnsafeRawPointer(p + j &* 4).loadUnaligned(as: SIMD4<UInt8>.self))
                                let o = mix(Int(i0[j]), Int(i0[16 &+ j]), Int(i0[32 &+ j]), w[j], w[16 &+ j], w[32 &+ j], w[48 &+ j], source)
                                UnsafeMutableRawPointer(q + j &* 4).storeBytes(of: o, as: SIMD4<UInt8>.self)
                            }
                        }
                    }
                    // Per 16-pixel block: vertex indices and weights, written by the vector
                    // part of `block16` and read pixel by pixel.
                    let scratch = UnsafeMutableRawPointer.allocate(byteCount: 7 * 64, alignment: 64)
                    defer { scratch.deallocate() }
                    // 3-byte pixels: a block widened to 4 bytes a pixel, and its result.
                    let widened = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 64)
                    defer { widened.deallocate() }
                    for y in rows {
                        let s = UnsafePointer(Kernels.rowPointer(input, y)), d = Kernels.rowPointer(out, y)
                        if bpp == 4 {
                            var x = 0
                            while x &+ 16 <= w {
                                block16(s + x &* 4, d + x &* 4, scratch)
                                x &+= 16
                            }
                            while x < w {
                                let p = s + x &* 4
                                let source = V(UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
                                UnsafeMutableRawPointer(d + x &* 4).storeBytes(of: graded(p, source), as: SIMD4<UInt8>.self)
                                x &+= 1
                            }
                        } else {
                            // Three bytes a pixel: sixteen at a time widened into a block of
                            // 4-byte pixels, graded by `block16`, narrowed back.
                            let wide = widened.assumingMemoryBound(to: UInt8.self), graded16 = wide + 64
                            var x0 = 0
                            while x0 &+ 16 <= w {
                                let p = s + x0 &* 3, q = d + x0 &* 3
                                for j in 0..<16 {
                                    wide[4 &* j] = p[3 &* j]
                                    wide[4 &* j &+ 1] = p[3 &* j &+ 1]
                                    wide[4 &* j &+ 2] = p[3 &* j &+ 2]
                                    wide[4 &* j &+ 3] = 0
                                }
                                block16(UnsafePointer(wide), graded16, scratch)
                                for j in 0..<16 {
                                    q[3 &* j] = graded16[4 &* j]
                                    q[3 &* j &+ 1] = graded16[4 &* j &+ 1]
                                    q[3 &* j &+ 2] = graded16[4 &* j &+ 2]
                                }
                                x0 &+= 16
                            }
                            // The rest pixel by pixel: four bytes read and written but for the
                            // last pixel's, whose fourth would be the next row's (another
                            // band's) first.
                            for x in x0..<w {
                                let p = s + x &* 3, q = d + x &* 3
                                if x &+ 1 < w {
                                    let source = V(UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
                                    UnsafeMutableRawPointer(q).storeBytes(of: graded(p, source), as: SIMD4<UInt8>.self)
                                } else {
                                    let o = graded(p, bytes(p))
                                    (q[0], q[1], q[2]) = (o[0], o[1], o[2])
                                }
                            }
                        }
                    }
                } } }
            } } }
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
        func mix(_ w0: Float, _ a: (Float, Float, Float), _ w1: Float, _ b: (Float, Float, Float), _ w2: Float, _ c: (Float, Float, Float), _ w3: Float, _ d: (Float, Float, Float)) -> (Float, Float, Float) {
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

/// The table cell and fraction along one axis for sixteen 4-byte pixels: the code in
/// byte `byte` of each word, mapped to x = code · scale − shift (lattice units: `scale` and
/// `shift` already carry the factor n − 1) clamped to 0…top (NaN to 0), and split into
/// ⌊x⌋, at most top − 1 (the top code lands in the last cell with fraction 1), and the rest.
/// The floor is one `vroundps` and a minimum, the cheapest form found on AVX2.
@inline(__always)
private func latticeCell(
    _ words: SIMD16<UInt32>, byte: Int, scale: Float, shift: Float, top: Float
) -> (i: SIMD16<UInt32>, f: SIMD16<Float>) {
    typealias F16 = SIMD16<Float>
    typealias U16 = SIMD16<UInt32>
    let code = (words &>> UInt32(8 * byte)) & 255
    // The code as a float: its bits under the exponent of 2²³.
    let v = unsafeBitCast(code | 0x4B00_0000, to: F16.self) - 8_388_608
    var x = v * F16(repeating: scale) - F16(repeating: shift)
    x.replace(with: F16(repeating: 0), where: .!(x .>= 0))  // NaN too
    x.replace(with: F16(repeating: top), where: x .> F16(repeating: top))
    var cell = x.rounded(.down)
    cell.replace(with: F16(repeating: top - 1), where: cell .> F16(repeating: top - 1))
    // A whole number below 2²³: its bits under the exponent of 2²³ are the integer.
    return (unsafeBitCast(cell + 8_388_608, to: U16.self) &- 0x4B00_0000, x - cell)
}
