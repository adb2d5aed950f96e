import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// LandmarksToRenderDataCalculator: lines and points against the options, visibility and
/// presence, depth colours and sizes against MediaPipe's remap written here, pixel landmarks,
/// the render scale, options in text and binary, refused nodes and options, and the overlay
/// drawing what it emits.
@Suite struct LandmarksToRenderDataCalculatorTests {
    typealias C = LandmarksToRenderDataCalculator
    static let ext = "[mediapipe.LandmarksToRenderDataCalculatorOptions.ext]"

    func runner(_ options: String, tag: String = "NORM_LANDMARKS", scale: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "LandmarksToRenderDataCalculator"
                name: "draw_landmarks"
                input_stream: "\(tag):landmarks"
                \(scale ? "input_stream: \"RENDER_SCALE:scale\"" : "")
                output_stream: "RENDER_DATA:render_data"
                options { \(Self.ext) { \(options) } }
                """, registry: .standard)
    }

    /// The annotations for `list` on `tag`, one packet expected.
    func render(_ list: any Sendable, options: String, tag: String = "NORM_LANDMARKS", scale: Float? = nil) throws -> [RenderAnnotation] {
        let r = try runner(options, tag: tag, scale: scale != nil)
        r.add(list, tag: tag, at: 3)
        if let scale { r.add(scale, tag: "RENDER_SCALE", at: 3) }
        try r.run()
        let out = try values(r.outputs("RENDER_DATA"), as: RenderData.self)
        #expect(out.map(\.0) == [3])
        return out.first?.1.renderAnnotations ?? []
    }

    let red = RenderColor(r: 255, g: 0, b: 0), green = RenderColor(r: 0, g: 255, b: 0)
    let flat = """
        landmark_connections: [0, 1, 1, 2, 2, 5]
        landmark_color { r: 255 } connection_color { g: 255 } thickness: 2.5 visualize_landmark_depth: false
        """
    let triangle = NormalizedLandmarkList([
        NormalizedLandmark(x: 0.25, y: 0.5, z: 0), NormalizedLandmark(x: 0.5, y: 0.25, z: 0.5), NormalizedLandmark(x: 0.75, y: 0.5, z: 1),
    ])

    func line(_ a: NormalizedLandmark, _ b: NormalizedLandmark, normalized: Bool = true) -> RenderAnnotation.Shape {
        .line(xStart: a.x, yStart: a.y, xEnd: b.x, yEnd: b.y, normalized: normalized)
    }

    /// Lines in the connection colour (a pair past the list's end skipped), then points in the
    /// landmark colour, all of the options' thickness times the render scale.
    @Test func flatLinesAndPoints() throws {
        let got = try render(triangle, options: flat, scale: 2)
        let p = triangle.landmark
        let expected =
            [RenderAnnotation(line(p[0], p[1]), thickness: 5, color: green), RenderAnnotation(line(p[1], p[2]), thickness: 5, color: green)]
            + p.map { RenderAnnotation(.point(x: $0.x, y: $0.y, normalized: true), thickness: 5, color: red, sceneTag: "KEYPOINT") }
        #expect(got == expected)
        let noPoints = try render(triangle, options: flat + " render_landmarks: false")
        #expect(noPoints.count == 2 && noPoints.allSatisfy { $0.sceneTag == nil && $0.thickness == 2.5 })
    }

    /// Pixel landmarks give pixel annotations.
    @Test func pixelLandmarks() throws {
        let list = LandmarkList([Landmark(x: 10, y: 20, z: 3), Landmark(x: 30, y: 5, z: 3)])
        let got = try render(list, options: "landmark_connections: [1, 0]", tag: "LANDMARKS")
        #expect(
            got == [
                RenderAnnotation(.line(xStart: 30, yStart: 5, xEnd: 10, yEnd: 20, normalized: false), thickness: 1, color: RenderColor()),
                RenderAnnotation(.point(x: 10, y: 20, normalized: false), thickness: 1, color: RenderColor(), sceneTag: "KEYPOINT"),
                RenderAnnotation(.point(x: 30, y: 5, normalized: false), thickness: 1, color: RenderColor(), sceneTag: "KEYPOINT"),
            ], "z does not vary: no depth even though visualize_landmark_depth is on by default")
    }

    /// A landmark whose visibility (or presence) is set and below the threshold is hidden with
    /// its connections; unset values and values at the threshold are shown; without
    /// `utilize_*` nothing is hidden.
    @Test func visibilityAndPresence() throws {
        var p = triangle.landmark
        p[0].visibility = 0.5  // at the threshold: shown
        p[1].visibility = 0.49
        p[2].presence = 0.1
        let list = NormalizedLandmarkList(p)
        let base = "landmark_connections: [0, 1, 0, 2] visualize_landmark_depth: false "
        let vis = try render(list, options: base + "utilize_visibility: true visibility_threshold: 0.5")
        #expect(vis.count == 3 && vis[0].shape == line(p[0], p[2]) && vis.filter { $0.sceneTag == "KEYPOINT" }.count == 2)
        let both = try render(
            list, options: base + "utilize_visibility: true visibility_threshold: 0.5 utilize_presence: true presence_threshold: 0.2")
        #expect(both.map(\.shape) == [.point(x: p[0].x, y: p[0].y, normalized: true)])
        #expect(try render(list, options: base).count == 5)
    }

    /// MediaPipe's depth arithmetic, written out in double precision: w = (z − min) /
    /// (max − min + 1e-6); gray 255 − ⌊255 w⌋; size ⌊lo + (1 − w)(hi − lo)⌋; line colours
    /// ⌊near · w + far · (1 − w)⌋ per channel.
    @Test func depth() throws {
        let near = RenderColor(r: 10, g: 200, b: 0), far = RenderColor(r: 250, g: 0, b: 100)
        let options = """
            landmark_connections: [0, 1, 1, 2] thickness: 3 min_depth_circle_thickness: 2 max_depth_circle_thickness: 12
            min_depth_line_color { r: 10 g: 200 } max_depth_line_color { r: 250 b: 100 }
            """
        let got = try render(triangle, options: options, scale: 2)
        let z = triangle.landmark.map(\.z), zmin = z.min()!, zmax = z.max()!
        func w(_ z: Double) -> Double { (z - zmin) / (zmax - zmin + 1e-6) }
        func mix(_ w: Double) -> RenderColor {
            func c(_ a: Int, _ b: Int) -> Int { Int(Double(a) * w + Double(b) * (1 - w)) }
            return RenderColor(r: c(near.r, far.r), g: c(near.g, far.g), b: c(near.b, far.b))
        }
        let p = triangle.landmark
        var expected: [RenderAnnotation] = [(0, 1), (1, 2)].map { i, j in
            RenderAnnotation(
                .gradientLine(
                    xStart: p[i].x, yStart: p[i].y, xEnd: p[j].x, yEnd: p[j].y, normalized: true, color1: mix(w(z[i])), color2: mix(w(z[j]))),
                thickness: 6, color: RenderColor())
        }
        for q in p {
            let gray = 255 - Int(255 * w(q.z))
            expected.append(
                RenderAnnotation(
                    .point(x: q.x, y: q.y, normalized: true), thickness: Double(Int(2 + (1 - w(q.z)) * 10)),
                    color: RenderColor(r: gray, g: gray, b: gray), sceneTag: "KEYPOINT"))
        }
        #expect(got == expected)
        // Spot values: the nearest point is white and largest, the farthest dark and smallest.
        #expect(got[2].color == RenderColor(r: 255, g: 255, b: 255) && got[2].thickness == 12)
        #expect(got[4].color == RenderColor(r: 1, g: 1, b: 1) && got[4].thickness == 2)
        // Default line colours: black near, white far.
        let plain = try render(triangle, options: "landmark_connections: [0, 2]")
        #expect(
            plain[0].shape
                == .gradientLine(
                    xStart: 0.25, yStart: 0.5, xEnd: 0.75, yEnd: 0.5, normalized: true, color1: RenderColor(r: 255, g: 255, b: 255),
                    color2: RenderColor(r: 0, g: 0, b: 0)))
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "LandmarksToRenderDataCalculator", ports: (["NORM_LANDMARKS:l"], ["RENDER_DATA:r"]), ext: 258435389, as: C.Options.self
        ) { w in
            var packed = ProtobufWire()
            for v in [0, 1, 1, 2] as [UInt64] { packed.varint(v) }
            w.data(1, packed.bytes)
            w.message(2) { c in c.int(1, 255) }
            w.message(3) { c in c.int(2, 128) }
            w.double(4, 4)
            w.int(5, 0)
            w.int(6, 1)
            w.double(7, 0.5)
            w.int(8, 1)
            w.double(9, 0.25)
            w.double(10, 1)
            w.double(11, 9)
            w.message(12) { c in c.int(3, 7) }
            w.message(13) { c in c.int(1, 9) }
            w.int(14, 0)
        }
        var e = C.Options()
        e.landmarkConnections = [0, 1, 1, 2]
        e.landmarkColor = RenderColor(r: 255, g: 0, b: 0)
        e.connectionColor = RenderColor(r: 0, g: 128, b: 0)
        e.thickness = 4
        e.visualizeLandmarkDepth = false
        e.utilizeVisibility = true
        e.visibilityThreshold = 0.5
        e.utilizePresence = true
        e.presenceThreshold = 0.25
        e.minDepthCircleThickness = 1
        e.maxDepthCircleThickness = 9
        e.minDepthLineColor = RenderColor(r: 0, g: 0, b: 7)
        e.maxDepthLineColor = RenderColor(r: 9, g: 0, b: 0)
        e.renderLandmarks = false
        #expect(o == e)
    }

    @Test(arguments: [
        ("landmark_connections: [0, 1, 2]", "pairs"),
        ("landmark_connections: [0, -1]", "-1"),
        ("connection_color { r: 300 }", "connection_color"),
        ("thickness: -1", "thickness"),
    ])
    func badOptionsNameTheNode(options: String, needle: String) throws {
        let text = thrownDescription { try runner(options).run() }
        #expect(text?.contains("draw_landmarks") == true && text?.contains(needle) == true, "\(text ?? "")")
    }

    @Test func badNodesAndMissingScale() throws {
        for body in ["", "input_stream: \"LANDMARKS:a\"\ninput_stream: \"NORM_LANDMARKS:b\""] {
            let text = thrownDescription {
                try CalculatorRunner(
                    node: "calculator: \"LandmarksToRenderDataCalculator\"\nname: \"draw_landmarks\"\n\(body)\noutput_stream: \"RENDER_DATA:r\"",
                    registry: .standard
                ).run()
            }
            #expect(text?.contains("draw_landmarks") == true && text?.contains("NORM_LANDMARKS") == true, "\(text ?? "")")
        }
        let r = try runner("", scale: true)
        r.add(triangle, tag: "NORM_LANDMARKS", at: 1)
        r.add(Float(2), tag: "RENDER_SCALE", at: 2)
        let text = thrownDescription { try r.run() }
        #expect(text?.contains("draw_landmarks") == true && text?.contains("RENDER_SCALE") == true, "\(text ?? "")")
    }

    /// The overlay draws the emitted lines and points: a point's pixel has the landmark colour,
    /// a line's midpoint the connection colour.
    @Test func overlayDrawsIt() throws {
        let list = NormalizedLandmarkList([NormalizedLandmark(x: 0.25, y: 0.5), NormalizedLandmark(x: 0.75, y: 0.5)])
        let data = try render(list, options: "landmark_connections: [0, 1] landmark_color { r: 255 } connection_color { g: 255 } thickness: 2")
        let image = try TestImages.make(width: 40, height: 20, format: .rgb8) { _, _, _ in 0 }
        let drawn = try AnnotationOverlayCalculator.draw(on: image, renderData: [RenderData(data)])
        #expect(Array(drawn[10, 10]) == [255, 0, 0] && Array(drawn[30, 10]) == [255, 0, 0])
        #expect(Array(drawn[20, 10]) == [0, 255, 0])
        #expect(Array(drawn[20, 2]) == [0, 0, 0])
    }

    /// Thicknesses beyond what `AnnotationOverlayCalculator` draws in time are refused when the
    /// graph is built.
    @Test(arguments: [
        ("thickness: 1e308", "thickness"), ("min_depth_circle_thickness: 1001", "min_depth_circle_thickness"),
        ("max_depth_circle_thickness: 2147483647", "max_depth_circle_thickness"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "LandmarksToRenderDataCalculator" input_stream: "NORM_LANDMARKS:l" output_stream: "RENDER_DATA:r"
            options { [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
