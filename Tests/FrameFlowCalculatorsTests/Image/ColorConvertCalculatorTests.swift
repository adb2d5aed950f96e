import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Independent reference: the BT.601/BT.709 equations in Double.
func referenceRGB(y: UInt8, u: UInt8, v: UInt8, range: YUVRange, matrix: YUVMatrix) -> [Int] {
    let (kr, kb): (Double, Double) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
    let kg = 1 - kr - kb
    let yy = range == .video ? (Double(y) - 16) * 255 / 219 : Double(y)
    let cb = (Double(u) - 128) * (range == .video ? 255.0 / 224 : 1)
    let cr = (Double(v) - 128) * (range == .video ? 255.0 / 224 : 1)
    let r = yy + 2 * (1 - kr) * cr
    let g = yy - 2 * (1 - kb) * kb / kg * cb - 2 * (1 - kr) * kr / kg * cr
    let b = yy + 2 * (1 - kb) * cb
    return [r, g, b].map { Int(min(255, max(0, $0)).rounded()) }
}

@Suite struct ColorConvertCalculatorTests {
    /// A float image (a mask) has no byte layout: an error naming the format, not a crash.
    @Test func floatImagesAreRefused() throws {
        let mask = try ImagePool.shared.makeImage(width: 4, height: 2, format: .grayFloat32).freeze()
        #expect(throws: ImageError.unsupportedFormat(.grayFloat32, "colour conversion to rgb8")) {
            try ColorConvertCalculator.convert(mask, to: .rgb8)
        }
        let rgb = try ImagePool.shared.makeImage(width: 4, height: 2, format: .rgb8).freeze()
        #expect(throws: ImageError.self) { try ColorConvertCalculator.convert(rgb, to: .rgbaFloat32) }
    }

    /// Against OpenCV's COLOR_YUV2RGB_NV12 (BT.601, video range). Tolerance 2: OpenCV uses
    /// its own fixed-point constants; both round the same equations.
    @Test func nv12ToRGBAMatchesOpenCV() throws {
        let out = try ColorConvertCalculator.convert(try Photo.nv12(), to: .rgba8)
        #expect(maxChannelDifference(out, try Photo.fixture("nv12_to_rgb.ppm")) <= 2)
        #expect(out[0, 0][3] == 255)
    }

    /// Against OpenCV's COLOR_RGB2GRAY (0.299, 0.587, 0.114). Tolerance 1.
    @Test func grayMatchesOpenCV() throws {
        let out = try ColorConvertCalculator.convert(try Photo.rgb(), to: .gray8)
        #expect(maxChannelDifference(out, try Photo.fixture("rgb_to_gray.pgm"), channels: 1) <= 1)
    }

    /// Every YUV flavour to RGB against the equations. Tolerance 1 (14-bit fixed point). 37
    /// pixels wide: two 16-pixel vector blocks and a 5-pixel scalar tail, odd chroma width.
    @Test(arguments: [YUVMatrix.bt601, .bt709])
    func yuvToRGBFollowsTheEquations(matrix: YUVMatrix) throws {
        for format in [PixelFormat.nv12(.full), .nv12(.video), .i420(.full), .i420(.video)] {
            var m = try ImagePool.shared.makeImage(width: 37, height: 5, format: format)
            var seed: UInt32 = 7
            for p in 0..<format.planeCount {
                let (_, ph) = format.planeSize(p, width: 37, height: 5)
                for y in 0..<ph {
                    m.withMutableRow(y, plane: p) { r in
                        for i in r.indices { seed = seed &* 1_103_515_245 &+ 12345; r[i] = UInt8(truncatingIfNeeded: seed >> 16) }
                    }
                }
            }
            let yuv = m.freeze()
            for target in [PixelFormat.rgba8, .bgra8, .rgb8] {
                let out = try ColorConvertCalculator.convert(yuv, to: target, matrix: matrix)
                for y in 0..<5 {
                    for x in 0..<37 {
                        let s = yuv[x, y]
                        let ref = referenceRGB(y: s[0], u: s[1], v: s[2], range: format.yuvRange!, matrix: matrix)
                        var px = out[x, y]
                        if target == .bgra8 { px.swapAt(0, 2) }
                        for c in 0..<3 { #expect(abs(Int(px[c]) - ref[c]) <= 1, "\(format)→\(target) at \(x),\(y)") }
                    }
                }
            }
        }
    }

    /// RGB → YUV → RGB comes back within the quantization of 4:2:0 on a smooth photo, and
    /// flat colours come back exactly (±1).
    @Test(arguments: ["nv12", "nv12_video", "i420", "i420_video"])
    func roundTripThroughYUV(name: String) throws {
        let format = PixelFormat(name: name)!
        let flat = try TestImages.make(width: 6, height: 4, format: .rgba8) { _, _, c in [200, 40, 90, 255][c] }
        let back = try ColorConvertCalculator.convert(try ColorConvertCalculator.convert(flat, to: format), to: .rgba8)
        #expect(maxChannelDifference(back, flat) <= 2)
        for matrix in YUVMatrix.allCases {
            let photo = try Photo.rgba()
            let rt = try ColorConvertCalculator.convert(
                try ColorConvertCalculator.convert(photo, to: format, matrix: matrix), to: .rgba8, matrix: matrix)
            var sum = 0
            for y in 0..<256 { for x in 0..<256 { let a = photo[x, y], b = rt[x, y]; for c in 0..<3 { sum += abs(Int(a[c]) - Int(b[c])) } } }
            #expect(Double(sum) / (256 * 256 * 3) < 4, "mean error of a 4:2:0 round trip")
        }
    }

    @Test func packedShufflesAndYUVRanges() throws {
        let img = try TestImages.random(width: 5, height: 3, format: .rgba8, extraStride: 3)
        let bgra = try ColorConvertCalculator.convert(img, to: .bgra8)
        let rgb = try ColorConvertCalculator.convert(bgra, to: .rgb8)
        for y in 0..<3 {
            for x in 0..<5 {
                #expect(bgra[x, y] == [img[x, y][2], img[x, y][1], img[x, y][0], img[x, y][3]])
                #expect(rgb[x, y] == Array(img[x, y][0..<3]))
            }
        }
        let full = try ColorConvertCalculator.convert(img, to: .nv12(.full))
        let video = try ColorConvertCalculator.convert(full, to: .i420(.video))
        for y in 0..<3 {
            for x in 0..<5 {
                let f = full[x, y], v = video[x, y]
                #expect(abs(Int(v[0]) - Int((Double(f[0]) * 219 / 255 + 16).rounded())) <= 1)
                #expect(abs(Int(v[1]) - Int(((Double(f[1]) - 128) * 224 / 255 + 128).rounded())) <= 1)
            }
        }
    }

    /// Every pair of packed formats (each written out as its own loop) against the pixel's
    /// channels by name: a gray source is R = G = B, a gray target the BT.601 luma (tolerance
    /// 1, Q14 weights), a target alpha without a source alpha 255. 37 × 5 with padded strides.
    @Test(arguments: [PixelFormat.rgba8, .bgra8, .rgb8, .gray8])
    func packedPairsKeepTheChannels(from source: PixelFormat) throws {
        let img = try TestImages.random(width: 37, height: 5, format: source, extraStride: 5, seed: 4)
        func rgba(_ f: PixelFormat, _ p: [UInt8]) -> [Int] {
            switch f {
            case .rgba8: return p.map(Int.init)
            case .bgra8: return [p[2], p[1], p[0], p[3]].map(Int.init)
            case .rgb8: return [Int(p[0]), Int(p[1]), Int(p[2]), 255]
            default: return [Int(p[0]), Int(p[0]), Int(p[0]), 255]
            }
        }
        for target in [PixelFormat.rgba8, .bgra8, .rgb8, .gray8] where target != source {
            let out = try ColorConvertCalculator.convert(img, to: target)
            var worst = 0
            for y in 0..<5 {
                for x in 0..<37 {
                    let want = rgba(source, img[x, y]), got = out[x, y]
                    if target == .gray8 {
                        let l = 0.299 * Double(want[0]) + 0.587 * Double(want[1]) + 0.114 * Double(want[2])
                        worst = max(worst, abs(Int(got[0]) - Int(l.rounded())))
                    } else {
                        let g = rgba(target, got)
                        for c in 0..<(target == .rgb8 ? 3 : 4) { worst = max(worst, abs(g[c] - want[c])) }
                    }
                }
            }
            #expect(worst <= (target == .gray8 ? 1 : 0), "\(source) → \(target): off by \(worst)")
        }
    }

    /// RGB → YUV against the equations in Double: Y per pixel, Cb and Cr from the mean of
    /// each 2 × 2 block (the last odd column and row from what they cover). Tolerance 1.
    @Test(arguments: [PixelFormat.rgba8, .bgra8, .rgb8])
    func rgbToYUVFollowsTheEquations(from source: PixelFormat) throws {
        let img = try TestImages.random(width: 37, height: 5, format: source, extraStride: 3, seed: 8)
        let rgb = try ColorConvertCalculator.convert(img, to: .rgb8)
        for format in [PixelFormat.nv12(.full), .nv12(.video), .i420(.full), .i420(.video)] {
            let out = try ColorConvertCalculator.convert(img, to: format)
            let video = format.yuvRange == .video
            let (kr, kb) = (0.299, 0.114), kg = 1 - 0.299 - 0.114
            let (ys, cs) = video ? (219.0 / 255, 224.0 / 255) : (1.0, 1.0)
            var worst = 0
            for y in 0..<5 {
                for x in 0..<37 {
                    let p = rgb[x, y].map(Double.init)
                    let wantY = (video ? 16 : 0) + ys * (kr * p[0] + kg * p[1] + kb * p[2])
                    worst = max(worst, abs(Int(out[x, y][0]) - Int(wantY.rounded())))
                    guard x % 2 == 0, y % 2 == 0 else { continue }
                    var m = [0.0, 0, 0], n = 0.0
                    for yy in y..<min(y + 2, 5) { for xx in x..<min(x + 2, 37) { for c in 0..<3 { m[c] += Double(rgb[xx, yy][c]) }; n += 1 } }
                    m = m.map { ($0 / n).rounded() }
                    let l = kr * m[0] + kg * m[1] + kb * m[2]
                    let cb = 128 + cs * (m[2] - l) / (2 * (1 - kb)), cr = 128 + cs * (m[0] - l) / (2 * (1 - kr))
                    worst = max(worst, abs(Int(out[x, y][1]) - Int(cb.rounded())), abs(Int(out[x, y][2]) - Int(cr.rounded())))
                }
            }
            #expect(worst <= 1, "\(source) → \(format): off by \(worst)")
        }
    }

    /// YUV → gray8 is the luma plane mapped to full range. Tolerance 1.
    @Test func yuvToGrayIsTheLuma() throws {
        let img = try TestImages.random(width: 37, height: 5, format: .rgba8, seed: 2)
        for format in [PixelFormat.nv12(.full), .nv12(.video), .i420(.video)] {
            let yuv = try ColorConvertCalculator.convert(img, to: format)
            let gray = try ColorConvertCalculator.convert(yuv, to: .gray8)
            var worst = 0
            for y in 0..<5 {
                for x in 0..<37 {
                    let v = Double(yuv[x, y][0]), want = format.yuvRange == .video ? (v - 16) * 255 / 219 : v
                    worst = max(worst, abs(Int(gray[x, y][0]) - Int(min(255, max(0, want)).rounded())))
                }
            }
            #expect(worst <= 1, "\(format): off by \(worst)")
        }
    }

    @Test func badOptionsAndFormats() throws {
        #expect(throws: GraphError.self) { try ColorConvertCalculator(options: .init(outputFormat: "yuv444")) }
        let runner = try CalculatorRunner(
            ColorConvertCalculator.self, options: .init(outputFormat: "nv12"), inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        runner.add(try TestImages.random(width: 4, height: 4, format: .rgba8), tag: "IMAGE", at: 0)
        try runner.run()
        #expect(try runner.outputs("IMAGE")[0].get(ImageFrame.self).format == .nv12(.full))
    }

    /// An unknown or float `output_format` is refused when the graph is built, so
    /// `frameflow validate` refuses what the run would.
    @Test(arguments: ["output_format: \"rgb9\"", "output_format: \"grayFloat32\"", "output_format: \"\""])
    func refusesUnknownFormatsWhenTheGraphIsBuilt(options: String) {
        let e = optionError("ColorConvertCalculator", "frameflow.ColorConvertCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains("output_format") == true, "\(options): \(String(describing: e))")
    }
}
