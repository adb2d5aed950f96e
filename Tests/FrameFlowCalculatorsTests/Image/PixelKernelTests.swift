import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowCalculators

/// The C pixel kernels (CFrameFlowKernels/Pixels) at every level this machine runs, against the
/// formulas written out here one byte at a time. Widths are odd so that every kernel's vector
/// tail runs; images are noise so that every branch (clamps, thresholds, tetrahedra) is taken.
@Suite struct PixelKernelTests {
    static let levels = KernelLevel.available

    /// Index of the first differing byte, or nil.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        guard a.count == b.count else { return -1 }
        return a.indices.first { a[$0] != b[$0] }
    }

    @Test(arguments: levels)
    func luminanceMatchesTheFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .bgra8] {
            let img = try TestImages.random(width: 37, height: 5, format: format, seed: 3)
            let got = try KernelLevel.withThreadLevel(level) { try LuminanceCalculator.luminance(img) }.packedBytes()
            var want = img.packedBytes()
            for i in stride(from: 0, to: want.count, by: 4) {
                let (r, b) = format == .rgba8 ? (Int(want[i]), Int(want[i + 2])) : (Int(want[i + 2]), Int(want[i]))
                let l = UInt8((2125 * r + 7154 * Int(want[i + 1]) + 721 * b + 5000) / 10000)
                (want[i], want[i + 1], want[i + 2]) = (l, l, l)
            }
            #expect(Self.firstDifference(got, want) == nil, "\(format) at \(level)")
        }
    }

    @Test(arguments: levels)
    func sobelMatchesTheFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .bgra8, .rgb8, .gray8] {
            let (w, h) = (37, 6)
            let img = try TestImages.random(width: w, height: h, format: format, seed: 4)
            let got = try KernelLevel.withThreadLevel(level) { try SobelEdgesCalculator.edges(img) }.packedBytes()
            let src = img.packedBytes(), bpp = format.bytesPerPixel(), channel = format == .bgra8 ? 2 : 0
            func p(_ x: Int, _ y: Int) -> Int { Int(src[(min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)) * bpp + channel]) }
            var want = [UInt8](repeating: 0, count: src.count)
            for y in 0..<h {
                for x in 0..<w {
                    let gh = -p(x - 1, y - 1) - 2 * p(x - 1, y) - p(x - 1, y + 1) + p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)
                    let gv = -p(x - 1, y - 1) - 2 * p(x, y - 1) - p(x + 1, y - 1) + p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)
                    let m = UInt8(min(255, Double(gh * gh + gv * gv).squareRoot().rounded()))
                    for c in 0..<bpp { want[(y * w + x) * bpp + c] = c == 3 ? 255 : m }
                }
            }
            #expect(Self.firstDifference(got, want) == nil, "\(format) at \(level)")
        }
    }

    @Test(arguments: levels)
    func sharpenCombineMatchesTheFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .rgb8, .gray8] {
            let img = try TestImages.random(width: 41, height: 3, format: format, seed: 5)
            let blurred = try TestImages.random(width: 41, height: 3, format: format, seed: 6)
            for (amount, threshold) in [(0.8, 0), (2.5, 40), (40.0, 7)] {
                let o = SharpenCalculator.Options(radius: 1, amount: amount, threshold: threshold)
                let got = try KernelLevel.withThreadLevel(level) { try SharpenCalculator.combine(img, blurred, o) }.packedBytes()
                let s = img.packedBytes(), b = blurred.packedBytes(), a = Float(amount)
                let want = s.indices.map { i -> UInt8 in
                    if format == .rgba8 && i % 4 == 3 { return s[i] }
                    let diff = Int(s[i]) - Int(b[i])
                    guard abs(diff) > threshold else { return s[i] }
                    if a < 31 {
                        // diff · 2⁷ · round(amount · 1024) / 2¹⁶, floored, halved rounding up.
                        let twice = (diff * 128 * Int((a * 1024).rounded())) >> 16
                        return UInt8(min(max(Int(s[i]) + ((twice + 1) >> 1), 0), 255))
                    }
                    return UInt8(min(max(Float(s[i]) + a * Float(diff), 0), 255).rounded(.toNearestOrEven))
                }
                #expect(Self.firstDifference(got, want) == nil, "\(format) amount \(amount) at \(level)")
            }
        }
    }

    @Test(arguments: levels)
    func blurMatchesTheFixedPointFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .rgb8, .gray8] {
            let (w, h) = (45, 9)
            let img = try TestImages.random(width: w, height: h, format: format, seed: 7)
            // The binomial 5-tap kernel (16-bit vertical sums) and σ = 1.3's 9 taps (32-bit).
            for kernel in [try GaussianBlurCalculator.kernel(.init(sigma: 0, kernelSize: 5)), try GaussianBlurCalculator.kernel(.init(sigma: 1.3))] {
                let got = try KernelLevel.withThreadLevel(level) { try GaussianBlurCalculator.blur(img, kernel: kernel) }.packedBytes()
                let k = GaussianBlurCalculator.FixedKernel(kernel), n = k.weights.count, r = n / 2, bpp = format.bytesPerPixel()
                let src = img.packedBytes()
                // Horizontal sums wrap in 16 bits, as the kernel keeps them.
                func hsum(_ x: Int, _ y: Int, _ c: Int) -> UInt16 {
                    (0..<n).reduce(UInt16(0)) { acc, t in
                        acc &+ k.weights[t] &* UInt16(src[(reflect101(y, h) * w + reflect101(x + t - r, w)) * bpp + c])
                    }
                }
                var want = [UInt8](repeating: 0, count: src.count)
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<bpp {
                            let total = 2 * k.bits
                            let sum = (0..<n).reduce(total > 0 ? 1 << (total - 1) : 0) { $0 + Int(k.weights[$1]) * Int(hsum(x, y + $1 - r, c)) }
                            want[(y * w + x) * bpp + c] = UInt8(truncatingIfNeeded: sum >> total)
                        }
                    }
                }
                #expect(Self.firstDifference(got, want) == nil, "\(format), \(n) taps at \(level)")
            }
        }
    }

    @Test(arguments: levels)
    func colorAdjustmentMatchesTheFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .bgra8, .rgb8] {
            let img = try TestImages.random(width: 39, height: 4, format: format, seed: 8)
            for o in [
                ColorAdjustmentCalculator.Options(contrast: 1.2, saturation: 1.3),
                .init(brightness: -0.1, contrast: 0.7, saturation: 0.2, exposure: 0.5),
            ] {
                let got = try KernelLevel.withThreadLevel(level) { try ColorAdjustmentCalculator.adjust(img, o) }.packedBytes()
                let scale = Float(pow(2, o.exposure) * o.contrast), offset = Float((0.5 - 0.5 * o.contrast + o.brightness) * 255)
                let s = img.packedBytes(), bpp = format.bytesPerPixel(), sat = Float(o.saturation)
                let (w0, w2): (Float, Float) = format == .bgra8 ? (0.0721, 0.2125) : (0.2125, 0.0721)
                func tone(_ v: UInt8) -> Float { (min(max(Float(v) * scale + offset, 0), 255) + 0.5).rounded(.down) }
                func byte(_ v: Float) -> UInt8 { UInt8(min(max(v, 0), 255).rounded(.toNearestOrEven)) }
                var want = s
                for i in stride(from: 0, to: s.count, by: bpp) {
                    let c = [tone(s[i]), tone(s[i + 1]), tone(s[i + 2])]
                    let lum = w0 * c[0] + 0.7154 * c[1] + w2 * c[2]
                    for j in 0..<3 { want[i + j] = byte(lum + sat * (c[j] - lum)) }
                }
                #expect(Self.firstDifference(got, want) == nil, "\(format) at \(level)")
            }
        }
    }

    @Test(arguments: levels)
    func nv12ToRGBAMatchesTheSixteenBitFormula(level: KernelLevel) throws {
        let (w, h) = (70, 6)
        let rgba = try TestImages.random(width: w, height: h, format: .rgba8, seed: 9)
        for target in [PixelFormat.rgba8, .bgra8] {
            for range in [YUVRange.video, .full] {
                let nv12 = try ColorConvertCalculator.convert(rgba, to: .nv12(range))
                let got = try KernelLevel.withThreadLevel(level) { try ColorConvertCalculator.convert(nv12, to: target) }.packedBytes()
                let k = ColorConvertCalculator.YUVToRGB(range, .bt601).wide16
                func mulhs(_ a: Int, _ b: Int16) -> Int { (a * Int(b)) >> 16 }
                func level8(_ x: Int) -> UInt8 { UInt8(min(max((x + 8) >> 4, 0), 255)) }
                var want = [UInt8](repeating: 255, count: w * h * 4)
                for y in 0..<h {
                    for x in 0..<w {
                        let yv = Int(nv12.row(y, plane: 0)[x])
                        let uv = nv12.row(y / 2, plane: 1)
                        let u = (Int(uv[x / 2 * 2]) - 128) * 128, v = (Int(uv[x / 2 * 2 + 1]) - 128) * 128
                        let l = mulhs((yv - Int(k.yOffset)) * 64, k.yScale)
                        let rgb = [level8(l + mulhs(v, k.crR)), level8(l - mulhs(u, k.cbG) - mulhs(v, k.crG)), level8(l + mulhs(u, k.cbB))]
                        let i = (y * w + x) * 4
                        (want[i], want[i + 1], want[i + 2]) = target == .rgba8 ? (rgb[0], rgb[1], rgb[2]) : (rgb[2], rgb[1], rgb[0])
                    }
                }
                #expect(Self.firstDifference(got, want) == nil, "\(target), \(range) at \(level)")
            }
        }
    }

    @Test(arguments: levels)
    func areaResizeMatchesTheFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .rgb8] {
            let (sw, sh, dw, dh) = (83, 29, 23, 10)
            let img = try TestImages.random(width: sw, height: sh, format: format, seed: 10)
            let got = try KernelLevel.withThreadLevel(level) { try Resize.resize(img, width: dw, height: dh, interpolation: .area) }.packedBytes()
            let src = img.packedBytes(), bpp = format.bytesPerPixel()
            let (xt, yt) = (Resize.areaTaps(sw, dw), Resize.areaTaps(sh, dh))
            var want = [UInt8](repeating: 0, count: dw * dh * bpp)
            for y in 0..<dh {
                for x in 0..<dw {
                    for c in 0..<bpp {
                        // Rows blended first (in order), then columns (in order).
                        var s: Float = 0
                        for (sx, wx) in zip(xt[x].0, xt[x].1) {
                            var line = yt[y].1[0] * Float(src[(yt[y].0[0] * sw + sx) * bpp + c])
                            for k in 1..<yt[y].0.count { line += yt[y].1[k] * Float(src[(yt[y].0[k] * sw + sx) * bpp + c]) }
                            s += wx * line
                        }
                        want[(y * dw + x) * bpp + c] = UInt8(min(max(s, 0), 255).rounded(.toNearestOrEven))
                    }
                }
            }
            #expect(Self.firstDifference(got, want) == nil, "\(format) at \(level)")
        }
    }

    @Test(arguments: levels)
    func bilinearResizeMatchesTheFixedPointFormula(level: KernelLevel) throws {
        for format in [PixelFormat.rgba8, .rgb8, .gray8] {
            for (sw, sh, dw, dh) in [(83, 29, 61, 17), (37, 11, 90, 25), (64, 16, 32, 8)] {
                let img = try TestImages.random(width: sw, height: sh, format: format, seed: 11)
                let got = try KernelLevel.withThreadLevel(level) {
                    try Resize.resize(img, width: dw, height: dh, interpolation: .bilinear)
                }.packedBytes()
                let src = img.packedBytes(), bpp = format.bytesPerPixel()
                let (xt, yt) = (Resize.linearTaps(sw, dw), Resize.linearTaps(sh, dh))
                // Columns in 1/256ths (a lone tap weighs 256), then rows in 1/65536ths.
                func column(_ sy: Int, _ x: Int, _ c: Int) -> Int {
                    let i = xt.index[x], single = xt.weight[x] == 1
                    let a = single ? 256 : Int(min(256, max(0, (xt.weight[x] * 256).rounded())))
                    let j = single ? i : i + 1
                    return Int(src[(sy * sw + i) * bpp + c]) * a + Int(src[(sy * sw + j) * bpp + c]) * (256 - a)
                }
                var want = [UInt8](repeating: 0, count: dw * dh * bpp)
                for y in 0..<dh {
                    for x in 0..<dw {
                        for c in 0..<bpp {
                            let q0 = column(yt.index[y], x, c)
                            var v = q0
                            if yt.weight[y] != 1 {
                                let wa = Int(min(65535, max(1, (yt.weight[y] * 65536).rounded())))
                                v = ((q0 * wa) >> 16) + ((column(yt.index[y] + 1, x, c) * (65536 - wa)) >> 16)
                            }
                            want[(y * dw + x) * bpp + c] = UInt8((v + 128) >> 8)
                        }
                    }
                }
                #expect(Self.firstDifference(got, want) == nil, "\(format) \(sw)×\(sh) → \(dw)×\(dh) at \(level)")
            }
        }
    }

    /// The tetrahedral LUT gives the same bytes at every level (the baseline's fused steps are
    /// libm's `fmaf`), and within a level of the readable per-pixel form.
    @Test(arguments: levels)
    func tetrahedralLUTIsTheSameAtEveryLevel(level: KernelLevel) throws {
        let lut = try CubeLUT(contentsOfFile: RepositoryFiles.fixture("luts/warm_film_17.cube"))
        for format in [PixelFormat.rgba8, .bgra8, .rgb8] {
            let img = try TestImages.random(width: 53, height: 7, format: format, seed: 11)
            for intensity in [1.0, 0.6] {
                let reference = try KernelLevel.withThreadLevel(.baseline) { try LUTCalculator.apply(lut, to: img, intensity: intensity) }
                    .packedBytes()
                let got = try KernelLevel.withThreadLevel(level) { try LUTCalculator.apply(lut, to: img, intensity: intensity) }.packedBytes()
                #expect(Self.firstDifference(got, reference) == nil, "\(format), intensity \(intensity) at \(level)")
            }
        }
    }
}
