import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Expected values follow mediapipe/calculators/util/rect_to_render_data_calculator.cc.
@Suite struct RectToRenderDataCalculatorTests {
    typealias Calc = RectToRenderDataCalculator

    func render(_ value: any Sendable, tag: String, _ options: Calc.Options = .init()) throws -> [RenderAnnotation] {
        let runner = try CalculatorRunner(Calc.self, options: options, inputs: ["\(tag):in"], outputs: ["RENDER_DATA:r"])
        runner.add(value, tag: tag, at: 0)
        try runner.run()
        return try runner.outputs("RENDER_DATA")[0].get(RenderData.self).renderAnnotations
    }

    @Test func normalizedRectBecomesANormalizedRectangle() throws {
        var o = Calc.Options()
        o.color = RenderColor(r: 0, g: 0, b: 255)
        o.thickness = 3
        let a = try render(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.25), tag: "NORM_RECT", o)
        #expect(
            a == [
                RenderAnnotation(
                    .rectangle(left: 0.25, top: 0.375, right: 0.75, bottom: 0.625, normalized: true), thickness: 3,
                    color: RenderColor(r: 0, g: 0, b: 255))
            ])
    }

    @Test func pixelRectKeepsRotationAndUsesFloatHalves() throws {
        let a = try render(RotatedRect(xCenter: 50, yCenter: 40, width: 21, height: 10, rotation: 0.3), tag: "RECT")
        // 50 − 21 / 2 in single precision = 39.5.
        #expect(a[0].shape == .rectangle(left: 39.5, top: 35, right: 60.5, bottom: 45, normalized: false, rotation: Double(Float(0.3))))
    }

    @Test func vectorsOvalsFilledAndTopLeftDot() throws {
        let rects = [
            NormalizedRect(xCenter: 0.25, yCenter: 0.25, width: 0.25, height: 0.25),
            NormalizedRect(xCenter: 0.75, yCenter: 0.5, width: 0.5, height: 0.5),
        ]
        var o = Calc.Options()
        o.oval = true
        o.filled = true
        let ovals = try render(rects, tag: "NORM_RECTS", o)
        #expect(
            ovals.map(\.shape) == [
                .oval(left: 0.125, top: 0.125, right: 0.375, bottom: 0.375, normalized: true, filled: true),
                .oval(left: 0.5, top: 0.25, right: 1, bottom: 0.75, normalized: true, filled: true),
            ])
        var dot = Calc.Options()
        dot.topLeftThickness = 6
        let rect = try render([RotatedRect(xCenter: 10, yCenter: 10, width: 4, height: 4)], tag: "RECTS", dot)
        #expect(rect[0].shape == .rectangle(left: 8, top: 8, right: 12, bottom: 12, normalized: false, topLeftThickness: 6))
    }

    @Test func unrotatedRectOutsideTheImageKeepsDefaults() throws {
        let a = try render(NormalizedRect(xCenter: 1.5, yCenter: 0.5, width: 0.25, height: 0.25), tag: "NORM_RECT")
        #expect(a[0].shape == .rectangle(left: 0, top: 0, right: 0, bottom: 0, normalized: false))
        let rotated = try render(NormalizedRect(xCenter: 1.5, yCenter: 0.5, width: 0.25, height: 0.25, rotation: 1), tag: "NORM_RECT")
        #expect(
            rotated[0].shape
                == .rectangle(left: 1.375, top: 0.375, right: 1.625, bottom: 0.625, normalized: true, rotation: Double(Float(1))))
    }

    @Test func badOptionsAndPortsAreErrors() throws {
        var o = Calc.Options()
        o.topLeftThickness = 2
        o.filled = true
        let e = #expect(throws: GraphError.self) { try o.validate() }
        #expect(e?.kind == .invalidOption && e?.message.contains("top_left_thickness") == true)
        let runner = try CalculatorRunner(Calc.self, inputs: ["RECT:a", "NORM_RECT:b"], outputs: ["RENDER_DATA:r"])
        #expect(throws: (any Error).self) { try runner.run() }
    }

    @Test func graphFileColor() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "RectToRenderDataCalculator" input_stream: "NORM_RECT:r" output_stream: "RENDER_DATA:o"
                options { [mediapipe.RectToRenderDataCalculatorOptions.ext] { color { r: 255 } thickness: 4.0 filled: true } }
                """, registry: .standard)
        runner.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), tag: "NORM_RECT", at: 0)
        try runner.run()
        let a = try runner.outputs("RENDER_DATA")[0].get(RenderData.self).renderAnnotations[0]
        #expect(a.color == RenderColor(r: 255, g: 0, b: 0) && a.thickness == 4)
        #expect(a.shape == .rectangle(left: 0, top: 0, right: 1, bottom: 1, normalized: true, filled: true))
    }

    /// Thicknesses beyond what `AnnotationOverlayCalculator` draws in time are refused when the
    /// graph is built.
    @Test(arguments: [("thickness: 1001", "thickness"), ("top_left_thickness: 1e308", "top_left_thickness")])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "RectToRenderDataCalculator" input_stream: "NORM_RECT:r" output_stream: "RENDER_DATA:o"
            options { [mediapipe.RectToRenderDataCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
