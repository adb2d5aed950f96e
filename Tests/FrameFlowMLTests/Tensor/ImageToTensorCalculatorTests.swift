import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

@Suite struct ImageToTensorCalculatorTests {
    static func options(_ width: Int, _ height: Int, range: (Double, Double)? = (0, 1)) -> ImageToTensorCalculator.Options {
        var o = ImageToTensorCalculator.Options()
        o.outputTensorWidth = width
        o.outputTensorHeight = height
        if let range { o.outputTensorFloatRange = .init(min: range.0, max: range.1) }
        return o
    }

    /// A 4×2 RGB image with known pixels into a 4×2 tensor (each element samples its pixel
    /// exactly): values follow the float, int and uint range formulas and mean/std, in NHWC
    /// and NCHW, RGB and BGR; the matrix is the identity and there is no padding.
    @Test func valuesFollowTheFormulas() throws {
        var m = try ImagePool.shared.makeImage(width: 4, height: 2, format: .rgb8)
        for y in 0..<2 { m.withMutableRow(y) { r in for i in 0..<12 { r[i] = UInt8((y * 12 + i) * 10) } } }
        let image = m.freeze()
        var o = Self.options(4, 2, range: (-1, 1))
        let t = try ImageToTensorCalculator.convert(image, options: o)
        #expect(t.tensor.shape == [1, 2, 4, 3] && t.tensor.type == .float32)
        for i in 0..<24 { #expect(abs(t.tensor.floats[i] - (Float(i * 10) / 127.5 - 1)) < 1e-5) }
        #expect(t.matrix.values.enumerated().allSatisfy { abs($0.element - ProjectionMatrix.identity.values[$0.offset]) < 1e-6 })
        #expect(t.padding == [0, 0, 0, 0])
        var i8 = Self.options(4, 2, range: nil)
        i8.outputTensorIntRange = .init(min: -128, max: 127)
        let q = try ImageToTensorCalculator.convert(image, options: i8).tensor
        #expect(q.type == .int8 && q.ints == (0..<24).map { Int64((Double($0 * 10) - 128).rounded(.toNearestOrEven)) })
        var u8 = Self.options(4, 2, range: nil)
        u8.outputTensorUintRange = .init(min: 0, max: 100)
        let u = try ImageToTensorCalculator.convert(image, options: u8).tensor
        #expect(u.type == .uint8 && u.ints == (0..<24).map { Int64((Double($0 * 10) * 100 / 255).rounded(.toNearestOrEven)) })
        o.layout = "nchw"; o.color = "bgr"; o.outputTensorFloatRange = nil; o.mean = [0.5, 0.4, 0.3]; o.std = [0.2, 0.2, 0.25]
        try o.validate()
        let n = try ImageToTensorCalculator.convert(image, options: o).tensor
        #expect(n.shape == [1, 3, 2, 4])
        for c in 0..<3 {
            for p in 0..<8 {
                let src = [2, 1, 0][c]  // BGR: channel 0 is blue
                let want = (Float(p * 3 + src) * 10 / 255 - Float(o.mean[c])) / Float(o.std[c])
                #expect(abs(n.floats[c * 8 + p] - want) < 1e-4)
            }
        }
    }

    /// AREA shrinks by averaging whole blocks (a 6×6 gray image to 2×2 in a 4×4 canvas: each
    /// value is the mean of its 3×3 block); BILINEAR samples instead, so single bright pixels
    /// between the sample points vanish.
    @Test func areaInterpolationAveragesBlocks() throws {
        var m = try ImagePool.shared.makeImage(width: 6, height: 6, format: .gray8)
        for y in 0..<6 { m.withMutableRow(y) { r in for x in 0..<6 { r[x] = UInt8((x * 7 + y * 13) % 50 * 5) } } }
        let image = m.freeze()
        var o = Self.options(4, 4)
        o.contentSize = [2, 2]; o.color = "gray"; o.interpolation = .area
        let t = try ImageToTensorCalculator.convert(image, options: o).tensor
        for by in 0..<2 {
            for bx in 0..<2 {
                var sum = 0
                for y in (by * 3)..<(by * 3 + 3) { for x in (bx * 3)..<(bx * 3 + 3) { sum += (x * 7 + y * 13) % 50 * 5 } }
                let want = (Float(sum) / 9).rounded() / 255
                #expect(abs(t.floats[(1 + by) * 4 + 1 + bx] - want) <= 1.0 / 255, "block (\(bx), \(by))")
            }
        }
        #expect(t.floats[0] == 0 && t.floats[15] == 0, "the canvas border stays black")
        var dot = try ImagePool.shared.makeImage(width: 6, height: 6, format: .gray8)
        dot.fill(0)
        dot.withMutableRow(0) { $0[0] = 255 }
        o.interpolation = .bilinear
        let b = try ImageToTensorCalculator.convert(dot.freeze(), options: o).tensor
        o.interpolation = .area
        let a = try ImageToTensorCalculator.convert(dot.freeze(), options: o).tensor
        #expect(b.floats[5] == 0 && abs(a.floats[5] - Float((255.0 / 9).rounded()) / 255) <= 1.0 / 255)
    }

    /// Keep-aspect letterbox (MediaPipe's PadRoi): a 200×100 image in 64×64 grows to a
    /// 200×200 region, so the padding is 0.25 top and bottom, the matrix maps tensor y to
    /// 2y − 0.5 of the image, rows 16…47 hold the image and the bars read 0 with
    /// BORDER_ZERO, the edge rows with BORDER_REPLICATE.
    @Test func letterboxPaddingAndMatrix() throws {
        var m = try ImagePool.shared.makeImage(width: 200, height: 100, format: .gray8)
        m.fill(255)
        var o = Self.options(64, 64)
        o.keepAspectRatio = true; o.color = "gray"; o.borderMode = .zero
        let z = try ImageToTensorCalculator.convert(m.freeze(), options: o)
        #expect(z.tensor.shape == [1, 64, 64, 1])
        let t = z.tensor.floats
        #expect(t[0] == 0 && t[15 * 64] == 0 && t[16 * 64] == 1 && t[47 * 64 + 63] == 1 && t[48 * 64] == 0)
        #expect(z.padding == [0, 0.25, 0, 0.25])
        let want: [Float] = [1, 0, 0, 0, 0, 2, 0, -0.5, 0, 0, 1, 0, 0, 0, 0, 1]
        #expect(zip(z.matrix.values, want).allSatisfy { abs($0 - $1) < 1e-6 }, "\(z.matrix.values)")
        o.borderMode = .replicate
        #expect(try ImageToTensorCalculator.convert(m.freeze(), options: o).tensor.floats.allSatisfy { $0 == 1 })
        // A tall image pads left and right.
        var tall = try ImagePool.shared.makeImage(width: 50, height: 100, format: .gray8)
        tall.fill(9)
        #expect(try ImageToTensorCalculator.convert(tall.freeze(), options: o).padding == [0.25, 0, 0.25, 0])
        // content_size: a 20×20 box centred in 28×28 (the MNIST layout), its matrix by formula.
        var d = Self.options(28, 28)
        d.contentSize = [20, 20]; d.color = "gray"
        let q = try ImageToTensorCalculator.convert(m.freeze(), options: d)
        let f = q.tensor.floats
        #expect(f[3 * 28 + 3] == 0 && f[4 * 28 + 4] == 1 && f[23 * 28 + 23] == 1 && f[24 * 28 + 24] == 0)
        let p = q.matrix.apply(x: 4.0 / 28, y: 24.0 / 28)
        #expect(abs(p.x) < 1e-6 && abs(p.y - 1) < 1e-6)
        #expect(q.padding.map { ($0 * 28).rounded() } == [4, 4, 4, 4])
    }

    struct WarpCases: Decodable {
        struct Case: Decodable {
            var name: String
            var rect: [Double]?
            var width, height: Int
            var keep_aspect_ratio: Bool
            var border: String
            var pixels: [Int]
        }
        var image_width, image_height: Int
        var cases: [Case]
    }

    /// `warp` (`ff_warp_linear_row`, and `ff_warp_linear_axis` without rotation) at every
    /// kernel level against OpenCV's bilinear formula written out here: positions rounded to
    /// 1/32 pixel (halves to even), integer weights (32 − f, f) per axis, (Σ p·w + 512) >> 10,
    /// taps outside the image zero or the nearest edge pixel. Regions inside, across and
    /// wholly outside the image, gray and RGB, both borders, rows padded or not; outputs 19 and
    /// 35 wide, so that the eight-pixel steps of the RGB gathers meet the image's edges.
    @Test(arguments: KernelLevel.available)
    func warpMatchesTheFormula(level: KernelLevel) throws {
        for (format, C, pad) in [(PixelFormat.rgb8, 3, 0), (.rgb8, 3, 5), (.gray8, 1, 0)] {
            let img = try TestImages.random(width: 37, height: 23, format: format, extraStride: pad, seed: 5)
            let src = img.packedBytes()
            for (cx, cy, w, h, rot) in [
                (18.0, 11.0, 30.0, 20.0, 0.0), (5.0, 20.0, 41.0, 17.0, 0.0), (18.0, 11.0, 25.0, 25.0, 0.7), (-40.0, 11.0, 9.0, 9.0, 0.0),
                (30.0, 2.0, 19.0, 31.0, -2.1), (18.0, 11.5, 36.0, 22.0, 0.02), (20.0, 12.0, 30.0, 18.0, 3.1), (33.0, 21.0, 20.0, 16.0, 0.3),
            ] {
                let roi = ImageToTensorCalculator.PixelRoi(centerX: cx, centerY: cy, width: w, height: h, rotation: rot)
                for replicate in [false, true] {
                    for (W, H) in [(19, 13), (35, 9)] {
                        let got = KernelLevel.withThreadLevel(level) {
                            ImageToTensorCalculator.warp(img, channels: C, roi: roi, width: W, height: H, replicate: replicate)
                        }
                        // The sampling grid as `warp` lays it out (OpenCV's RotatedRect corners).
                        let angle = Double(Float(rot * 180 / Double.pi)) * Double.pi / 180
                        let b = Double(Float(cos(angle)) * 0.5), a = Double(Float(sin(angle)) * 0.5)
                        let x0 = cx + a * h - b * w, y0 = cy - b * h - a * w
                        let (dxX, dxY, dyX, dyY) = (2 * b * w / Double(W), 2 * a * w / Double(W), -2 * a * h / Double(H), 2 * b * h / Double(H))
                        var worst = 0
                        for y in 0..<H {
                            for x in 0..<W {
                                let fx = (x0 + Double(y) * dyX) + Double(x) * dxX, fy = (y0 + Double(y) * dyY) + Double(x) * dxY
                                let ix = Int((fx * 32).rounded(.toNearestOrEven)), iy = Int((fy * 32).rounded(.toNearestOrEven))
                                let (tx, ty, ax, ay) = (ix >> 5, iy >> 5, ix & 31, iy & 31)
                                for c in 0..<C {
                                    var sum = 512
                                    for (px, py, wt) in [
                                        (tx, ty, (32 - ax) * (32 - ay)), (tx + 1, ty, ax * (32 - ay)), (tx, ty + 1, (32 - ax) * ay),
                                        (tx + 1, ty + 1, ax * ay),
                                    ] {
                                        let inside = px >= 0 && px < 37 && py >= 0 && py < 23
                                        if !inside && !replicate { continue }
                                        sum += Int(src[(min(max(py, 0), 22) * 37 + min(max(px, 0), 36)) * C + c]) * wt
                                    }
                                    worst = max(worst, abs(Int(got[(y * W + x) * C + c]) - (sum >> 10)))
                                }
                            }
                        }
                        #expect(worst == 0, "\(level) \(format) pad \(pad) \((cx, cy, w, h, rot)) \(W)×\(H) replicate \(replicate): off by \(worst)")
                    }
                }
            }
        }
    }

    /// Rotated and letterboxed regions against OpenCV (scripts/fixtures/
    /// make_image_to_tensor_fixtures.py: cv2.boxPoints → getPerspectiveTransform →
    /// warpPerspective, INTER_LINEAR, BORDER_CONSTANT / BORDER_REPLICATE): every 8-bit value
    /// within 1 (OpenCV's fixed-point weights), and the matrix sends the tensor's corners to
    /// the rotated region's corners, centre + R(θ)·((u − ½)·w, (v − ½)·h).
    @Test func regionsMatchOpenCV() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: MLFixtures.path("Tests/Fixtures/image_to_tensor/warp_cases.json")))
        let fixture = try JSONDecoder().decode(WarpCases.self, from: data)
        let iw = fixture.image_width, ih = fixture.image_height
        var m = try ImagePool.shared.makeImage(width: iw, height: ih, format: .rgb8)
        for y in 0..<ih {
            m.withMutableRow(y) { r in for x in 0..<iw { for c in 0..<3 { r[x * 3 + c] = UInt8((x * 7 + y * 13 + c * 50) % 256) } } }
        }
        let image = m.freeze()
        #expect(fixture.cases.count == 6)
        for c in fixture.cases {
            var o = Self.options(c.width, c.height, range: nil)
            o.outputTensorUintRange = .init(min: 0, max: 255)
            o.keepAspectRatio = c.keep_aspect_ratio
            o.borderMode = c.border == "zero" ? .zero : .replicate
            let rect = c.rect.map { NormalizedRect(xCenter: $0[0], yCenter: $0[1], width: $0[2], height: $0[3], rotation: $0[4]) }
            let out = try ImageToTensorCalculator.convert(image, rect: rect, options: o)
            let got = out.tensor.ints
            #expect(got.count == c.pixels.count, "\(c.name)")
            let worst = zip(got, c.pixels).map { abs(Int($0) - $1) }.max() ?? 99
            #expect(worst <= 1, "\(c.name): off by up to \(worst)")
            // Corners by formula, from the (padded) region in pixels.
            var roi = ImageToTensorCalculator.roi(imageWidth: iw, imageHeight: ih, rect: rect)
            _ = try ImageToTensorCalculator.padRoi(
                tensorWidth: c.width, tensorHeight: c.height, keepAspectRatio: c.keep_aspect_ratio, roi: &roi)
            for (u, v) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.3, 0.8)] {
                let dx = (u - 0.5) * roi.width, dy = (v - 0.5) * roi.height
                let want = (
                    (roi.centerX + cos(roi.rotation) * dx - sin(roi.rotation) * dy) / Double(iw),
                    (roi.centerY + sin(roi.rotation) * dx + cos(roi.rotation) * dy) / Double(ih)
                )
                let p = out.matrix.apply(x: u, y: v)
                #expect(abs(p.x - want.0) < 1e-5 && abs(p.y - want.1) < 1e-5, "\(c.name) (\(u), \(v)): \(p) vs \(want)")
                if let back = out.matrix.inverse?.apply(x: p.x, y: p.y) { #expect(abs(back.x - u) < 1e-4 && abs(back.y - v) < 1e-4) }
            }
        }
    }

    /// In a graph: NORM_RECT picks the region, MATRIX and LETTERBOX_PADDING come out, and
    /// MediaPipe's zero-size sentinel rect produces nothing for its timestamp.
    @Test func graphPortsAndSentinelRect() throws {
        let graph = try Graph(
            try GraphConfig(
                parsing: """
                    input_stream: "image"
                    input_stream: "rect"
                    output_stream: "tensors"
                    output_stream: "matrix"
                    output_stream: "padding"
                    node {
                      calculator: "ImageToTensorCalculator"
                      input_stream: "IMAGE:image"
                      input_stream: "NORM_RECT:rect"
                      output_stream: "TENSORS:tensors"
                      output_stream: "MATRIX:matrix"
                      output_stream: "LETTERBOX_PADDING:padding"
                      options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
                        output_tensor_width: 8 output_tensor_height: 4 keep_aspect_ratio: true
                        output_tensor_float_range { min: -1.0 max: 1.0 } border_mode: BORDER_ZERO gpu_origin: TOP_LEFT } }
                    }
                    """), registry: MLFixtures.registry)
        let tensors = try PacketCollector(graph, "tensors"), matrices = try PacketCollector(graph, "matrix")
        let padding = try PacketCollector(graph, "padding")
        try graph.start()
        let image = try TestImages.random(width: 20, height: 20, format: .rgb8, seed: 3)
        try graph.send(image, to: "image", at: Timestamp(0))
        try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5), to: "rect", at: Timestamp(0))
        try graph.send(image, to: "image", at: Timestamp(1))
        try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0), to: "rect", at: Timestamp(1))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(tensors.packets.map(\.timestamp) == [Timestamp(0)])
        #expect(try tensors.packets[0].get([Tensor].self)[0].shape == [1, 4, 8, 3])
        // A 10×10 region widened to 20×10: x spans 0…20 px, y 7.5…12.5 … scaled by the image.
        let mat = try matrices.packets[0].get(ProjectionMatrix.self)
        let want: [Float] = [1, 0, 0, 0, 0, 0.5, 0, 0.25, 0, 0, 1, 0, 0, 0, 0, 1]
        #expect(zip(mat.values, want).allSatisfy { abs($0 - $1) < 1e-6 }, "\(mat.values)")
        #expect(try padding.packets[0].get([Double].self) == [0.25, 0, 0.25, 0])
    }

    @Test func badOptionsAreClearErrors() throws {
        var o = ImageToTensorCalculator.Options()
        #expect { try o.validate() } throws: { "\($0)".contains("output_tensor_float_range") }
        o = Self.options(8, 8)
        try o.validate()
        for (bad, field) in [
            ({ (x: inout ImageToTensorCalculator.Options) in x.color = "hsv" }, "color"), ({ $0.layout = "chw" }, "layout"),
            (
                {
                    $0.mean = [0.5, 0.5]; $0.std = [1, 1]; $0.outputTensorFloatRange = nil
                }, "mean"
            ),
            ({ $0.contentSize = [9, 9] }, "content_size"),
            ({ $0.outputTensorFloatRange = .init(min: 1, max: 0) }, "output_tensor_float_range"),
            ({ $0.outputTensorIntRange = .init(min: -1, max: 1) }, "exactly one"),
            (
                {
                    $0.outputTensorFloatRange = nil; $0.outputTensorUintRange = .init(min: 0, max: 300)
                }, "output_tensor_uint_range"
            ),
            ({ $0.outputTensorWidth = 0 }, "both"),
        ] {
            var b = o
            bad(&b)
            #expect { try b.validate() } throws: { "\($0)".contains(field) }
        }
        var c = o
        c.contentSize = [4, 4]
        let img = try TestImages.random(width: 16, height: 16, format: .rgb8, seed: 1)
        #expect {
            try ImageToTensorCalculator.convert(
                img, rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: 0.3), options: c)
        } throws: {
            ($0 as? GraphError)?.stream == "NORM_RECT"
        }
        var k = o
        k.keepAspectRatio = true
        #expect {
            try ImageToTensorCalculator.convert(img, rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0.5), options: k)
        } throws: {
            "\($0)".contains("no area")
        }
    }

    /// A region with content_size and AREA, partly outside the image: each value is the
    /// overlap-weighted mean of the pixels under its cell, written here as a double sum over
    /// every pixel (outside: 0 with BORDER_ZERO, the nearest edge pixel with BORDER_REPLICATE);
    /// the matrix sends the content's corners to the region's. A region smaller than the box
    /// is sampled bilinearly, as `warp` does.
    @Test(arguments: [ImageToTensorCalculator.Options.BorderMode.zero, .replicate], ["gray", "rgb"])
    func regionAreaAveragesItsCells(border: ImageToTensorCalculator.Options.BorderMode, color: String) throws {
        let image = try TestImages.random(width: 40, height: 30, format: .rgb8, seed: 5)
        let src = try ColorConvertCalculator.convert(image, to: color == "gray" ? .gray8 : .rgb8)
        let C = color == "gray" ? 1 : 3
        var o = Self.options(9, 7, range: (0, 255))
        o.contentSize = [7, 5]; o.interpolation = .area; o.color = color; o.borderMode = border
        let (cx, cy, rw, rh) = (8.6, 12.9, 23.7, 19.1)  // left edge at −3.25
        let rect = NormalizedRect(xCenter: cx / 40, yCenter: cy / 30, width: rw / 40, height: rh / 30)
        let out = try ImageToTensorCalculator.convert(image, rect: rect, options: o)
        let sx = rw / 7, sy = rh / 5, x0 = cx - rw / 2, y0 = cy - rh / 2
        func overlap(_ lo: Double, _ hi: Double, _ i: Int) -> Double { max(0, min(hi, Double(i + 1)) - max(lo, Double(i))) }
        for v in 0..<7 {
            for u in 0..<9 {
                for c in 0..<C {
                    let got = Double(out.tensor.floats[(v * 9 + u) * C + c])
                    guard (1..<8).contains(u), (1..<6).contains(v) else {
                        #expect(got == 0, "bar (\(u), \(v))")
                        continue
                    }
                    let lx = x0 + Double(u - 1) * sx, ly = y0 + Double(v - 1) * sy
                    var sum = 0.0
                    for j in -10..<40 {
                        for i in -10..<50 {
                            let w = overlap(lx, lx + sx, i) * overlap(ly, ly + sy, j)
                            guard w > 0 else { continue }
                            let inside = i >= 0 && i < 40 && j >= 0 && j < 30
                            if !inside && border == .zero { continue }
                            sum += w * Double(src[min(max(i, 0), 39), min(max(j, 0), 29)][c])
                        }
                    }
                    #expect(abs(got - (sum / (sx * sy)).rounded()) <= 1, "(\(u), \(v), \(c)): \(got) vs \(sum / (sx * sy))")
                }
            }
        }
        let tl = out.matrix.apply(x: 1.0 / 9, y: 1.0 / 7), br = out.matrix.apply(x: 8.0 / 9, y: 6.0 / 7)
        #expect(abs(Double(tl.x) - x0 / 40) < 1e-5 && abs(Double(tl.y) - y0 / 30) < 1e-5)
        #expect(abs(Double(br.x) - (x0 + rw) / 40) < 1e-5 && abs(Double(br.y) - (y0 + rh) / 30) < 1e-5)
        // A region smaller than the box: bilinear, as warp samples it.
        let small = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 5.0 / 40, height: 4.0 / 30)
        let up = try ImageToTensorCalculator.convert(image, rect: small, options: o).tensor.floats
        let roi = ImageToTensorCalculator.PixelRoi(centerX: 20, centerY: 15, width: 5, height: 4)
        let warped = ImageToTensorCalculator.warp(src, channels: C, roi: roi, width: 7, height: 5, replicate: border != .zero)
        for v in 0..<5 {
            for i in 0..<(7 * C) { #expect(up[((v + 1) * 9 + 1) * C + i] == Float(warped[v * 7 * C + i])) }
        }
    }
}

