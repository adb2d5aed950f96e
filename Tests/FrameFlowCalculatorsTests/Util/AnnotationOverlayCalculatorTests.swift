import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct AnnotationOverlayCalculatorTests {
    func blank(_ w: Int = 40, _ h: Int = 30) throws -> ImageFrame {
        try TestImages.make(width: w, height: h, format: .rgba8) { _, _, c in c == 3 ? 255 : 10 }
    }

    @Test func boxOutlineAndLabel() throws {
        var o = AnnotationOverlayCalculator.Options()
        o.thickness = 1
        o.boxColor = [0, 255, 0]
        let d = Detection(pixelBox: .init(xmin: 5, ymin: 22, width: 10, height: 8), score: 0.9, label: "A")
        let out = try AnnotationOverlayCalculator.draw(on: try blank(80, 40), detections: [d], options: o)
        #expect(out[5, 22] == [0, 255, 0, 255] && out[14, 29] == [0, 255, 0, 255] && out[14, 22] == [0, 255, 0, 255])
        #expect(out[10, 26] == [10, 10, 10, 255], "inside the box is untouched")
        // The label "A 0.90" sits on a filled box above the detection (18 px high at scale
        // 2: rows 4…21), text in black.
        #expect(out[5, 4] == [0, 255, 0, 255])
        #expect(out[5, 3] == [10, 10, 10, 255])
        var black = 0
        for y in 4..<22 { for x in 5..<80 where out[x, y] == [0, 0, 0, 255] { black += 1 } }
        #expect(black > 20, "glyph pixels are drawn")
    }

    @Test func glyphsAreTheFontsBitmaps() throws {
        var canvasOptions = AnnotationOverlayCalculator.Options()
        canvasOptions.textScale = 1
        canvasOptions.thickness = 1
        // A zero-size box at the top-left puts the label inside the image at (1, 1).
        let d = Detection(pixelBox: .init(xmin: 0, ymin: 0, width: 1, height: 1), score: 1, label: "1")
        let out = try AnnotationOverlayCalculator.draw(on: try blank(), detections: [d], options: canvasOptions)
        // "1" = 04 0C 04 04 04 04 0E: row 0 has one pixel at column 2.
        let row0 = (0..<5).map { out[1 + $0, 1] == [0, 0, 0, 255] }
        #expect(row0 == [false, false, true, false, false])
        let row6 = (0..<5).map { out[1 + $0, 7] == [0, 0, 0, 255] }
        #expect(row6 == [false, true, true, true, false])
    }

    @Test func maskBlendsPointsAndLines() throws {
        var o = AnnotationOverlayCalculator.Options()
        o.maskColor = [250, 0, 0]
        o.maskAlpha = 1.0
        o.pointRadius = 0
        let mask = try TestImages.make(width: 2, height: 1, format: .gray8) { x, _, _ in x == 0 ? 255 : 0 }
        let out = try AnnotationOverlayCalculator.draw(
            on: try blank(), points: [Point(x: 30, y: 5)], lines: [[Point(x: 20, y: 20), Point(x: 25, y: 20)]], mask: mask, options: o)
        #expect(out[3, 3] == [250, 0, 0, 255], "left half fully masked")
        #expect(out[35, 3] == [10, 10, 10, 255], "right half unmasked")
        #expect(out[30, 5] == [255, 0, 0, 255])
        #expect(out[22, 20] == [255, 255, 0, 255])
    }

    @Test func keepsLastDetectionsWhenAsked() throws {
        var o = AnnotationOverlayCalculator.Options()
        o.keepLastDetections = true
        o.drawLabels = false
        let runner = try CalculatorRunner(
            AnnotationOverlayCalculator.self, options: o, inputs: ["IMAGE:video", "DETECTIONS:faces"], outputs: ["IMAGE:out"])
        let img = try blank()
        runner.add(img, tag: "IMAGE", at: 0)
        runner.add([Detection(pixelBox: .init(xmin: 2, ymin: 2, width: 6, height: 6), score: 1)], tag: "DETECTIONS", at: 0)
        runner.add(img, tag: "IMAGE", at: 1)
        try runner.run()
        let outs = try runner.outputs("IMAGE").map { try $0.get(ImageFrame.self) }
        #expect(outs.count == 2)
        #expect(outs[1][2, 2] == [0, 255, 0, 255], "frame 1 has no detections packet but shows the last boxes")
    }

    /// Sizes that hung (a 10⁹-pixel disc) or allocated past the limits are refused when the
    /// graph is built, naming the field.
    @Test(arguments: [
        ("point_radius: 1000000", "point_radius"), ("thickness: 0", "thickness"), ("thickness: 2147483647", "thickness"),
        ("text_scale: 1000", "text_scale"), ("canvas_width_px: 40000 canvas_height_px: 10", "canvas_width_px"),
        ("canvas_width_px: 30000 canvas_height_px: 30000", "canvas_height_px"), ("gpu_scale_factor: 1e308", "gpu_scale_factor"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = optionError("AnnotationOverlayCalculator", "mediapipe.AnnotationOverlayCalculatorOptions", options)
        #expect(e?.kind == .invalidOption && e?.message.contains(field) == true, "\(options): \(String(describing: e))")
    }

    /// Points, lines and boxes from a model may be huge or NaN: drawn clipped, no trap.
    @Test func hugeAndNaNCoordinatesDrawNothingWrong() throws {
        let img = try TestImages.make(width: 8, height: 8, format: .rgb8) { _, _, _ in 0 }
        let far = Point(x: 1e308, y: -1e308), nan = Point(x: .nan, y: .nan)
        let runner = try CalculatorRunner(
            AnnotationOverlayCalculator.self, options: .init(), inputs: ["IMAGE:in", "POINTS:p", "LINES:l"], outputs: ["IMAGE:out"])
        runner.add(img, tag: "IMAGE", at: 0)
        runner.add([far, nan], tag: "POINTS", at: 0)
        runner.add([[far, Point(x: -1e308, y: 1e308)], [nan, Point(x: 4, y: 4)]], tag: "LINES", at: 0)
        try runner.run()
        let out = try runner.outputs("IMAGE")[0].get(ImageFrame.self)
        #expect(out[0, 0] != [0, 0, 0], "the NaN point is drawn at 0, 0")
    }
}
