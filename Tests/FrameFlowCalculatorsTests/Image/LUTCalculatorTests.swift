import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowCalculators

@Suite struct LUTCalculatorTests {
    static func cube(_ n: Int, _ f: (Double, Double, Double) -> (Double, Double, Double), title: String = "Test") -> String {
        var s = "# made by the test\nTITLE \"\(title)\"\nLUT_3D_SIZE \(n)\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n"
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let o = f(Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1))
                    s += String(format: "%.6f %.6f %.6f\n", o.0, o.1, o.2)
                }
            }
        }
        return s
    }

    /// The real LUT files of Tests/Fixtures/luts (made by scripts/fixtures/make_luts.py).
    @Test func realFilesInBothSizesLoad() throws {
        let warm = try CubeLUT(contentsOfFile: RepositoryFiles.fixture("luts/warm_film_17.cube"))
        #expect(warm.kind == .threeD && warm.size == 17 && warm.title == "Warm film" && warm.table.count == 17 * 17 * 17 * 3)
        let curve = try CubeLUT(contentsOfFile: RepositoryFiles.fixture("luts/s_curve_1d_1024.cube"))
        #expect(curve.kind == .oneD && curve.size == 1024)
    }

    /// An identity LUT returns the image (both interpolations, ±1); a linear colour
    /// transform is reproduced exactly by trilinear and tetrahedral interpolation (±1).
    @Test(arguments: LUTCalculator.LUTInterpolation.allCases)
    func interpolationReproducesLinearMaps(mode: LUTCalculator.LUTInterpolation) throws {
        let photo = try Photo.rgba()
        let identity = try CubeLUT(text: Self.cube(17) { ($0, $1, $2) })
        #expect(maxChannelDifference(try LUTCalculator.apply(identity, to: photo, interpolation: mode), photo) <= 1)
        let mix = try CubeLUT(text: Self.cube(9) { r, g, b in (0.5 * r + 0.3 * g + 0.2 * b, 0.9 * g + 0.1, 1 - b) })
        let out = try LUTCalculator.apply(mix, to: photo, interpolation: mode)
        var worst = 0
        for y in stride(from: 0, to: 256, by: 5) {
            for x in stride(from: 0, to: 256, by: 5) {
                let p = photo[x, y].map { Double($0) / 255 }
                let ref = [0.5 * p[0] + 0.3 * p[1] + 0.2 * p[2], 0.9 * p[1] + 0.1, 1 - p[2]].map { Int(($0 * 255).rounded()) }
                let q = out[x, y]
                for c in 0..<3 { worst = max(worst, abs(ref[c] - Int(q[c]))) }
            }
        }
        #expect(worst <= 1)
    }

    /// Tetrahedral against a hand-computed point inside one cell of a non-linear 2³ LUT.
    @Test func tetrahedralWeights() throws {
        // Corner values: output red = 1 only at (1,1,1), else 0: f = min-based weight.
        let lut = try CubeLUT(text: Self.cube(2) { r, g, b in (r * g * b, 0, 0) })
        let img = try TestImages.make(width: 1, height: 1, format: .rgb8) { _, _, c in [204, 153, 51][c] }  // 0.8, 0.6, 0.2
        let tet = try LUTCalculator.apply(lut, to: img, interpolation: .tetrahedral)[0, 0][0]
        let tri = try LUTCalculator.apply(lut, to: img, interpolation: .trilinear)[0, 0][0]
        #expect(tet == UInt8((0.2 * 255).rounded()))  // weight of c111 is the smallest fraction
        #expect(tri == UInt8((0.8 * 0.6 * 0.2 * 255).rounded()))
    }

    /// The branch-free tetrahedral image path gives what the per-pixel reference
    /// (`tetrahedral`, six explicit cases, then the blend) gives, on a non-linear random LUT,
    /// every pixel of a random image, in 3- and 4-byte formats (alpha passed through), with
    /// a partial intensity and with none: at most one level apart (the fast path folds
    /// 255 × intensity into its table and sums in another order, which can move a value
    /// across a rounding tie), and equal on at least 99 % of the values.
    @Test(arguments: [PixelFormat.rgb8, .rgba8, .bgra8], [Float(0.7), 1])
    func tetrahedralFastPathMatchesThePerPixelReference(format: PixelFormat, intensity k: Float) throws {
        try fastPathCheck(format: format, intensity: k, domain: nil)
    }

    /// The same with a DOMAIN_MIN/MAX other than 0…1 (codes outside it clamp to the edge).
    @Test(arguments: [PixelFormat.rgb8, .bgra8])
    func tetrahedralFastPathWithADomain(format: PixelFormat) throws {
        try fastPathCheck(format: format, intensity: 1, domain: ([0.1, 0.2, 0], [0.9, 1, 0.6]))
    }

    /// Entries outside 0…1 (−0.2…1.2): the clamped path, where a LUT in 0…1 at full intensity
    /// skips the clamp and the blend.
    @Test(arguments: [PixelFormat.rgba8, .bgra8])
    func tetrahedralFastPathClampsEntriesOutsideTheRange(format: PixelFormat) throws {
        try fastPathCheck(format: format, intensity: 1, domain: nil, spread: 1.4)
    }

    func fastPathCheck(format: PixelFormat, intensity k: Float, domain: ([Float], [Float])?, spread: Float = 1) throws {
        var state: UInt64 = 42
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        let n = 17
        var lut = CubeLUT(kind: .threeD, size: n, table: (0..<(n * n * n * 3)).map { _ in next() * spread - (spread - 1) / 2 })
        if let domain { (lut.domainMin, lut.domainMax) = domain }
        let img = try TestImages.random(width: 97, height: 13, format: format, seed: 5)
        let out = try LUTCalculator.apply(lut, to: img, interpolation: .tetrahedral, intensity: Double(k))
        let l = try #require(Kernels.layout(format))
        var (differ, worst, alphaChanged) = (0, 0, 0)
        lut.table.withUnsafeBufferPointer { t in
            for y in 0..<13 {
                for x in 0..<97 {
                    let p = img[x, y], q = out[x, y]
                    let rgb = [p[l.r], p[l.g], p[l.b]]
                    let c = rgb.indices.map { i in
                        let x = (Float(rgb[i]) / 255 - lut.domainMin[i]) / (lut.domainMax[i] - lut.domainMin[i])
                        return min(max(x, 0), 1) * Float(n - 1)
                    }
                    let o = LUTCalculator.tetrahedral(t, n, c[0], c[1], c[2])
                    for (i, v) in [o.0, o.1, o.2].enumerated() {
                        let want = Int(Kernels.clamp255(Float(rgb[i]) + k * (v * 255 - Float(rgb[i]))))
                        let got = Int(q[[l.r, l.g, l.b][i]])
                        if got != want { differ += 1 }
                        worst = max(worst, abs(got - want))
                    }
                    if l.a >= 0 && q[l.a] != p[l.a] { alphaChanged += 1 }
                }
            }
        }
        #expect(worst <= 1)
        #expect(differ * 100 <= 97 * 13 * 3, "\(differ) values differ")
        #expect(alphaChanged == 0)
    }

    /// A LUT built in code is checked before use: too small, or a table of the wrong length.
    @Test func tablesBuiltInCodeAreChecked() throws {
        let img = try TestImages.make(width: 2, height: 2, format: .rgb8) { _, _, _ in 7 }
        #expect(throws: GraphError.self) { try LUTCalculator.apply(CubeLUT(kind: .threeD, size: 1, table: [0, 0, 0]), to: img) }
        #expect(throws: GraphError.self) { try LUTCalculator.apply(CubeLUT(kind: .threeD, size: 3, table: [0, 0, 0]), to: img) }
        #expect(throws: GraphError.self) { try LUTCalculator.apply(CubeLUT(kind: .oneD, size: 4, table: [Float](repeating: 0, count: 11)), to: img) }
    }

    @Test func intensityBlends() throws {
        let invert = try CubeLUT(text: Self.cube(2) { (1 - $0, 1 - $1, 1 - $2) })
        let img = try TestImages.make(width: 1, height: 1, format: .rgba8) { _, _, c in [0, 100, 255, 9][c] }
        #expect(try LUTCalculator.apply(invert, to: img, intensity: 0.5)[0, 0] == [128, 128, 128, 9])
        #expect(try LUTCalculator.apply(invert, to: img, intensity: 0)[0, 0] == [0, 100, 255, 9])
    }

    /// Every malformed case names the file and line.
    @Test(arguments: [
        ("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n", 4, "3 table rows, the size 2 needs 8"),
        ("LUT_3D_SIZE 2\n0 0 0\n1 x 0\n", 3, "'x' is not a number"),
        ("LUT_3D_SIZE 300\n", 1, "out of range"),
        ("LUT_3D_SIZE 1\n", 1, "out of range"),
        ("TITLE \"t\"\n0 0 0\n", 2, "table rows before LUT_3D_SIZE"),
        ("# nothing\n", 1, "no LUT_3D_SIZE or LUT_1D_SIZE"),
        ("LUT_1D_SIZE 2\n0 0\n", 2, "a table row needs 3 numbers, found 2"),
        ("LUT_1D_SIZE 2\n0 0 0\n1 1 1\n1 1 1\n", 4, "more table rows"),
        ("LUT_3D_SIZE two\n", 1, "needs one integer"),
        ("BOGUS 1\n", 1, "unknown keyword 'BOGUS'"),
        ("LUT_1D_SIZE 2\nDOMAIN_MIN 1 1 1\nDOMAIN_MAX 0 0 0\n0 0 0\n1 1 1\n", 3, "DOMAIN_MAX must exceed DOMAIN_MIN"),
    ])
    func malformedFiles(text: String, line: Int, message: String) {
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(text: text, file: "bad.cube") }
        #expect(e?.file == "bad.cube" && e?.line == line, "\(String(describing: e))")
        #expect(e?.description.contains(message) == true, "\(String(describing: e))")
    }

    @Test func missingFileAndCalculatorOpen() throws {
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(contentsOfFile: "/nonexistent.cube") }
        #expect(e?.description.hasPrefix("/nonexistent.cube:0") == true)
        let runner = try CalculatorRunner(
            LUTCalculator.self, options: .init(lutPath: RepositoryFiles.fixture("luts/warm_film_17.cube")), inputs: ["IMAGE:in"],
            outputs: ["IMAGE:out"])
        runner.add(try Photo.rgba(), tag: "IMAGE", at: 0)
        try runner.run()
        #expect(runner.outputs("IMAGE").count == 1)
    }
}
