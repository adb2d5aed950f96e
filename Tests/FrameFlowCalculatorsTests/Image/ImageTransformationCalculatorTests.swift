import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct ImageTransformationCalculatorTests {
    /// Against cv2.resize INTER_LINEAR. Tolerance 1: OpenCV interpolates in 11-bit fixed
    /// point, FrameFlow in float, on the same pixel-centre geometry.
    @Test func bilinearMatchesOpenCV() throws {
        let out = try Resize.resize(try Photo.rgb(), width: 97, height: 61, interpolation: .bilinear)
        #expect(maxChannelDifference(out, try Photo.fixture("resize_linear_97x61.ppm")) <= 1)
    }

    /// The same fixture through the 4-byte path (two taps per pixel in one pass per row).
    @Test func bilinearRGBAMatchesOpenCV() throws {
        let out = try Resize.resize(try Photo.rgba(), width: 97, height: 61, interpolation: .bilinear)
        #expect(out.format == .rgba8)
        #expect(maxChannelDifference(out, try Photo.fixture("resize_linear_97x61.ppm")) <= 1)
    }

    /// Bilinear against its definition in Double (OpenCV's pixel-centre geometry, edges
    /// clamped), on every packed format and padded strides: odd integer reductions (every tap
    /// on a source pixel: the gather path), fractional reductions, upscales, one-pixel-wide and
    /// two-pixel-wide sources. Tolerance 1: Float sums rounded once.
    @Test(arguments: [PixelFormat.rgba8, .bgra8, .rgb8, .gray8])
    func bilinearMatchesDefinition(format: PixelFormat) throws {
        let sizes = [(21, 15, 7, 5), (21, 15, 14, 10), (9, 7, 20, 11), (1, 4, 3, 2), (2, 3, 1, 1), (2, 2, 5, 3), (33, 9, 11, 4), (10, 10, 10, 4)]
        for (sw, sh, dw, dh) in sizes {
            let src = try TestImages.random(width: sw, height: sh, format: format, extraStride: 3, seed: UInt64(sw * 100 + dw))
            let out = try Resize.resize(src, width: dw, height: dh, interpolation: .bilinear)
            func taps(_ d: Int, _ s: Int, _ n: Int) -> (Int, Int, Double) {
                var f = (Double(d) + 0.5) * Double(s) / Double(n) - 0.5
                f = min(max(f, 0), Double(s - 1))
                let i = Int(f.rounded(.down))
                return (i, min(i + 1, s - 1), f - Double(i))
            }
            var worst = 0
            for y in 0..<dh {
                let (y0, y1, fy) = taps(y, sh, dh)
                for x in 0..<dw {
                    let (x0, x1, fx) = taps(x, sw, dw)
                    let p = out[x, y]
                    for c in 0..<format.bytesPerPixel() {
                        func v(_ xx: Int, _ yy: Int) -> Double { Double(src[xx, yy][c]) }
                        let e = (1 - fy) * ((1 - fx) * v(x0, y0) + fx * v(x1, y0)) + fy * ((1 - fx) * v(x0, y1) + fx * v(x1, y1))
                        worst = max(worst, abs(Int(p[c]) - Int(e.rounded())))
                    }
                }
            }
            #expect(worst <= 1, "\(format) \(sw)×\(sh) → \(dw)×\(dh): off by \(worst)")
        }
    }

    /// Every rotation and flip on every packed format, 37 × 21 with a padded stride (tiles of
    /// eight rows with a remainder), against the definition pixel by pixel: rotate clockwise,
    /// then flip. Exact.
    @Test(arguments: [PixelFormat.rgba8, .bgra8, .rgb8, .gray8])
    func orientationMatchesTheDefinition(format: PixelFormat) throws {
        let (w, h) = (37, 21)
        let img = try TestImages.random(width: w, height: h, format: format, extraStride: 9, seed: 6)
        for rotation in [0, 90, 180, 270] {
            for flipH in [false, true] {
                for flipV in [false, true] {
                    let out = try img.oriented(rotation: rotation, flipHorizontally: flipH, flipVertically: flipV)
                    let (ow, oh) = rotation % 180 == 0 ? (w, h) : (h, w)
                    #expect(out.width == ow && out.height == oh)
                    var wrong = 0
                    for y in 0..<oh {
                        for x in 0..<ow {
                            // Undo the flips, then the rotation.
                            let fx = flipH ? ow - 1 - x : x, fy = flipV ? oh - 1 - y : y
                            let (sx, sy): (Int, Int)
                            switch rotation {
                            case 90: (sx, sy) = (fy, h - 1 - fx)
                            case 180: (sx, sy) = (w - 1 - fx, h - 1 - fy)
                            case 270: (sx, sy) = (w - 1 - fy, fx)
                            default: (sx, sy) = (fx, fy)
                            }
                            if out[x, y] != img[sx, sy] { wrong += 1 }
                        }
                    }
                    #expect(wrong == 0, "\(format) rotated \(rotation), flips \(flipH) \(flipV): \(wrong) pixels wrong")
                }
            }
        }
    }

    /// Against cv2.resize INTER_AREA, integer and fractional factors. Tolerance 1.
    @Test(arguments: [("resize_area_64x64.ppm", 64, 64), ("resize_area_100x70.ppm", 100, 70)])
    func areaMatchesOpenCV(file: String, w: Int, h: Int) throws {
        let out = try Resize.resize(try Photo.rgb(), width: w, height: h, interpolation: .area)
        #expect(maxChannelDifference(out, try Photo.fixture(file)) <= 1)
    }

    func transform(_ img: ImageFrame, _ configure: (inout ImageTransformationCalculator.Options) -> Void) throws -> (ImageFrame, [Double]) {
        var o = ImageTransformationCalculator.Options()
        configure(&o)
        return try ImageTransformationCalculator.transform(img, o)
    }

    @Test func rotationThenFlip() throws {
        let img = try TestImages.make(width: 3, height: 2, format: .gray8) { x, y, _ in UInt8(10 * y + x) }
        #expect(try transform(img) { $0.rotationDegrees = 90 }.0.packedBytes() == [10, 0, 11, 1, 12, 2])
        #expect(try transform(img) { $0.rotationDegrees = 180 }.0.packedBytes() == [12, 11, 10, 2, 1, 0])
        #expect(try transform(img) { $0.rotationDegrees = 270 }.0.packedBytes() == [2, 12, 1, 11, 0, 10])
        #expect(try transform(img) { $0.flipHorizontally = true }.0.packedBytes() == [2, 1, 0, 12, 11, 10])
        #expect(try transform(img) { $0.flipVertically = true }.0.packedBytes() == [10, 11, 12, 0, 1, 2])
        // Flip after rotation: rotate 90 gives [[10,0],[11,1],[12,2]], then mirror each row.
        #expect(
            try transform(img) {
                $0.rotationDegrees = 90; $0.flipHorizontally = true
            }.0.packedBytes() == [0, 10, 1, 11, 2, 12])
    }

    @Test func fitLetterboxesAndReportsPadding() throws {
        let img = try TestImages.make(width: 8, height: 4, format: .rgba8) { _, _, c in c == 3 ? 255 : 200 }
        let (out, pad) = try transform(img) {
            $0.outputWidth = 8; $0.outputHeight = 8; $0.scaleMode = .fit; $0.letterboxColor = [1, 2, 3, 255]
        }
        #expect(out.width == 8 && out.height == 8)
        #expect(out[0, 0] == [1, 2, 3, 255] && out[0, 7] == [1, 2, 3, 255])
        #expect(out[4, 4] == [200, 200, 200, 255])
        #expect(pad == [0, 0.25, 0, 0.25])
    }

    @Test func fillAndCropKeepsTheCentre() throws {
        // Left half black, right half white, 8×4 into 4×4: the centre 4×4 is kept.
        let img = try TestImages.make(width: 8, height: 4, format: .gray8) { x, _, _ in x < 2 || x >= 6 ? 0 : (x < 4 ? 100 : 200) }
        let (out, _) = try transform(img) {
            $0.outputWidth = 4; $0.outputHeight = 4; $0.scaleMode = .fillAndCrop
        }
        #expect(out.packedBytes() == [UInt8]([100, 100, 200, 200]) + [100, 100, 200, 200] + [100, 100, 200, 200] + [100, 100, 200, 200])
    }

    @Test func oneByOneAndOddSizes() throws {
        let one = try TestImages.make(width: 1, height: 1, format: .rgb8) { _, _, c in UInt8(50 * c) }
        let (big, _) = try transform(one) {
            $0.outputWidth = 3; $0.outputHeight = 5
        }
        #expect(big.width == 3 && big.height == 5 && big[2, 4] == [0, 50, 100])
        let odd = try TestImages.random(width: 7, height: 5, format: .bgra8, extraStride: 5)
        let (same, _) = try transform(odd) { _ in }
        #expect(TestImages.maxDifference(same, odd) == 0)
    }

    /// A graph file of one ImageTransformationCalculator node (line 2) whose options extension holds `options`.
    func graphText(options: String) -> String {
        """
        input_stream: "in"
        node {
          calculator: "ImageTransformationCalculator"
          input_stream: "IMAGE:in"
          output_stream: "IMAGE:out"
          options { [mediapipe.ImageTransformationCalculatorOptions.ext] { \(options) } }
        }
        """
    }

    @Test func invalidOptions() throws {
        #expect(throws: GraphError.self) {
            try {
                var o = ImageTransformationCalculator.Options(); o.rotationDegrees = 45; return o
            }().validate()
        }
        #expect(throws: GraphError.self) {
            try {
                var o = ImageTransformationCalculator.Options(); o.letterboxColor = [1]; return o
            }().validate()
        }
        // The graph checks them when it is built (so `frameflow validate` does), naming the node and line.
        let text = graphText(options: "rotation_degrees: 45")
        let e = #expect(throws: GraphErrors.self) { try Graph(GraphConfig(parsing: text, file: "g.pbtxt"), registry: .standard) }
        #expect(
            e?.description.contains("g.pbtxt:2:1: node 'ImageTransformationCalculator': rotation_degrees must be 0, 90, 180 or 270, not 45") == true,
            "\(String(describing: e))")
        // And before a running calculator gets them.
        let graph = try Graph(GraphConfig(parsing: text.replacingOccurrences(of: "45", with: "90")), registry: .standard)
        var bad = ImageTransformationCalculator.Options()
        bad.rotationDegrees = 45
        let running = #expect(throws: GraphError.self) { try graph.setOptions(bad, forNode: "ImageTransformationCalculator") }
        #expect(running?.kind == .invalidOption && running?.node == "ImageTransformationCalculator")
    }

    @Test func graphFileOptions() throws {
        let text = graphText(options: "output_width: 4 output_height: 2 scale_mode: FIT interpolation: AREA")
        _ = try Graph(GraphConfig(parsing: text), registry: .standard)
    }
}

