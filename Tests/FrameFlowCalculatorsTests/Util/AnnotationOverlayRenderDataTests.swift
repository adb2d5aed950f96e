import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// `RenderData` drawing against OpenCV, the library MediaPipe's renderer
/// (mediapipe/util/annotation_renderer.cc) draws with: fixtures from
/// scripts/fixtures/make_annotation_fixtures.py (48 × 40, 255 where OpenCV drew).
@Suite struct AnnotationOverlayRenderDataTests {
    let white = RenderColor(r: 255, g: 255, b: 255)

    func black(_ w: Int = 48, _ h: Int = 40, format: PixelFormat = .rgb8) throws -> ImageFrame {
        try TestImages.make(width: w, height: h, format: format) { _, _, c in format == .rgba8 && c == 3 ? 255 : 0 }
    }

    /// Where `image` is not black, as 0/1 rows.
    func coverage(_ image: ImageFrame) -> [[Int]] {
        (0..<image.height).map { y in
            (0..<image.width).map { x in image[x, y][0] != 0 || image[x, y][1] != 0 || image[x, y][2] != 0 ? 1 : 0 }
        }
    }

    func reference(_ name: String) throws -> [[Int]] {
        let pgm = try TestImages.readPNM(RepositoryFiles.fixture("image/" + name))
        return (0..<pgm.height).map { y in (0..<pgm.width).map { x in pgm[x, y][0] > 127 ? 1 : 0 } }
    }

    func draw(_ annotations: [RenderAnnotation]) throws -> [[Int]] {
        coverage(try AnnotationOverlayCalculator.draw(on: try black(), renderData: [RenderData(annotations)]))
    }

    func mismatches(_ a: [[Int]], _ b: [[Int]]) -> [(x: Int, y: Int)] {
        var out: [(x: Int, y: Int)] = []
        for y in a.indices { for x in a[y].indices where a[y][x] != b[y][x] { out.append((x, y)) } }
        return out
    }