extension ImageToTensorCalculatorTests {
    static let rangePorts = "input_stream: \"IMAGE:image\"\noutput_stream: \"TENSORS:tensors\""

    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let node = "ImageToTensorCalculator", type = "mediapipe.ImageToTensorCalculatorOptions"
        expectRefused(
            node, type, "output_tensor_width: 8192 output_tensor_height: 8192 output_tensor_float_range { min: 0 max: 1 }",
            field: "output_tensor_width", ports: Self.rangePorts)
        expectRefused(
            node, type, "output_tensor_width: 8 output_tensor_height: 8 output_tensor_float_range { min: -1e308 max: 1e308 }",
            field: "output_tensor_float_range.min", ports: Self.rangePorts)
        expectRefused(
            node, type, "output_tensor_width: 8 output_tensor_height: 8 mean: 0.5 std: 1e-300", field: "std", ports: Self.rangePorts)
        // MediaPipe's values stay valid.
        #expect(
            optionError(
                node, type,
                "output_tensor_width: 256 output_tensor_height: 256 keep_aspect_ratio: true output_tensor_float_range { min: -1 max: 1 } border_mode: BORDER_ZERO",
                ports: Self.rangePorts) == nil)
    }

    /// NORM_RECT values a packet may carry: errors, never a trap or a loop over the region.
    @Test func absurdRegionsAreErrorsNotTraps() throws {
        let image = try TestImages.make(width: 64, height: 48, format: .gray8) { _, _, _ in 77 }
        var o = ImageToTensorCalculator.Options()
        o.outputTensorWidth = 4
        o.outputTensorHeight = 4
        o.outputTensorFloatRange = .init(min: 0, max: 255)
        o.color = "gray"
        o.contentSize = [4, 4]
        o.keepAspectRatio = true
        // A region of denormal size: its scale to the box is infinite (Int(inf) trapped); the
        // content fills the box.
        let tiny = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1e-320, height: 1e-320)
        #expect(try ImageToTensorCalculator.convert(image, rect: tiny, options: o).tensor.shape == [1, 4, 4, 1])
        // A centre 10³⁰⁰ image widths away (Int(lo) trapped in the area taps).
        o.interpolation = .area
        let far = NormalizedRect(xCenter: 1e300, yCenter: 0.5, width: 1, height: 1)
        let e = #expect(throws: GraphError.self) { _ = try ImageToTensorCalculator.convert(image, rect: far, options: o) }
        #expect(e?.kind == .calculatorFailed && e?.message.contains("NORM_RECT") == true)
        // 90 image sizes wide: thousands of pixels beyond the edge, each the edge pixel (one
        // tap per side beyond the margin), so every value is the image's.
        o.keepAspectRatio = false
        let wide = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 90, height: 90)
        let out = try ImageToTensorCalculator.convert(image, rect: wide, options: o)
        #expect(out.tensor.floats.allSatisfy { abs($0 - 77) < 1e-3 }, "\(out.tensor.floats)")
    }
}
