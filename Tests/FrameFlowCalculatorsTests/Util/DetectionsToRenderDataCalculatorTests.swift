import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Expected values follow mediapipe/calculators/util/detections_to_render_data_calculator.cc
/// and its test (label text "label1,0.3,", feature tag second, box third).
@Suite struct DetectionsToRenderDataCalculatorTests {
    typealias Calc = DetectionsToRenderDataCalculator

    func render(_ detections: [Detection], _ options: Calc.Options = .init()) throws -> [RenderData] {
        let runner = try CalculatorRunner(Calc.self, options: options, inputs: ["DETECTIONS:d"], outputs: ["RENDER_DATA:r"])
        runner.add(detections, tag: "DETECTIONS", at: 0)
        try runner.run()
        return try runner.outputs("RENDER_DATA").map { try $0.get(RenderData.self) }
    }

    @Test func pixelBoxGivesLabelFeatureTagAndPixelRectangle() throws {
        var o = Calc.Options()
        o.color = RenderColor(r: 255, g: 0, b: 0)
        o.thickness = 4
        let d = Detection(pixelBox: .init(xmin: 100, ymin: 200, width: 300, height: 400), score: 0.3, label: "label1")
        let out = try render([d], o)
        #expect(out.count == 1 && out[0].sceneClass == "DETECTION")
        let a = out[0].renderAnnotations
        #expect(a.count == 3)
        // The label: pixel text one line (font_height 8) below the box's top.
        #expect(a[0].shape == .text("label1,0.3,", left: 100, baseline: 208, fontHeight: 8, normalized: false))
        #expect(a[0].sceneTag == "LABEL")
        #expect(a[1].shape == .text("", left: 100, baseline: 600, fontHeight: 8, normalized: false) && a[1].sceneTag == "FEATURE")
        #expect(a[2].shape == .rectangle(left: 100, top: 200, right: 400, bottom: 600, normalized: false) && a[2].sceneTag == "LOCATION")
        for x in a { #expect(x.color == RenderColor(r: 255, g: 0, b: 0) && x.thickness == 4) }
    }

    @Test func relativeBoxIsNormalizedWithAPointPerKeypoint() throws {
        let d = Detection(
            labels: ["face", "smile"], scores: [0.876, 0.5],
            locationData: LocationData(
                format: .relativeBoundingBox, relativeBoundingBox: .init(xmin: 0.25, ymin: 0.125, width: 0.5, height: 0.5),
                relativeKeypoints: [.init(x: 0.375, y: 0.25), .init(x: 0.625, y: 0.5)]))
        let a = try render([d])[0].renderAnnotations
        #expect(a.count == 5)
        // Line height: box height × min(0.1, 1 / (2 labels + 1)) = 0.05, as a float.
        let line = Double(Float(0.05))
        #expect(a[0].shape == .text("face,0.88,smile,0.5,", left: 0.25, baseline: 0.125 + line, fontHeight: line * 0.9, normalized: true))
        #expect(a[1].shape == .text("", left: 0.25, baseline: 0.625, fontHeight: line * 0.9, normalized: true))
        #expect(a[2].shape == .rectangle(left: 0.25, top: 0.125, right: 0.75, bottom: 0.625, normalized: true))
        #expect(a[3].shape == .point(x: 0.375, y: 0.25, normalized: true) && a[3].sceneTag == "KEYPOINT")
        #expect(a[4].shape == .point(x: 0.625, y: 0.5, normalized: true))
    }

    @Test func oneLabelPerLineIdsAndDetectionID() throws {
        var o = Calc.Options()
        o.oneLabelPerLine = true
        o.renderDetectionId = true
        o.textDelimiter = "|"
        var d = Detection(
            labelIDs: [3, 9], scores: [1, 0.254],
            locationData: LocationData(format: .boundingBox, boundingBox: .init(xmin: 10, ymin: 20, width: 30, height: 40)))
        d.detectionID = 7
        let a = try render([d], o)[0].renderAnnotations
        let texts = a.compactMap { if case .text(let s, _, let b, _, _, _) = $0.shape { return (s, b) } else { return nil } }
        #expect(texts.map(\.0) == ["Id: 7", "3|1|", "9|0.25|", ""])
        #expect(texts.map(\.1) == [28, 36, 44, 60], "one font height (8) per line below the top")
    }

    @Test func relativeBoxIsClampedOrDroppedOutsideTheImage() throws {
        let inside = Detection(relativeBox: Rect(x: -0.25, y: 0.875, width: 0.5, height: 0.25), score: 0.5, label: "x")
        let outside = Detection(relativeBox: Rect(x: 1.5, y: 0.25, width: 0.25, height: 0.25), score: 0.5, label: "y")
        let a = try render([inside, outside])[0].renderAnnotations
        // Text starts at the image's left edge; a baseline below the image is pulled up to it.
        let line = Double(Float(0.25 * 0.1))
        #expect(a[0].shape == .text("x,0.5,", left: 0, baseline: 0.875 + line, fontHeight: line * 0.9, normalized: true))
        #expect(a[1].shape == .text("", left: 0, baseline: 1, fontHeight: line * 0.9, normalized: true))
        #expect(a[2].shape == .rectangle(left: 0, top: 0.875, right: 0.25, bottom: 1, normalized: true))
        // Wholly right of the image: the rectangle keeps the proto's defaults.
        #expect(a[5].shape == .rectangle(left: 0, top: 0, right: 0, bottom: 0, normalized: false))
    }

    @Test func emptyInputFollowsProduceEmptyPacket() throws {
        #expect(try render([]).map(\.renderAnnotations.count) == [0])
        var o = Calc.Options()
        o.produceEmptyPacket = false
        #expect(try render([], o).isEmpty)
    }

    @Test func singleDetectionInputAndGraphFileOptions() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "DetectionsToRenderDataCalculator"
                input_stream: "DETECTION:d"
                output_stream: "RENDER_DATA:r"
                options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
                  color { r: 0 g: 128 b: 255 } thickness: 2.5 scene_class: "FACES" text { font_height: 20 center_horizontally: true } } }
                """, registry: .standard)
        runner.add(Detection(pixelBox: .init(xmin: 5, ymin: 6, width: 7, height: 8), score: 0.9, label: "a"), tag: "DETECTION", at: 0)
        try runner.run()
        let data = try runner.outputs("RENDER_DATA")[0].get(RenderData.self)
        #expect(data.sceneClass == "FACES")
        #expect(data.renderAnnotations[0].color == RenderColor(r: 0, g: 128, b: 255) && data.renderAnnotations[0].thickness == 2.5)
        #expect(
            data.renderAnnotations[0].shape
                == .text("a,0.9,", left: 5, baseline: 26, fontHeight: 20, normalized: false, style: .init(centerHorizontally: true)))
    }

    @Test func badOptionsNameTheField() throws {
        var o = Calc.Options()
        o.color = RenderColor(r: 300, g: 0, b: 0)
        let e = #expect(throws: GraphError.self) { try o.validate() }
        #expect(e?.kind == .invalidOption && e?.message.contains("color") == true)
        let text = """
            node { calculator: "DetectionsToRenderDataCalculator" input_stream: "DETECTIONS:d" output_stream: "RENDER_DATA:r"
              options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] { thickness: -1 } } }
            """
        let g = #expect(throws: GraphErrors.self) { try Graph(GraphConfig(parsing: text), registry: .standard) }
        #expect(g?.description.contains("thickness") == true, "\(String(describing: g))")
    }

    @Test func scoresPrintAsMediaPipesFloats() {
        #expect(Calc.formatScore(0.3) == "0.3")
        #expect(Calc.formatScore(0.876) == "0.88")
        #expect(Calc.formatScore(1) == "1")
        #expect(Calc.formatScore(0.125) == "0.13", "rounded half away from zero")
    }

    /// Thicknesses and font heights beyond what `AnnotationOverlayCalculator` draws in time are
    /// refused when the graph is built.
    @Test(arguments: [
        ("thickness: 2147483647", "thickness"), ("thickness: -1", "thickness"), ("text { font_height: 1e308 }", "text.font_height"),
        ("text { outline_thickness: 1001 }", "text.outline_thickness"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "DetectionsToRenderDataCalculator" input_stream: "DETECTIONS:d" output_stream: "RENDER_DATA:r"
            options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
