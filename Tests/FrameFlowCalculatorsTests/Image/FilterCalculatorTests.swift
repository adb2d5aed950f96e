import Foundation
import FrameFlow
@testable import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct GaussianBlurCalculatorTests {
    @Test(arguments: [
        ("sigma: 1e308 kernel_size: 0", "sigma"), ("sigma: 43 kernel_size: 0", "sigma"), ("sigma: 1001 kernel_size: 5", "sigma"),
        ("kernel_size: 257", "kernel_size"), ("kernel_size: 4", "kernel_size"), ("kernel_size: -1", "kernel_size"),
        ("sigma: 0 kernel_size: 0", "kernel_size"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("GaussianBlurCalculator", "frameflow.GaussianBlurCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// Against cv2.GaussianBlur (same kernel formula, BORDER_REFLECT_101). Tolerance 0: both
    /// 8-bit paths are the same fixed point (weights in 1/256 quantized from the outer taps
    /// inward, 16-bit horizontal sums, rounding once at the end).
    @Test(arguments: [("gauss_5x5_s1.2.ppm", 1.2, 5), ("gauss_s2.ppm", 2.0, 0)])
    func matchesOpenCV(file: String, sigma: Double, k: Int) throws {
        let kernel = try GaussianBlurCalculator.kernel(.init(sigma: sigma, kernelSize: k))
        let out = try GaussianBlurCalculator.blur(try Photo.rgb(), kernel: kernel)
        #expect(maxChannelDifference(out, try Photo.fixture(file)) <= 0)
    }

    @Test func kernelRules() throws {
        #expect(try GaussianBlurCalculator.kernel(.init(sigma: 2, kernelSize: 0)).count == 13)
        let k = try GaussianBlurCalculator.kernel(.init(sigma: 0, kernelSize: 3))
        #expect(abs(k.reduce(0, +) - 1) < 1e-6 && abs(k[0] - 0.25) < 1e-6 && abs(k[1] - 0.5) < 1e-6)  // σ = 0.8 → 1/4 1/2 1/4
        #expect(throws: GraphError.self) { try GaussianBlurCalculator.kernel(.init(sigma: 1, kernelSize: 4)) }
        #expect(throws: GraphError.self) { try GaussianBlurCalculator.kernel(.init(sigma: 0, kernelSize: 0)) }
    }

    /// Odd sizes, a padded stride and a kernel taller than the image (every row reflected
    /// more than once) against the separable sum in Double with reflect-101 borders.
    /// Tolerance 1: the kernel is quantized to 1/256.
    @Test(arguments: [(37, 5, PixelFormat.rgb8, 2.0), (1, 9, .gray8, 1.0), (17, 3, .rgba8, 2.0)])
    func matchesSeparableFormula(w: Int, h: Int, format: PixelFormat, sigma: Double) throws {
        let img = try TestImages.random(width: w, height: h, format: format, extraStride: 7, seed: 5)
        let k = try GaussianBlurCalculator.kernel(.init(sigma: sigma, kernelSize: 0))
        let out = try GaussianBlurCalculator.blur(img, kernel: k)
        func refl(_ i: Int, _ n: Int) -> Int {
            if n == 1 { return 0 }
            var i = i
            while i < 0 || i >= n { i = i < 0 ? -i : 2 * (n - 1) - i }
            return i
        }
        let r = k.count / 2, bpp = format.bytesPerPixel()
        var worst = 0
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<bpp {
                    var sum = 0.0
                    for i in 0..<k.count {
                        for j in 0..<k.count {
                            sum += Double(k[i]) * Double(k[j]) * Double(img[refl(x + j - r, w), refl(y + i - r, h)][c])
                        }
                    }
                    worst = max(worst, abs(Int(sum.rounded()) - Int(out[x, y][c])))
                }
            }
        }
        #expect(worst <= 1, "worst \(worst)")
        #expect(throws: GraphError.self) { try GaussianBlurCalculator.blur(img, kernel: [0.5, 0.5]) }
    }

    @Test func edgeCases() throws {
        let kernel = try GaussianBlurCalculator.kernel(.init(sigma: 1, kernelSize: 5))
        let one = try TestImages.make(width: 1, height: 1, format: .rgba8) { _, _, c in UInt8(40 + c) }
        #expect(try GaussianBlurCalculator.blur(one, kernel: kernel)[0, 0] == [40, 41, 42, 43])
        let flat = try TestImages.make(width: 3, height: 7, format: .gray8, extraStride: 9) { _, _, _ in 99 }
        #expect(try GaussianBlurCalculator.blur(flat, kernel: kernel).packedBytes().allSatisfy { $0 == 99 })
    }
}

@Suite struct SharpenCalculatorTests {
    /// Values that trapped (1e308) or allocated a 2³¹-tap kernel (96 GiB) are refused when
    /// the graph is built, naming the field.
    @Test(arguments: [
        ("radius: 1e308", "radius"), ("radius: 2147483647", "radius"), ("radius: 43", "radius"), ("radius: 0", "radius"),
        ("amount: 1e308", "amount"), ("amount: -1", "amount"), ("threshold: 256", "threshold"), ("threshold: -1", "threshold"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("SharpenCalculator", "frameflow.SharpenCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// The largest radius and amount run (a 253-tap blur).
    @Test func largestValuesRun() throws {
        let img = try TestImages.random(width: 9, height: 7, format: .rgb8, seed: 2)
        let out = try runImageNode("SharpenCalculator", "frameflow.SharpenCalculatorOptions", "radius: 42 amount: 100 threshold: 255", img)
        #expect(out.packedBytes() == img.packedBytes(), "no difference exceeds 255 levels")
    }

    /// Unsharp mask against the formula, both on OpenCV's blur of the photo (σ = 2
    /// fixture; the blur itself is checked above). Tolerance 1 (float rounding at .5).
    @Test func unsharpMaskFormula() throws {
        let photo = try Photo.rgb()
        let blurred = try Photo.fixture("gauss_s2.ppm")
        let o = SharpenCalculator.Options(radius: 2, amount: 1, threshold: 4)
        let out = try SharpenCalculator.combine(photo, blurred, o)
        var worst = 0
        for y in 0..<256 {
            for x in 0..<256 {
                let s = photo[x, y], b = blurred[x, y], q = out[x, y]
                for c in 0..<3 {
                    let d = Int(s[c]) - Int(b[c])
                    let ref = abs(d) > 4 ? min(255, max(0, Int(s[c]) + d)) : Int(s[c])
                    worst = max(worst, abs(ref - Int(q[c])))
                }
            }
        }
        #expect(worst <= 1, "worst \(worst)")
    }

    /// The calculator blurs and combines row by row in one pass; that must equal the blur
    /// followed by `combine` (checked above against the formula) on every byte, alpha kept.
    @Test(arguments: [PixelFormat.rgba8, .rgb8, .bgra8])
    func fusedPassEqualsBlurThenCombine(format: PixelFormat) throws {
        let img = try TestImages.random(width: 45, height: 23, format: format, extraStride: 5, seed: 3)
        let o = SharpenCalculator.Options(radius: 1, amount: 0.8, threshold: 2)
        let runner = try CalculatorRunner(SharpenCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        runner.add(img, tag: "IMAGE", at: 0)
        try runner.run()
        let fused = try runner.outputs("IMAGE")[0].get(ImageFrame.self)
        let blurred = try GaussianBlurCalculator.blur(img, kernel: try GaussianBlurCalculator.kernel(.init(sigma: 1, kernelSize: 0)))
        let twoPass = try SharpenCalculator.combine(img, blurred, o)
        #expect(fused.packedBytes() == twoPass.packedBytes())
        if format.bytesPerPixel() == 4 {
            #expect((0..<45).allSatisfy { x in fused[x, 7][3] == img[x, 7][3] })
        }
    }

    /// Fractional, large and very large amounts (the 16-bit path quantizes amounts below 31
    /// to 1/1024; larger ones go through Float) against the formula in Double, rounded half
    /// up, on the photo and its σ = 2 blur. Tolerance 1 (a tie may round the other way).
    @Test(arguments: [0.35, 0.8, 2.7, 30.9, 31, 40])
    func unsharpAmountsMatchTheFormula(amount: Double) throws {
        let photo = try Photo.rgba()
        let blurred = try GaussianBlurCalculator.blur(photo, kernel: try GaussianBlurCalculator.kernel(.init(sigma: 2, kernelSize: 0)))
        let out = try SharpenCalculator.combine(photo, blurred, .init(radius: 2, amount: amount, threshold: 1))
        var worst = 0, alphaChanged = 0
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let s = photo[x, y], b = blurred[x, y], q = out[x, y]
                for c in 0..<3 {
                    let d = Int(s[c]) - Int(b[c])
                    let ref = abs(d) > 1 ? min(255, max(0, Int((Double(s[c]) + amount * Double(d) + 0.5).rounded(.down)))) : Int(s[c])
                    worst = max(worst, abs(ref - Int(q[c])))
                }
                if q[3] != s[3] { alphaChanged += 1 }
            }
        }
        #expect(worst <= 1, "amount \(amount): worst \(worst)")
        #expect(alphaChanged == 0)
    }

    @Test func thresholdKeepsFlatAreasAndAlpha() throws {
        let img = try TestImages.make(width: 5, height: 5, format: .rgba8) { x, _, c in c == 3 ? 77 : UInt8(100 + x) }
        let runner = try CalculatorRunner(
            SharpenCalculator.self, options: .init(radius: 1, amount: 2, threshold: 10), inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        runner.add(img, tag: "IMAGE", at: 0)
        try runner.run()
        let out = try runner.outputs("IMAGE")[0].get(ImageFrame.self)
        #expect(TestImages.maxDifference(out, img) == 0, "differences below the threshold are left alone")
    }
}

@Suite struct ColorAdjustmentCalculatorTests {
    /// Values that trapped in the Float → UInt8 conversion are refused when the graph is
    /// built, naming the field.
    @Test(arguments: [
        ("contrast: 1e308", "contrast"), ("contrast: -1", "contrast"), ("saturation: 1e308", "saturation"),
        ("exposure: 11", "exposure"), ("gamma: 0", "gamma"), ("gamma: 1e308", "gamma"), ("brightness: 1.5", "brightness"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("ColorAdjustmentCalculator", "frameflow.ColorAdjustmentCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// The range's ends run; on gray pixels (saturation has no effect there) with gamma 1
    /// they follow the formula.
    @Test(arguments: [
        ("contrast: 100 saturation: 100 exposure: 10", ColorAdjustmentCalculator.Options(contrast: 100, saturation: 100, exposure: 10)),
        ("contrast: 100 brightness: -1 exposure: -10", .init(brightness: -1, contrast: 100, exposure: -10)),
        ("contrast: 0 saturation: 0 brightness: 1", .init(brightness: 1, contrast: 0, saturation: 0)),
    ])
    func rangeEndsFollowTheFormula(text: String, o: ColorAdjustmentCalculator.Options) throws {
        let gray = try TestImages.make(width: 16, height: 16, format: .rgba8) { x, y, c in c == 3 ? 255 : UInt8(y * 16 + x) }
        let out = try runImageNode("ColorAdjustmentCalculator", "frameflow.ColorAdjustmentCalculatorOptions", text, gray)
        var worst = 0
        for y in 0..<16 {
            for x in 0..<16 {
                let ref = reference(gray[x, y], o)
                for c in 0..<3 { worst = max(worst, abs(ref[c] - Int(out[x, y][c]))) }
            }
        }
        #expect(worst <= 2, "worst \(worst)")
        for g in ["gamma: 100", "gamma: 0.01"] {
            _ = try runImageNode("ColorAdjustmentCalculator", "frameflow.ColorAdjustmentCalculatorOptions", text + " " + g, gray)
        }
    }

    func reference(_ p: [UInt8], _ o: ColorAdjustmentCalculator.Options) -> [Int] {
        var c = p[0..<3].map { Double($0) / 255 * pow(2, o.exposure) }
        c = c.map { min(max(($0 - 0.5) * o.contrast + 0.5 + o.brightness, 0), 1) }
        c = c.map { ($0 * 255).rounded() / 255 }  // the tone table is 8-bit
        let l = 0.2125 * c[0] + 0.7154 * c[1] + 0.0721 * c[2]
        c = c.map { min(max(l + ($0 - l) * o.saturation, 0), 1) }
        c = c.map { ($0 * 255).rounded() / 255 }
        return c.map { Int((pow($0, o.gamma) * 255).rounded()) }
    }

    /// Against the formula in Double on the photo. Tolerance 2 (fixed-point saturation,
    /// then a gamma table on 8-bit values).
    @Test(arguments: [
        ColorAdjustmentCalculator.Options(brightness: 0.1, contrast: 1.3),
        ColorAdjustmentCalculator.Options(saturation: 1.6, gamma: 0.8),
        ColorAdjustmentCalculator.Options(contrast: 0.7, saturation: 0, exposure: 0.5),
        ColorAdjustmentCalculator.Options(brightness: -0.2, saturation: 0.5, exposure: -1, gamma: 1.4),
    ])
    func matchesFormula(o: ColorAdjustmentCalculator.Options) throws {
        // rgba8 and rgb8 (the vectorised loop when gamma is 1, the table loop otherwise) and
        // bgra8 (its swapped luma weights) must all follow the formula.
        let rgba = try Photo.rgba()
        for format in [PixelFormat.rgba8, .bgra8, .rgb8] {
            let photo = try ColorConvertCalculator.convert(rgba, to: format)
            let out = try ColorConvertCalculator.convert(try ColorAdjustmentCalculator.adjust(photo, o), to: .rgba8)
            var worst = 0
            for y in stride(from: 0, to: 256, by: 3) {
                for x in stride(from: 0, to: 256, by: 3) {
                    let ref = reference(rgba[x, y], o)
                    let q = out[x, y]
                    for c in 0..<3 { worst = max(worst, abs(ref[c] - Int(q[c]))) }
                    #expect(q[3] == 255)
                }
            }
            #expect(worst <= 2, "\(format): worst \(worst)")
        }
    }

    @Test func changesWhileRunning() throws {
        let graph = try Graph {
            Input("in")
            Output("out")
            Node(ColorAdjustmentCalculator.self, name: "adjust", in: ["IMAGE:in"], out: ["IMAGE:out"])
        }
        let out = try PacketCollector(graph, "out")
        try graph.start()
        let gray = try TestImages.make(width: 2, height: 2, format: .rgb8) { _, _, _ in 100 }
        try graph.send(gray, to: "in", at: 0)
        try graph.waitUntilIdle()
        try graph.setOptions(ColorAdjustmentCalculator.Options(brightness: 0.2), forNode: "adjust")
        try graph.send(gray, to: "in", at: 1)
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let values = try out.packets.map { try $0.get(ImageFrame.self)[0, 0][0] }
        #expect(values == [100, 151])
        #expect(throws: GraphError.self) { try ColorAdjustmentCalculator(options: .init(gamma: 0)) }
    }
}

@Suite struct ToneMapCalculatorTests {
    /// Values that trapped in the Double → UInt8 conversion, and curves that are undefined,
    /// are refused when the graph is built, naming the field.
    @Test(arguments: [
        ("linear_white: 1e-308", "linear_white"), ("shoulder_strength: 1e308", "shoulder_strength"),
        ("shoulder_strength: -1e308", "shoulder_strength"), ("toe_strength: nan", "toe_strength"), ("toe_denominator: 0", "toe_denominator"),
        ("exposure: 17", "exposure"), ("linear_strength: 0 toe_strength: 0", "toe_strength"),
        ("toe_numerator: 10 toe_denominator: 0.001", "linear_white"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("ToneMapCalculator", "frameflow.ToneMapCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// toe_strength 0 (it trapped: 0/0 at black) is a valid curve: every level follows
    /// the Hable formula, at 0 its limit C − E/F.
    @Test func zeroToeStrengthFollowsTheCurve() throws {
        let img = try TestImages.make(width: 256, height: 1, format: .gray8) { x, _, _ in UInt8(x) }
        let out = try runImageNode("ToneMapCalculator", "frameflow.ToneMapCalculatorOptions", "toe_strength: 0", img)
        let (a, b, c, e, f, w) = (0.15, 0.5, 0.1, 0.02, 0.3, 11.2)
        func h(_ x: Double) -> Double { x == 0 ? c - e / f : (x * (a * x + c * b)) / (x * (a * x + b)) - e / f }
        for i in 0..<256 {
            let v = Double(i) / 255
            let lin = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            let mapped = min(max(h(lin) / h(w), 0), 1)
            let enc = mapped <= 0.0031308 ? mapped * 12.92 : 1.055 * pow(mapped, 1 / 2.4) - 0.055
            #expect(Int(out[i, 0][0]) == Int((enc * 255).rounded()), "at \(i)")
        }
    }

    @Test func hableAndACESFollowTheirCurves() throws {
        for curve in ToneMapCalculator.Curve.allCases {
            let o = ToneMapCalculator.Options(curve: curve, exposure: 1)
            let table = try ToneMapCalculator.table(o)
            for i in [0, 1, 30, 128, 200, 255] {
                // Independent: sRGB decode → exposure → curve → encode, with the formulas written out.
                let v = Double(i) / 255
                let lin = (v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)) * 2
                let mapped: Double
                if curve == .aces {
                    mapped = min(max(lin * (2.51 * lin + 0.03) / (lin * (2.43 * lin + 0.59) + 0.14), 0), 1)
                } else {
                    func h(_ x: Double) -> Double { ((x * (0.15 * x + 0.05) + 0.004) / (x * (0.15 * x + 0.5) + 0.06)) - 0.02 / 0.3 }
                    mapped = min(max(h(lin) / h(11.2), 0), 1)
                }
                let enc = mapped <= 0.0031308 ? mapped * 12.92 : 1.055 * pow(mapped, 1 / 2.4) - 0.055
                #expect(Int(table[i]) == Int((enc * 255).rounded()), "\(curve) at \(i)")
            }
            #expect(table == table.sorted(), "tone curves are monotonic")
        }
        let img = try TestImages.random(width: 3, height: 3, format: .rgba8)
        let out = try ToneMapCalculator.apply(try ToneMapCalculator.table(.init(curve: .aces)), to: img)
        #expect(out[1, 1][3] == img[1, 1][3])
    }

    /// Every colour byte through the table, alpha (wherever the format keeps it) untouched,
    /// on odd sizes with padded strides.
    @Test(arguments: [PixelFormat.rgba8, .bgra8, .rgb8, .gray8])
    func appliesTheTableToColourOnly(format: PixelFormat) throws {
        let table = try ToneMapCalculator.table(.init(curve: .hable, exposure: 0.5))
        let img = try TestImages.random(width: 13, height: 5, format: format, extraStride: 7, seed: 9)
        let out = try ToneMapCalculator.apply(table, to: img)
        let alpha = Kernels.layout(format)?.a ?? -1
        var wrong = 0
        for y in 0..<5 {
            for x in 0..<13 {
                for c in 0..<format.bytesPerPixel() {
                    let want = c == alpha ? img[x, y][c] : table[Int(img[x, y][c])]
                    if out[x, y][c] != want { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0)
    }
}
