import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

@Suite struct ImageToTensorCalculatorTests {
    /// A 4×2 RGB image with known pixels, stretched to 4×2 (no resampling): values follow
    /// the range and mean/std formulas, in NHWC and NCHW, RGB and BGR.
    @Test func valuesFollowTheFormulas() throws {
        var m = try ImagePool.shared.makeImage(width: 4, height: 2, format: .rgb8)
        for y in 0..<2 { m.withMutableRow(y) { r in for i in 0..<12 { r[i] = UInt8((y * 12 + i) * 10) } } }
        let image = m.freeze()
        var o = ImageToTensorCalculator.Options()
        o.outputWidth = 4; o.outputHeight = 2; o.rangeMin = -1; o.rangeMax = 1
        let (t, tr) = try ImageToTensorCalculator.convert(image, options: o)
        #expect(t.shape == [1, 2, 4, 3])
        for i in 0..<24 { #expect(abs(t.floats[i] - (Float(i * 10) / 127.5 - 1)) < 1e-5) }
        #expect(tr == TensorImageTransform(crop: Rect(x: 0, y: 0, width: 4, height: 2)))
        o.layout = "nchw"; o.color = "bgr"; o.mean = [0.5, 0.4, 0.3]; o.std = [0.2, 0.2, 0.25]
        let (u, _) = try ImageToTensorCalculator.convert(image, options: o)
        #expect(u.shape == [1, 3, 2, 4])
        for c in 0..<3 {
            for p in 0..<8 {
                let src = [2, 1, 0][c]  // BGR: channel 0 is blue
                let want = (Float(p * 3 + src) * 10 / 255 - Float(o.mean[c])) / Float(o.std[c])
                #expect(abs(u.floats[c * 8 + p] - want) < 1e-4)
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
        var o = ImageToTensorCalculator.Options()
        o.outputWidth = 4; o.outputHeight = 4; o.contentSize = [2, 2]; o.color = "gray"; o.interpolation = .area
        let (t, _) = try ImageToTensorCalculator.convert(image, options: o)
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
        let (b, _) = try ImageToTensorCalculator.convert(dot.freeze(), options: o)
        o.interpolation = .area
        let (a, _) = try ImageToTensorCalculator.convert(dot.freeze(), options: o)
        #expect(b.floats[5] == 0 && abs(a.floats[5] - Float((255.0 / 9).rounded()) / 255) <= 1.0 / 255)
    }

    /// Keep-aspect letterbox: a 200×100 image in 64×64 occupies 64×32 in the middle, the
    /// bars are black, and the transform maps tensor points back to image pixels.
    @Test func letterboxAndTransform() throws {
        var m = try ImagePool.shared.makeImage(width: 200, height: 100, format: .gray8)
        m.fill(255)
        var o = ImageToTensorCalculator.Options()
        o.outputWidth = 64; o.outputHeight = 64; o.keepAspectRatio = true; o.color = "gray"
        let (t, tr) = try ImageToTensorCalculator.convert(m.freeze(), options: o)
        #expect(t.shape == [1, 64, 64, 1])
        #expect(t.floats[0] == 0 && t.floats[15 * 64] == 0 && t.floats[16 * 64] == 1 && t.floats[47 * 64 + 63] == 1 && t.floats[48 * 64] == 0)
        #expect(tr.content == Rect(x: 0, y: 0.25, width: 1, height: 0.5))
        let p = tr.imagePoint(x: 0.5, y: 0.25)
        #expect(p == Point(x: 100, y: 0))
        // Crop then content size: a 20×20 box centred in 28×28 (the MNIST layout).
        var d = ImageToTensorCalculator.Options()
        d.outputWidth = 28; d.outputHeight = 28; d.contentSize = [20, 20]; d.color = "gray"; d.crop = [50, 0, 100, 100]
        let (q, qt) = try ImageToTensorCalculator.convert(m.freeze(), options: d)
        #expect(q.floats[3 * 28 + 3] == 0 && q.floats[4 * 28 + 4] == 1 && q.floats[23 * 28 + 23] == 1 && q.floats[24 * 28 + 24] == 0)
        #expect(qt.imagePoint(x: 4.0 / 28, y: 4.0 / 28) == Point(x: 50, y: 0))
    }

    @Test func badOptionsAreClearErrors() throws {
        var o = ImageToTensorCalculator.Options()
        #expect(throws: GraphError.self) { try o.validate() }
        o.outputWidth = 8; o.outputHeight = 8
        _ = try ImageToTensorCalculator(options: o)
        for bad in [{ (x: inout ImageToTensorCalculator.Options) in x.color = "hsv" }, { $0.layout = "chw" }, { $0.crop = [0, 0, -1, 1] },
            { $0.mean = [0.5, 0.5] ; $0.std = [1, 1] }, { $0.mean = [0.5]; $0.std = [0] }, { $0.contentSize = [9, 9] }, { $0.rangeMax = 0 }]
        {
            var b = o
            bad(&b)
            #expect(throws: GraphError.self) { try b.validate() }
        }
        var c = o
        c.crop = [500, 500, 10, 10]
        let img = try TestImages.random(width: 16, height: 16, format: .rgb8, seed: 1)
        #expect(throws: GraphError.self) { try ImageToTensorCalculator.convert(img, options: c) }
    }
}

@Suite struct TensorsToClassificationCalculatorTests {
    @Test func softmaxTopKAndLabels() throws {
        var o = TensorsToClassificationCalculator.Options()
        o.applySoftmax = true; o.topK = 2; o.labels = ["a", "b", "c"]
        let out = try TensorsToClassificationCalculator.classify([1, 3, 2], options: o, labels: o.labels)
        let e = [exp(1.0), exp(3.0), exp(2.0)], total = e.reduce(0, +)
        #expect(out.map(\.index) == [1, 2] && out.map(\.label) == ["b", "c"])
        #expect(abs(out[0].score - e[1] / total) < 1e-9 && abs(out[1].score - e[2] / total) < 1e-9)
        #expect(throws: GraphError.self) { try TensorsToClassificationCalculator.classify([1, 2], options: o, labels: o.labels) }
        var f = o
        f.labelMapPath = "/nonexistent/labels.txt"
        #expect(throws: GraphError.self) { try TensorsToClassificationCalculator(options: f) }
    }

    @Test func inferenceNamesAMissingModel() throws {
        var o = InferenceCalculator.Options()
        o.modelPath = "/nonexistent/model.onnx"
        let c = try InferenceCalculator(options: o)
        var n = o
        n.modelPath = "/nonexistent/other.onnx"
        #expect { try c.update(options: n) } throws: { "\($0)".contains("/nonexistent/other.onnx") }
    }
}