@Suite struct ImageCroppingCalculatorTests {
    @Test func pixelAndNormalizedRectsClamped() throws {
        let img = try TestImages.make(width: 4, height: 4, format: .gray8) { x, y, _ in UInt8(y * 4 + x) }
        #expect(try ImageCroppingCalculator.crop(img, x: 1, y: 1, width: 2, height: 2).packedBytes() == [5, 6, 9, 10])
        #expect(try ImageCroppingCalculator.crop(img, x: 3, y: -2, width: 5, height: 3).packedBytes() == [3])
        let runner = try CalculatorRunner(
            ImageCroppingCalculator.self,
            options: {
                var o = ImageCroppingCalculator.Options(); o.normX = 0.5; o.normY = 0.5; o.normWidth = 0.5; o.normHeight = 0.5; return o
            }(), inputs: ["IMAGE:in", "RECT:rect"], outputs: ["IMAGE:out"])
        runner.add(img, tag: "IMAGE", at: 0)
        runner.add(img, tag: "IMAGE", at: 1)
        runner.add(Rect(x: 0, y: 0, width: 1, height: 2), tag: "RECT", at: 1)
        try runner.run()
        let outs = try runner.outputs("IMAGE").map { try $0.get(ImageFrame.self).packedBytes() }
        #expect(outs == [[10, 11, 14, 15], [0, 4]])
    }

