import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// `MotionDetector` against OpenCV (the same steps with cv2 calls, in
/// `scripts/fixtures/make_motion_fixtures.py`), and its calculator's ports and options.
///
/// Tolerance: none. Every step is integer arithmetic that OpenCV does exactly the same way
/// (resize with `INTER_LINEAR_EXACT`, the binomial blur in fixed point, absdiff, threshold,
/// dilate, components) except the background average, a `Float` multiply-add where OpenCV's
/// vector loop may fuse into one rounding (≤ 1 ulp per frame, which could move a rounded
/// background value only at a .5 tie); on these sequences no box differs.
@Suite struct MotionDetectorCalculatorTests {
    @Test(arguments: ["vtest", "synthetic"])
    func boxesEqualOpenCVs(sequence name: String) throws {
        let expected = try MotionFixtures.expected()
        let seq = name == "vtest" ? expected.vtest : expected.synthetic
        let frames =
            name == "vtest"
            ? try MotionFixtures.vtest(0..<seq.frames.count)
            : try (0..<seq.frames.count).map { try MotionFixtures.gray(MotionFixtures.syntheticPixels($0), width: 160, height: 120) }
        var detector = try MotionDetector(seq.options.parameters)
        var boxes = 0, lightning = 0
        for (i, (frame, want)) in zip(frames, seq.frames).enumerated() {
            let r = try detector.detect(frame)
            #expect(r.workingBoxes.map { [$0.x, $0.y, $0.width, $0.height] } == want.boxes, "\(name) frame \(i)")
            #expect(r.lightning == want.lightning, "\(name) frame \(i)")
            // Boxes in frame pixels: the working boxes × frame size / working size.
            #expect(r.workingHeight == seq.options.frameHeight && r.workingWidth == seq.options.frameHeight * seq.width / seq.height)
            let sx = Double(seq.width) / Double(r.workingWidth), sy = Double(seq.height) / Double(r.workingHeight)
            for (b, rect) in zip(r.workingBoxes, r.boxes) {
                #expect(rect == Rect(x: Double(b.x) * sx, y: Double(b.y) * sy, width: Double(b.width) * sx, height: Double(b.height) * sy))
            }
            boxes += want.boxes.count
            lightning += want.lightning ? 1 : 0
        }
        // The sequences exercise what they are for: many boxes; the synthetic one a light switch.
        #expect(boxes > (name == "vtest" ? 400 : 30))
        #expect(lightning == (name == "vtest" ? 0 : 1))
    }

    /// The calculator on colour frames with padded rows: its boxes are the detector's on the
    /// grey frames (grey (v, v, v) is v in BT.601), whole pixels around the scaled box, with
    /// the label, the fill fraction as score, and FLAG.
    @Test func calculatorEmitsTheDetectorsBoxes() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "MotionDetectorCalculator" input_stream: "IMAGE:in" output_stream: "MOTION:motion" output_stream: "FLAG:flag"
                options { [frameflow.MotionDetectorCalculatorOptions.ext] { frame_height: 60 mask: "0.75,0.6, 1,0.6, 1,1, 0.75,1" } }
                """, registry: .standard)
        let expected = try MotionFixtures.expected().synthetic
        for t in 0..<expected.frames.count {
            let px = MotionFixtures.syntheticPixels(t)
            let image = try TestImages.make(width: 160, height: 120, format: .rgb8, extraStride: 5) { x, y, _ in px[y * 160 + x] }
            runner.add(image, tag: "IMAGE", at: Timestamp(Int64(t) * 33_333))
        }
        try runner.run()
        let motion = try runner.outputs("MOTION").map { try $0.get([Detection].self) }
        let flags = try runner.outputs("FLAG").map { try $0.get(Bool.self) }
        #expect(motion.count == expected.frames.count && flags.count == expected.frames.count)
        for (t, (got, want)) in zip(motion, expected.frames).enumerated() {
            #expect(flags[t] == !want.boxes.isEmpty)
            #expect(got.count == want.boxes.count, "frame \(t)")
            for (d, b) in zip(got, want.boxes) {
                // 160 × 120 over 80 × 60: exactly 2 × the working box.
                #expect(d.locationData.boundingBox == .init(xmin: 2 * b[0], ymin: 2 * b[1], width: 2 * b[2], height: 2 * b[3]), "frame \(t)")
                #expect(d.label == "motion" && d.score > 0 && d.score <= 1)
            }
        }
    }

    @Test func refusesFramesTooSmallForTheWorkingFrame() throws {
        var detector = try MotionDetector(MotionDetector.Parameters())
        let tall = try MotionFixtures.gray([UInt8](repeating: 9, count: 2 * 400), width: 2, height: 400)
        #expect(throws: GraphError.self) { try detector.detect(tall) }
        let rgb = try TestImages.random(width: 64, height: 48, format: .rgb8)
        #expect(throws: (any Error).self) { try detector.detect(rgb) }
    }

    /// NaN, infinities, huge, zero and negative values and bad masks are refused when the graph
    /// is built, naming the field.
    @Test(arguments: [
        ("frame_height: 0", "frame_height"), ("frame_height: -100", "frame_height"), ("frame_height: 1000000000", "frame_height"),
        ("blur_kernel_size: 0", "blur_kernel_size"), ("blur_kernel_size: 7", "blur_kernel_size"), ("blur_kernel_size: -3", "blur_kernel_size"),
        ("frame_alpha: nan", "frame_alpha"), ("frame_alpha: inf", "frame_alpha"), ("frame_alpha: 1e308", "frame_alpha"),
        ("frame_alpha: 0", "frame_alpha"), ("frame_alpha: -0.02", "frame_alpha"),
        ("threshold: 0", "threshold"), ("threshold: -30", "threshold"), ("threshold: 255", "threshold"),
        ("dilation: -1", "dilation"), ("dilation: 1000", "dilation"),
        ("min_area: 0", "min_area"), ("min_area: -10", "min_area"),
        ("lightning_threshold: nan", "lightning_threshold"), ("lightning_threshold: -inf", "lightning_threshold"),
        ("lightning_threshold: 0", "lightning_threshold"), ("lightning_threshold: 1e308", "lightning_threshold"),
        ("lightning_threshold: -0.5", "lightning_threshold"),
        ("mask: \"0,0,1,0\"", "mask 0"), ("mask: \"0,0,1,0,1\"", "mask 0"), ("mask: \"0,0,1,0,nan,1\"", "mask 0"),
        ("mask: \"0,0,1,0,inf,1\"", "mask 0"), ("mask: \"0,0,1,0,1e308,1\"", "mask 0"), ("mask: \"0,0,1,0,-1,1\"", "mask 0"),
        ("mask: \"0,0,1,0,1,1\" mask: \"a,b,c\"", "mask 1"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "MotionDetectorCalculator" input_stream: "IMAGE:in" output_stream: "MOTION:m"
            options { [frameflow.MotionDetectorCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