    @Test func rectanglesMatchOpenCVExactly() throws {
        for t in [1, 3] {
            let rect = RenderAnnotation(
                .rectangle(left: 6, top: 5, right: 36, bottom: 27, normalized: false), thickness: Double(t), color: white)
            let d = mismatches(try draw([rect]), try reference("annotation_rect_t\(t).pgm"))
            #expect(d.isEmpty, "thickness \(t): \(d.count) pixels differ, first \(d.prefix(5))")
        }
        // Normalized: 0.125 × 48 = 6, 0.125 × 40 = 5, 0.75 × 48 = 36, 0.675 × 40 = 27.
        let normalized = RenderAnnotation(.rectangle(left: 0.125, top: 0.125, right: 0.75, bottom: 0.675, normalized: true), color: white)
        #expect(
            mismatches(try draw([normalized]), try reference("annotation_rect_t1.pgm")).isEmpty,
            "normalized boxes are scaled by the image size")
        // Pixel coordinates are truncated, as MediaPipe casts them.
        let fractional = RenderAnnotation(.rectangle(left: 6.9, top: 5.2, right: 36.99, bottom: 27.5, normalized: false), color: white)
        #expect(mismatches(try draw([fractional]), try reference("annotation_rect_t1.pgm")).isEmpty)
    }

    @Test func pointIsOpenCVsFilledCircle() throws {
        let p = RenderAnnotation(.point(x: 20, y: 18, normalized: false), thickness: 7, color: white)
        let d = mismatches(try draw([p]), try reference("annotation_disc_r7.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
        // Normalized: (20/48, 18/40).
        let n = RenderAnnotation(.point(x: 20.0 / 48, y: 0.45, normalized: true), thickness: 7, color: white)
        #expect(mismatches(try draw([n]), try reference("annotation_disc_r7.pgm")).isEmpty)
    }

    @Test func thinLinesMatchOpenCVExactly() throws {
        let lines = [
            RenderAnnotation(.line(xStart: 3, yStart: 30, xEnd: 44, yEnd: 7, normalized: false), color: white),
            RenderAnnotation(.line(xStart: 40, yStart: 2, xEnd: 30, yEnd: 37, normalized: false), color: white),
        ]
        let d = mismatches(try draw(lines), try reference("annotation_lines_t1.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
    }

    @Test func linesLeavingTheImageAreClippedAsOpenCVClipsThem() throws {
        let ends: [(Double, Double, Double, Double)] = [(-30, 50, 70, -20), (10, -45, 95, 60), (60, 5, -9, 33)]
        let lines = ends.map {
            RenderAnnotation(.line(xStart: $0.0, yStart: $0.1, xEnd: $0.2, yEnd: $0.3, normalized: false), color: white)
        }
        let d = mismatches(try draw(lines), try reference("annotation_lines_clipped.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
        // Far-off and non-finite coordinates neither trap nor walk billions of pixels.
        let wild = [
            RenderAnnotation(.line(xStart: -1e12, yStart: 5, xEnd: 1e12, yEnd: 5, normalized: false), color: white),
            RenderAnnotation(.point(x: .nan, y: 3, normalized: true), color: white),
            RenderAnnotation(
                .gradientLine(xStart: 0, yStart: 0, xEnd: 3e9, yEnd: 2e9, normalized: false, color1: white, color2: white), color: white),
        ]
        let drawn = try draw(wild)
        #expect(drawn[5].allSatisfy { $0 == 1 }, "the whole row 5")
    }

    @Test func thickLineMatchesOpenCVUpToEdgePixels() throws {
        let line = RenderAnnotation(.line(xStart: 3, yStart: 30, xEnd: 44, yEnd: 7, normalized: false), thickness: 4, color: white)
        let ours = try draw([line]), ref = try reference("annotation_line_t4.pgm")
        // OpenCV fills a fixed-point polygon for the sides: a few edge pixels may differ,
        // never more than 8 % of the line, and each next to a pixel of the other kind.
        expectEdgeDifferences(ours, ref, atMost: 0.08)
    }

    /// Checks that `ours` differs from `ref` in at most `fraction` of `ref`'s pixels, each
    /// on an edge of the reference shape.
    func expectEdgeDifferences(
        _ ours: [[Int]], _ ref: [[Int]], atMost fraction: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let d = mismatches(ours, ref)
        let refCount = ref.joined().reduce(0, +)
        #expect(Double(d.count) <= fraction * Double(refCount), "\(d.count) of \(refCount) differ", sourceLocation: sourceLocation)
        for p in d {
            let v = ref[p.y][p.x]
            let neighbours = [(-1, 0), (1, 0), (0, -1), (0, 1)].compactMap { o -> Int? in
                let x = p.x + o.0, y = p.y + o.1
                return ref.indices.contains(y) && ref[y].indices.contains(x) ? ref[y][x] : nil
            }
            #expect(neighbours.contains(1 - v), "(\(p.x), \(p.y)) is not on the shape's edge", sourceLocation: sourceLocation)
        }
    }

    @Test func ovalsFollowOpenCVsEllipse() throws {
        func oval(filled: Bool) -> RenderAnnotation {
            RenderAnnotation(
                .oval(left: 12, top: 12, right: 36, bottom: 28, normalized: false, filled: filled, rotation: Double.pi / 6), thickness: 1,
                color: white)
        }
        let outline = mismatches(try draw([oval(filled: false)]), try reference("annotation_oval_t1.pgm"))
        #expect(outline.isEmpty, "\(outline.count) pixels differ, first \(outline.prefix(5))")
        expectEdgeDifferences(try draw([oval(filled: true)]), try reference("annotation_oval_filled.pgm"), atMost: 0.04)
    }

    @Test func rotatedRectangleIsLinesBetweenRotatedCorners() throws {
        let r = RenderAnnotation(.rectangle(left: 10, top: 8, right: 38, bottom: 30, normalized: false, rotation: 0.5), color: white)
        let d = mismatches(try draw([r]), try reference("annotation_rotated_rect.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
    }

    @Test func filledShapesOvalsAndTopLeftDot() throws {
        let filled = try draw([
            RenderAnnotation(.rectangle(left: 2, top: 3, right: 6, bottom: 5, normalized: false, filled: true), color: white)
        ])
        #expect(
            filled.joined().reduce(0, +) == 8 && filled[3][2] == 1 && filled[4][5] == 1 && filled[5][5] == 0, "left…right−1 × top…bottom−1")
        let oval = try draw([RenderAnnotation(.oval(left: 4, top: 4, right: 44, bottom: 36, normalized: false), thickness: 1, color: white)]
        )
        #expect(
            oval[20][24] == 0 && oval[20][4] == 1 && oval[20][44] == 1 && oval[4][24] == 1 && oval[36][24] == 1,
            "outline through the box's edge midpoints")
        let disc = try draw([RenderAnnotation(.oval(left: 4, top: 4, right: 44, bottom: 36, normalized: false, filled: true), color: white)]
        )
        #expect(disc[20][24] == 1 && disc[5][5] == 0 && disc[20][4] == 1)
        let dot = try draw([
            RenderAnnotation(.rectangle(left: 10, top: 10, right: 30, bottom: 30, normalized: false, topLeftThickness: 3), color: white)
        ])
        #expect(dot[12][12] == 1 && dot[13][13] == 0 && dot[20][20] == 0, "a radius-3 disc on the top-left corner")
    }

    @Test func textPlacementSizeCentringAndFlip() throws {
        func rows(_ style: RenderAnnotation.TextStyle = .init(), flip: Bool = false, left: Double = 5) throws -> (
            ys: ClosedRange<Int>, xs: ClosedRange<Int>
        )? {
            var o = AnnotationOverlayCalculator.Options()
            o.flipTextVertically = flip
            let t = RenderAnnotation(
                .text("HI", left: left, baseline: 20, fontHeight: 15, normalized: false, style: style), thickness: 1, color: white)
            let c = coverage(try AnnotationOverlayCalculator.draw(on: try black(), renderData: [RenderData([t])], options: o))
            let ys = c.indices.filter { c[$0].contains(1) }, xs = (0..<48).filter { x in c.contains { $0[x] == 1 } }
            guard let y0 = ys.first, let y1 = ys.last, let x0 = xs.first, let x1 = xs.last else { return nil }
            return (y0...y1, x0...x1)
        }
        // Capitals (15 − 1) px ≈ 7 rows × 2: the glyphs stand on the baseline from x = 5.
        let plain = try #require(try rows())
        #expect(plain.ys == 6...19 && plain.xs.lowerBound == 5)
        // "HI" is 22 px wide at scale 2 (5 columns, a gap, 5 columns); the I's ink ends a
        // column (2 px) short of its cell.
        #expect(plain.xs == 5...24)
        let centred = try #require(try rows(.init(centerHorizontally: true, centerVertically: true), left: 24))
        #expect(centred.xs == 13...32, "moved left by half the 22 px text width")
        #expect(centred.ys == 13...26, "moved down by half the text height")
        let flipped = try #require(try rows(flip: true))
        #expect(flipped.ys == 20...33, "upside down below the baseline")
        let outlined = try #require(try rows(.init(outlineThickness: 1, outlineColor: RenderColor(r: 0, g: 0, b: 9))))
        #expect(outlined.ys == 5...20, "the outline widens the glyphs by 1 px")
    }

    @Test func renderDataJSONNestsAsMediaPipesProto() throws {
        let filled = RenderAnnotation(
            .rectangle(left: 1, top: 2, right: 3, bottom: 4, normalized: false, filled: true, fillColor: RenderColor(r: 9, g: 8, b: 7)),
            sceneTag: "BOX")
        let data = try JSONEncoder().encode(RenderData([filled], sceneClass: "S"))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""filled_rectangle":{"#) && text.contains(#""fill_color":{"#) && text.contains(#""scene_tag":"BOX""#))
        #expect(try JSONDecoder().decode(RenderData.self, from: data) == RenderData([filled], sceneClass: "S"))
        // Fields the JSON leaves out take the proto's defaults (font height 8, not normalized).
        let sparse = try JSONDecoder().decode(RenderAnnotation.self, from: Data(#"{"text":{"display_text":"a"}}"#.utf8))
        #expect(sparse.shape == .text("a", left: 0, baseline: 0, fontHeight: 8, normalized: false) && sparse.thickness == 1)
        let oval = try JSONDecoder().decode(
            RenderAnnotation.self, from: Data(#"{"filled_oval":{"oval":{"rectangle":{"left":1,"right":5,"rotation":0.5}}}}"#.utf8))
        #expect(oval.shape == .oval(left: 1, top: 0, right: 5, bottom: 0, normalized: false, filled: true, rotation: 0.5))
    }

    @Test func roundedRectangles() throws {
        func rounded(lineType: Int, filled: Bool = false) -> RenderAnnotation {
            RenderAnnotation(
                .roundedRectangle(
                    left: 4, top: 3, right: 43, bottom: 36, normalized: false, cornerRadius: 8, lineType: lineType, filled: filled),
                color: white)
        }
        let d = mismatches(try draw([rounded(lineType: 8)]), try reference("annotation_rounded_l8.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
        // OpenCV's 4-connected arcs are not quite its 8-connected ones: edge pixels only.
        expectEdgeDifferences(try draw([rounded(lineType: 4)]), try reference("annotation_rounded_l4.pgm"), atMost: 0.08)
        let filled = try draw([rounded(lineType: 4, filled: true)])
        #expect(filled[20][24] == 1 && filled[3][12] == 1 && filled[4][5] == 0 && filled[36][43] == 0, "inside filled, corners cut")
        let json = try JSONEncoder().encode(RenderData([rounded(lineType: 4, filled: true), rounded(lineType: 16)]))
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""filled_rounded_rectangle""#) && text.contains(#""corner_radius":8"#) && text.contains(#""line_type":16"#))
        #expect(
            try JSONDecoder().decode(RenderData.self, from: json)
                == RenderData([rounded(lineType: 4, filled: true), rounded(lineType: 16)]))
    }

    @Test func arrowAndScribble() throws {
        let arrow = RenderAnnotation(.arrow(xStart: 6, yStart: 30, xEnd: 40, yEnd: 10, normalized: false), color: white)
        let d = mismatches(try draw([arrow]), try reference("annotation_arrow.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
        let scribble = RenderAnnotation(
            .scribble([.init(x: 20, y: 18, normalized: false), .init(x: 0.75, y: 0.25, normalized: true)]), thickness: 7, color: white)
        let drawn = try draw([scribble])
        #expect(drawn[18][27] == 1 && drawn[18][28] == 0, "a radius-7 disc at (20, 18)")
        #expect(drawn[10][43] == 1 && drawn[10][44] == 0, "and one at (0.75 × 48, 0.25 × 40)")
        let json = try JSONEncoder().encode(RenderData([arrow, scribble]))
        #expect(try JSONDecoder().decode(RenderData.self, from: json) == RenderData([arrow, scribble]))
    }

    @Test func gradientLinesWalkOpenCVsFourConnectedLine() throws {
        let lines = [(2.0, 3.0, 45.0, 20.0), (5, 38, 30, 1)].map {
            RenderAnnotation(
                .gradientLine(xStart: $0.0, yStart: $0.1, xEnd: $0.2, yEnd: $0.3, normalized: false, color1: white, color2: white))
        }
        let d = mismatches(try draw(lines), try reference("annotation_lines4.pgm"))
        #expect(d.isEmpty, "\(d.count) pixels differ, first \(d.prefix(5))")
    }

    @Test func gradientLineBlendsFromStartToEnd() throws {
        let g = RenderAnnotation(
            .gradientLine(
                xStart: 0, yStart: 0, xEnd: 9, yEnd: 0, normalized: false, color1: RenderColor(r: 200, g: 0, b: 0),
                color2: RenderColor(r: 0, g: 0, b: 200)),
            thickness: 1, color: white)
        let out = try AnnotationOverlayCalculator.draw(on: try black(), renderData: [RenderData([g])])
        #expect(out[0, 0] == [200, 0, 0] && out[5, 0] == [100, 0, 100] && out[9, 0] == [20, 0, 180] && out[10, 0] == [0, 0, 0])
    }

    @Test func overlayTakesUntaggedAndVectorRenderDataInBGRA() throws {
        let runner = try CalculatorRunner(
            AnnotationOverlayCalculator.self, inputs: ["IMAGE:video", "a", "b", "VECTOR:v"], outputs: ["IMAGE:out"])
        let red = RenderData([
            RenderAnnotation(.point(x: 0.25, y: 0.25, normalized: true), thickness: 1, color: RenderColor(r: 255, g: 0, b: 0))
        ])
        let green = RenderData([
            RenderAnnotation(.point(x: 30, y: 30, normalized: false), thickness: 1, color: RenderColor(r: 0, g: 255, b: 0))
        ])
        let blue = RenderData([
            RenderAnnotation(.line(xStart: 40, yStart: 5, xEnd: 46, yEnd: 5, normalized: false), color: RenderColor(r: 0, g: 0, b: 255))
        ])
        runner.add(try black(format: .bgra8), tag: "IMAGE", at: 0)
        runner.add(red, at: 0)
        runner.add(green, index: 1, at: 0)
        runner.add([blue], tag: "VECTOR", at: 0)
        runner.add(red, at: 1)  // no image at 1: nothing drawn
        try runner.run()
        let outs = try runner.outputs("IMAGE").map { try $0.get(ImageFrame.self) }
        #expect(outs.count == 1)
        #expect(outs[0][12, 10] == [0, 0, 255, 0], "red at (0.25 × 48, 0.25 × 40), BGRA order")
        #expect(outs[0][30, 30] == [0, 255, 0, 0] && outs[0][43, 5] == [255, 0, 0, 0])
    }

    @Test func canvasWithoutImageAndDetectionsEndToEnd() throws {
        let graph = """
            input_stream: "detections"
            output_stream: "out"
            node { calculator: "DetectionsToRenderDataCalculator" input_stream: "DETECTIONS:detections" output_stream: "RENDER_DATA:rd"
              options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] { color { r: 255 g: 0 b: 0 } } } }
            node { calculator: "AnnotationOverlayCalculator" input_stream: "rd" output_stream: "IMAGE:out"
              options { [mediapipe.AnnotationOverlayCalculatorOptions.ext] { canvas_width_px: 40 canvas_height_px: 20 canvas_color { r: 0 g: 0 b: 50 } } } }
            """
        let g = try Graph(GraphConfig(parsing: graph), registry: .standard)
        let out = try PacketCollector(g, "out")
        try g.start()
        let d = Detection(
            relativeBox: Rect(x: 0.25, y: 0.5, width: 0.5, height: 0.25), score: 1, label: "f", keypoints: [Point(x: 0.5, y: 0.1)])
        _ = try g.send([d], to: "detections", at: 0)
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        let image = try #require(out.packets.first).get(ImageFrame.self)
        #expect(image.width == 40 && image.height == 20 && image.format == .rgb8)
        #expect(image[0, 0] == [0, 0, 50], "canvas colour")
        #expect(image[10, 10] == [255, 0, 0] && image[29, 14] == [255, 0, 0], "the box scaled to 10,10 … 30,15")
        #expect(image[20, 12] == [0, 0, 50], "inside the box")
        #expect(image[20, 2] == [255, 0, 0], "the keypoint")
    }

    @Test func optionsUnderBothNamesAndMissingCanvas() throws {
        func build(_ options: String, image: Bool = true) throws -> Graph {
            try Graph(
                GraphConfig(
                    parsing: """
                        input_stream: "in"
                        node { calculator: "AnnotationOverlayCalculator" \(image ? "input_stream: \"IMAGE:in\"" : "input_stream: \"in\"") output_stream: "IMAGE:out"
                          options { \(options) } }
                        """), registry: .standard)
        }
        _ = try build("[frameflow.AnnotationOverlayCalculatorOptions.ext] { box_color: [255, 64, 64] keep_last_detections: true }")
        _ = try build("[mediapipe.AnnotationOverlayCalculatorOptions.ext] { flip_text_vertically: true canvas_color { r: 1 } }")
        let e = #expect(throws: GraphErrors.self) {
            try build("[mediapipe.AnnotationOverlayCalculatorOptions.ext] { canvas_color { r: 256 } }")
        }
        #expect(e?.description.contains("canvas_color") == true, "\(String(describing: e))")
        let runner = try CalculatorRunner(AnnotationOverlayCalculator.self, inputs: ["rd"], outputs: ["IMAGE:out"])
        runner.add(RenderData(), at: 0)
        let missing = #expect(throws: (any Error).self) { try runner.run() }
        #expect("\(String(describing: missing))".contains("canvas_width_px"))
    }
}
