import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// RoiTrackingCalculator against MediaPipe's own calculator on made-up rects and landmarks
/// (Tests/Fixtures/holistic/calculators.json, scripts/fixtures/make_holistic_calculator_fixtures.py),
/// against each requirement worked out by hand, and with missing inputs and bad options.
@Suite struct RoiTrackingCalculatorTests {
    typealias Calc = RoiTrackingCalculator

    struct Fixtures: Decodable {
        struct Case: Decodable {
            var options: String
            var image_size: [Int]
            var prev_rect: [String: Double]?
            var prev_landmarks: [[Double]]?
            var recrop_rect: [String: Double]?
            var tracking: String?
        }
        var roi_tracking: [Case]
    }

    /// Holistic's hand and face requirements, IoU alone, and all three (as in the fixture script).
    static let optionTexts = [
        "hand": "rect_requirements { rotation_degrees: 40.0 translation: 0.2 scale: 0.4 } landmarks_requirements { recrop_rect_margin: -0.1 }",
        "face": "rect_requirements { rotation_degrees: 15.0 translation: 0.1 scale: 0.3 } landmarks_requirements { recrop_rect_margin: -0.2 }",
        "iou": "iou_requirements { min_iou: 0.5 }",
        "all":
            "iou_requirements { min_iou: 0.3 } rect_requirements { rotation_degrees: 20.0 translation: 0.15 scale: 0.2 } "
            + "landmarks_requirements { recrop_rect_margin: 0.1 }",
    ]

    static func rect(_ d: [String: Double]) -> NormalizedRect {
        NormalizedRect(xCenter: d["x_center"]!, yCenter: d["y_center"]!, width: d["width"]!, height: d["height"]!, rotation: d["rotation"]!)
    }

