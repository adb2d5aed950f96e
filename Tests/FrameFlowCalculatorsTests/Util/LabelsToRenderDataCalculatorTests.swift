import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Expected values follow mediapipe/calculators/util/labels_to_render_data_calculator.cc:
/// line height ⌈1.25 · font_height_px⌉, colours cycled, red by default.
@Suite struct LabelsToRenderDataCalculatorTests {
    typealias Calc = LabelsToRenderDataCalculator

    func texts(_ data: RenderData) -> [(String, Double, Double, RenderColor)] {
        data.renderAnnotations.compactMap {
            if case .text(let s, let left, let baseline, _, _, _) = $0.shape { return (s, left, baseline, $0.color) } else { return nil }
        }
    }

    @Test func classificationsTopLeftWithScoresAndCycledColors() throws {
        var o = Calc.Options()
        o.fontHeightPx = 20
        o.maxNumLabels = 3
        o.horizontalOffsetPx = 4
        o.verticalOffsetPx = 2
        o.displayClassificationScore = true
        o.color = [RenderColor(r: 1, g: 2, b: 3), RenderColor(r: 4, g: 5, b: 6)]
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: ["CLASSIFICATIONS:c"], outputs: ["RENDER_DATA:r"])
        let list = ClassificationList([
            Classification(index: 0, score: 0.75, label: "cat"), Classification(index: 1, score: 0.5, label: "dog"),
            Classification(index: 2, score: 0.25, label: "fox"), Classification(index: 3, score: 0.125, label: "owl"),
        ])
        runner.add(list, tag: "CLASSIFICATIONS", at: 0)
        try runner.run()
        let t = texts(try runner.outputs("RENDER_DATA")[0].get(RenderData.self))
        #expect(t.map(\.0) == ["cat:0.75", "dog:0.5", "fox:0.25"])
        #expect(t.map(\.2) == [27, 52, 77], "offset 2 + 25 per line")
        #expect(t.allSatisfy { $0.1 == 4 })
        #expect(t.map(\.3) == [RenderColor(r: 1, g: 2, b: 3), RenderColor(r: 4, g: 5, b: 6), RenderColor(r: 1, g: 2, b: 3)])
    }

    @Test func labelsWithScoresDefaultsAndDisplayNames() throws {
        let runner = try CalculatorRunner(Calc.self, inputs: ["LABELS:l", "SCORES:s"], outputs: ["RENDER_DATA:r"])
        runner.add(["hello", "world"], tag: "LABELS", at: 0)
        runner.add([Float(0.9), 0.1], tag: "SCORES", at: 0)
        try runner.run()
        let data = try runner.outputs("RENDER_DATA")[0].get(RenderData.self)
        #expect(texts(data).map(\.0) == ["hello:0.9"], "one label by default")
        #expect(data.renderAnnotations[0].color == RenderColor(r: 255, g: 0, b: 0) && data.renderAnnotations[0].thickness == 2)
        #expect(texts(data)[0].2 == 63, "⌈50 × 1.25⌉")

        var o = Calc.Options()
        o.useDisplayName = true
        let names = try Calc(options: o).renderData(labels: ["Le chat"], scores: nil)
        #expect(texts(names).map(\.0) == ["Le chat"])
    }

    @Test func bottomLeftUsesTheVideoHeight() throws {
        var o = Calc.Options()
        o.location = .bottomLeft
        o.fontHeightPx = 20
        o.maxNumLabels = 2
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: ["LABELS:l", "VIDEO_PRESTREAM:v"], outputs: ["RENDER_DATA:r"])
        runner.add(VideoHeader(width: 640, height: 480), tag: "VIDEO_PRESTREAM", at: .preStream)
        runner.add(["a", "b", "c"], tag: "LABELS", at: 0)
        try runner.run()
        let t = texts(try runner.outputs("RENDER_DATA")[0].get(RenderData.self))
        #expect(t.map(\.2) == [455, 480], "the last line on the bottom edge")
        let noHeader = try CalculatorRunner(Calc.self, options: o, inputs: ["LABELS:l"], outputs: ["RENDER_DATA:r"])
        noHeader.add(["a"], tag: "LABELS", at: 0)
        let e = #expect(throws: (any Error).self) { try noHeader.run() }
        #expect("\(String(describing: e))".contains("VIDEO_PRESTREAM"))
    }

    @Test func graphFileOptionsAndBadOptions() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "LabelsToRenderDataCalculator" input_stream: "LABELS:l" output_stream: "RENDER_DATA:r"
                options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
                  color { r: 0 g: 255 b: 0 } color { b: 255 } max_num_labels: 2 outline_thickness: 1.5 location: TOP_LEFT } }
                """, registry: .standard)
        runner.add(["x", "y"], tag: "LABELS", at: 0)
        try runner.run()
        let a = try runner.outputs("RENDER_DATA")[0].get(RenderData.self).renderAnnotations
        #expect(a.map(\.color) == [RenderColor(r: 0, g: 255, b: 0), RenderColor(r: 0, g: 0, b: 255)])
        if case .text(_, _, _, _, _, let style) = a[0].shape {
            #expect(style.outlineThickness == 1.5 && style.outlineColor == RenderColor())
        } else {
            Issue.record("not text")
        }
        var bad = Calc.Options()
        bad.maxNumLabels = -1
        let e = #expect(throws: GraphError.self) { try bad.validate() }
        #expect(e?.message.contains("max_num_labels") == true)
    }

    /// Values that overflowed the baseline arithmetic (a trap) or draw for minutes are refused
    /// when the graph is built.
    @Test(arguments: [
        ("font_height_px: 2147483647", "font_height_px"), ("vertical_offset_px: 9223372036854775807", "vertical_offset_px"),
        ("horizontal_offset_px: -100001", "horizontal_offset_px"), ("thickness: 1e308", "thickness"),
        ("outline_thickness: 1001", "outline_thickness"), ("max_num_labels: 1000001", "max_num_labels"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "LabelsToRenderDataCalculator" input_stream: "LABELS:l" output_stream: "RENDER_DATA:r"
            options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    /// The edges of the ranges run: several labels at the largest font and offsets.
    @Test func edgesOfTheRangesRun() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "LabelsToRenderDataCalculator" input_stream: "LABELS:l" output_stream: "RENDER_DATA:r"
                options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
                  font_height_px: 1000 vertical_offset_px: 100000 horizontal_offset_px: -100000 max_num_labels: 1000000
                  thickness: 1000 outline_thickness: 1000 } }
                """, registry: .standard)
        runner.add(["a", "b", "c"], tag: "LABELS", at: 0)
        try runner.run()
        let t = texts(try runner.outputs("RENDER_DATA")[0].get(RenderData.self))
        #expect(t.map(\.2) == [101_250, 102_500, 103_750] && t.allSatisfy { $0.1 == -100_000 }, "\(t)")
    }
}