    /// Values that trapped in the Double → Int conversion (or overflowed `x + width`) are
    /// refused when the graph is built, naming the field.
    @Test(arguments: [
        ("norm_width: 1e308", "norm_width"), ("norm_width: 99999999999999999999", "norm_width"),
        ("norm_width: 0.5 norm_height: 2", "norm_height"), ("norm_x: -1e300 norm_width: 0.5", "norm_x"),
        ("width: -1", "width"), ("x: 9223372036854775807 width: 5", "x"), ("height: 2147483647", "height"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("ImageCroppingCalculator", "mediapipe.ImageCroppingCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// An output over the pixel budget (fuzz-options asked for 19296×19200, 1.5 GB) is refused
    /// when the graph is built, and at run time under the graph's own smaller limit.
    @Test func outputsOverThePixelBudgetAreRefused() throws {
        let e = optionError(
            "ImageTransformationCalculator", "mediapipe.ImageTransformationCalculatorOptions", "output_width: 19296 output_height: 19200")
        #expect(e?.kind == .invalidOption && e?.message.contains("19296×19200") == true, "\(String(describing: e))")
        var o = ImageTransformationCalculator.Options()
        (o.outputWidth, o.outputHeight) = (64, 64)
        let r = try CalculatorRunner(ImageTransformationCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        var limits = ResourceLimits()
        limits.maxImagePixels = 1000
        r.environment = GraphEnvironment(limits: limits)
        r.add(try TestImages.make(width: 8, height: 8, format: .gray8) { _, _, _ in 0 }, tag: "IMAGE", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("64×64 is over the limit of 1000 pixels") }
    }

    /// A RECT packet is any `Rect` (a model's output may be huge or NaN): clamped, no trap.
    @Test func hugeAndNaNRectsAreClamped() throws {
        let img = try TestImages.make(width: 4, height: 4, format: .gray8) { x, y, _ in UInt8(y * 4 + x) }
        let runner = try CalculatorRunner(ImageCroppingCalculator.self, options: .init(), inputs: ["IMAGE:in", "RECT:rect"], outputs: ["IMAGE:out"])
        let rects = [
            Rect(x: 1e308, y: -1e308, width: 1e308, height: 1e308), Rect(x: .nan, y: .nan, width: .nan, height: .nan),
            Rect(x: 2, y: 1, width: .infinity, height: -.infinity),
        ]
        for (t, r) in rects.enumerated() {
            runner.add(img, tag: "IMAGE", at: Timestamp(Int64(t)))
            runner.add(r, tag: "RECT", at: Timestamp(Int64(t)))
        }
        try runner.run()
        let outs = try runner.outputs("IMAGE").map { try $0.get(ImageFrame.self).packedBytes() }
        #expect(outs == [[3], [0], [6, 7]])
        #expect(try ImageCroppingCalculator.crop(img, x: Int.max, y: Int.min, width: Int.max, height: Int.min).packedBytes() == [3])
    }
}