    /// Runs one node with `options` (text) on one timestamp; nil inputs are left out.
    func run(
        _ options: String, size: ImageSize, prevLandmarks: NormalizedLandmarkList?, prevRect: NormalizedRect?, recrop: NormalizedRect?
    ) throws -> [NormalizedRect] {
        let runner = try CalculatorRunner(
            node: """
                calculator: "RoiTrackingCalculator"
                input_stream: "PREV_LANDMARKS:l" input_stream: "PREV_LANDMARKS_RECT:p" input_stream: "RECROP_RECT:r"
                input_stream: "IMAGE_SIZE:s" output_stream: "TRACKING_RECT:t"
                options { [mediapipe.RoiTrackingCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        if let prevLandmarks { runner.add(prevLandmarks, tag: "PREV_LANDMARKS", at: 0) }
        if let prevRect { runner.add(prevRect, tag: "PREV_LANDMARKS_RECT", at: 0) }
        if let recrop { runner.add(recrop, tag: "RECROP_RECT", at: 0) }
        runner.add(size, tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        return try runner.outputs("TRACKING_RECT").map { try $0.get(NormalizedRect.self) }
    }

    @Test func matchesMediaPipe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("holistic/calculators.json")))
        let cases = try JSONDecoder().decode(Fixtures.self, from: data).roi_tracking
        try #require(cases.count >= 40)
        var kept = 0, replaced = 0
        for (i, c) in cases.enumerated() {
            let landmarks = c.prev_landmarks.map { NormalizedLandmarkList($0.map { NormalizedLandmark(x: $0[0], y: $0[1], z: $0[2]) }) }
            let prev = c.prev_rect.map(Self.rect), recrop = c.recrop_rect.map(Self.rect)
            let got = try run(
                try #require(Self.optionTexts[c.options]), size: ImageSize(width: c.image_size[0], height: c.image_size[1]),
                prevLandmarks: landmarks, prevRect: prev, recrop: recrop)
            switch c.tracking {
            case nil: #expect(got.isEmpty, "case \(i): \(got)")
            case "prev"?:
                kept += 1
                #expect(got == [prev!], "case \(i) (\(c.options)): MediaPipe kept the previous rect")
            default:
                replaced += 1
                #expect(got == [recrop!], "case \(i) (\(c.options)): MediaPipe took the re-crop rect")
            }
        }
        // Both outcomes are exercised.
        #expect(kept >= 10 && replaced >= 10, "\(kept) kept, \(replaced) replaced")
    }

    static let size = ImageSize(width: 200, height: 100)
    static let recrop = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4)
    static let inside = NormalizedLandmarkList([NormalizedLandmark(x: 0.5, y: 0.5)])

    func keeps(_ options: String, prev: NormalizedRect, landmarks: NormalizedLandmarkList = Self.inside, recrop: NormalizedRect = Self.recrop)
        throws -> Bool
    {
        let got = try run(options, size: Self.size, prevLandmarks: landmarks, prevRect: prev, recrop: recrop)
        try #require(got.count == 1)
        return got[0] == prev
    }

    /// The re-crop rect is 40 × 40 px at (100, 50). Translation 0.1 allows 4 px along each
    /// axis, scale 0.1 allows 4 px of width and height, rotation 10° allows 10°.
    @Test func rectRequirementsByHand() throws {
        let o = "rect_requirements { rotation_degrees: 10 translation: 0.1 scale: 0.1 }"
        var p = Self.recrop
        p.xCenter += 3.9 / 200
        #expect(try keeps(o, prev: p))
        p.xCenter += 0.2 / 200
        #expect(try !keeps(o, prev: p))
        p = Self.recrop
        p.height += 5.0 / 100
        #expect(try !keeps(o, prev: p))
        p = Self.recrop
        p.rotation = 9.5 * .pi / 180
        #expect(try keeps(o, prev: p))
        p.rotation = 10.5 * .pi / 180
        #expect(try !keeps(o, prev: p))
        // 175° and −175° are 10° apart, not 350°.
        var q = Self.recrop
        q.rotation = 175 * .pi / 180
        p.rotation = -176 * .pi / 180
        #expect(try keeps(o, prev: p, recrop: q))
        // Translation is measured along the re-crop rect's axes: on an 80 × 40 px rect a shift
        // of 6 px along the image's x is within 0.1 × 80 px; turned by 90°, it runs along the
        // rect's height, over 0.1 × 40 px.
        q = Self.recrop
        q.width = 0.4
        p = q
        p.xCenter += 6.0 / 200
        #expect(try keeps(o, prev: p, recrop: q))
        q.rotation = .pi / 2
        p.rotation = .pi / 2
        #expect(try !keeps(o, prev: p, recrop: q))
    }

    /// Landmarks must lie strictly inside the re-crop rect grown by 1 + margin.
    @Test func landmarksRequirementsByHand() throws {
        let o = "landmarks_requirements { recrop_rect_margin: -0.5 }"
        // A previous rect far from the re-crop rect: only the landmarks decide.
        var p = Self.recrop
        p.xCenter = 0.1
        // Half the 40 px rect: x within (90, 110).
        #expect(try keeps(o, prev: p, landmarks: NormalizedLandmarkList([NormalizedLandmark(x: 109.0 / 200, y: 0.5)])))
        #expect(try !keeps(o, prev: p, landmarks: NormalizedLandmarkList([NormalizedLandmark(x: 111.0 / 200, y: 0.5)])))
        #expect(try !keeps(o, prev: p, landmarks: NormalizedLandmarkList([NormalizedLandmark(x: 110.0 / 200, y: 0.5)])))
    }

    /// IoU as MediaPipe computes it; rects that do not overlap pass (MediaPipe's empty
    /// rectangle has an infinite area).
    @Test func iouRequirementsByHand() throws {
        let o = "iou_requirements { min_iou: 0.5 }"
        var p = Self.recrop
        p.xCenter += 10.0 / 200  // 40 × 40 px boxes 10 px apart: IoU 30 / 50 = 0.6
        #expect(try keeps(o, prev: p))
        p.xCenter += 5.0 / 200  // 15 px: 25 / 55 ≈ 0.45
        #expect(try !keeps(o, prev: p))
        p.xCenter = 0.9  // no overlap at all
        #expect(try keeps(o, prev: p))
    }

    /// Without a re-crop rect nothing; without a previous rect the re-crop rect; a previous
    /// rect without its landmarks is an error naming the stream.
    @Test func missingInputs() throws {
        let o = Self.optionTexts["hand"]!
        #expect(try run(o, size: Self.size, prevLandmarks: Self.inside, prevRect: Self.recrop, recrop: nil).isEmpty)
        var r = Self.recrop
        r.xCenter = 0.1
        #expect(try run(o, size: Self.size, prevLandmarks: nil, prevRect: nil, recrop: r) == [r])
        let e = thrownDescription { _ = try run(o, size: Self.size, prevLandmarks: nil, prevRect: Self.recrop, recrop: r) }
        #expect(e?.contains("PREV_LANDMARKS") == true && e?.contains("stream 'l'") == true, "\(e ?? "")")
    }

    @Test(arguments: [
        ("iou_requirements { min_iou: 1.5 }", "iou_requirements.min_iou"),
        ("iou_requirements { min_iou: nan }", "min_iou"),
        ("rect_requirements { rotation_degrees: -1 }", "rect_requirements.rotation_degrees"),
        ("rect_requirements { translation: inf }", "translation"),
        ("rect_requirements { scale: -0.1 }", "rect_requirements.scale"),
        ("rect_requirements { scale: 1e30 }", "rect_requirements.scale"),
        ("landmarks_requirements { recrop_rect_margin: -2 }", "landmarks_requirements.recrop_rect_margin"),
    ])
    func badOptionsAreRefused(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "RoiTrackingCalculator"
            input_stream: "PREV_LANDMARKS:l" input_stream: "PREV_LANDMARKS_RECT:p" input_stream: "RECROP_RECT:r"
            input_stream: "IMAGE_SIZE:s" output_stream: "TRACKING_RECT:t"
            options { [mediapipe.RoiTrackingCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    /// The nested messages in text and binary; absent ones stay unset (their checks off).
    @Test func optionsInTextAndBinary() throws {
        let o = try binaryGraphOptions(
            "RoiTrackingCalculator",
            ports: (["PREV_LANDMARKS:l", "PREV_LANDMARKS_RECT:p", "RECROP_RECT:r", "IMAGE_SIZE:s"], ["TRACKING_RECT:t"]), ext: 329_994_630,
            as: Calc.Options.self
        ) { w in
            w.message(2) { m in
                m.float(1, 40)
                m.float(3, 0.4)
            }
            w.message(3) { m in m.float(1, -0.1) }
        }
        var want = Calc.Options()
        want.rectRequirements = .init()
        want.rectRequirements?.rotationDegrees = 40
        want.rectRequirements?.scale = 0.4
        want.landmarksRequirements = .init()
        want.landmarksRequirements?.recropRectMargin = -0.1
        #expect(o == want)
        #expect(o?.iouRequirements == nil && o?.rectRequirements?.translation == 0.1)
    }
}
