import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// LandmarksSmoothingCalculator: MediaPipe's own outputs to the bit (one-euro and velocity
/// filters, normalized and world landmarks, ROI and bounding-box scales, resets, pass-through
/// under the minimum scale), the filters against their formulas, and the refused setups.
@Suite struct LandmarksSmoothingCalculatorTests {
    @Test(arguments: [
        "one_euro_pose_roi", "one_euro_aux_box", "one_euro_world", "velocity_box", "velocity_roi_window3",
        "velocity_rect_roi_min_scale", "velocity_unscaled",
    ])
    func matchesMediaPipe(name: String) throws {
        try PoseSmoothingFixtures.expectMatches(name)
    }

    /// One-euro by its definition: alpha = 1 / (1 + f / (2π·cutoff)), the speed low-passed with
    /// the derivative cutoff, the cutoff min_cutoff + beta·|speed|; computed here in double.
    @Test func oneEuroFollowsItsFormula() {
        var f = OneEuroFilter(frequency: 30, minCutoff: 0.5, beta: 2, derivateCutoff: 1)
        let ns: [Int64] = [0, 10_000_000, 30_000_000, 70_000_000, 80_000_000]
        let xs = [1.0, 2.0, 2.5, 2.0, 4.0]
        func alpha(_ fr: Double, _ cutoff: Double) -> Double { 1 / (1 + fr / (2 * .pi * cutoff)) }
        // The first value passes (and is remembered, also at timestamp 0); the next still uses
        // the given frequency, as the last time was 0.
        #expect(f.apply(nanoseconds: ns[0], valueScale: 1, value: xs[0]) == xs[0])
        var fr = 30.0
        var dx = alpha(fr, 1) * (xs[1] - xs[0]) * fr
        var a = alpha(fr, 0.5 + 2 * abs(dx))
        var x = a * xs[1] + (1 - a) * xs[0]
        #expect(abs(f.apply(nanoseconds: ns[1], valueScale: 1, value: xs[1]) - x) < 1e-5 * max(1, abs(x)))
        var lastRaw = xs[1]
        for k in 2..<ns.count {
            fr = 1e9 / Double(ns[k] - ns[k - 1])
            let speed = (xs[k] - lastRaw) * fr
            let ad = alpha(fr, 1)
            dx = ad * speed + (1 - ad) * dx
            a = alpha(fr, 0.5 + 2 * abs(dx))
            x = a * xs[k] + (1 - a) * x
            lastRaw = xs[k]
            let got = f.apply(nanoseconds: ns[k], valueScale: 1, value: xs[k])
            #expect(abs(got - x) < 1e-5 * max(1, abs(x)), "step \(k): \(got) vs \(x)")
        }
        // A timestamp not after the last passes the value unchanged.
        #expect(f.apply(nanoseconds: ns.last!, valueScale: 1, value: 123) == 123)
    }

    /// Relative velocity by its definition: alpha = 1 − 1/(1 + scale·|v|), v the summed
    /// distances over the summed durations of the last changes (the window).
    @Test func relativeVelocityFollowsItsFormula() {
        var f = RelativeVelocityFilter(windowSize: 2, velocityScale: 3)
        let ns: [Int64] = [5_000_000, 25_000_000, 45_000_000, 75_000_000, 95_000_000]
        let xs: [Float] = [1, 1.5, 1.25, 2, 2.5]
        #expect(f.apply(nanoseconds: ns[0], valueScale: 2, value: xs[0]) == xs[0])
        var y = Double(xs[0])
        var window: [(Double, Double)] = []
        for k in 1..<ns.count {
            let d = 2 * Double(xs[k] - xs[k - 1]), t = Double(ns[k] - ns[k - 1]) * 1e-9
            // Every change here is short enough for the window to count whole.
            let v = (window.reduce(d) { $0 + $1.0 }) / (window.reduce(t) { $0 + $1.1 })
            let a = 1 - 1 / (1 + 3 * abs(v))
            y = a * Double(xs[k]) + (1 - a) * y
            window.insert((d, t), at: 0)
            if window.count > 2 { window.removeLast() }
            let got = f.apply(nanoseconds: ns[k], valueScale: 2, value: xs[k])
            #expect(abs(Double(got) - y) < 1e-5, "step \(k): \(got) vs \(y)")
        }
    }

    /// no_filter passes landmarks as they are.
    @Test func noFilterPasses() throws {
        let r = try CalculatorRunner(
            node: """
                calculator: "LandmarksSmoothingCalculator"
                input_stream: "LANDMARKS:l"
                output_stream: "FILTERED_LANDMARKS:f"
                options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { no_filter {} } }
                """, registry: .standard)
        let list = LandmarkList([Landmark(x: 1, y: 2, z: 3, visibility: 0.5)])
        r.add(list, tag: "LANDMARKS", at: 1)
        try r.run()
        #expect(try r.outputs("FILTERED_LANDMARKS").map { try $0.get(LandmarkList.self) } == [list])
    }

    @Test(arguments: [
        (
            "input_stream: \"NORM_LANDMARKS:l\"\noutput_stream: \"NORM_FILTERED_LANDMARKS:f\"\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { no_filter {} } }",
            "IMAGE_SIZE"
        ),
        (
            "input_stream: \"LANDMARKS:l\"\ninput_stream: \"IMAGE_SIZE:s\"\noutput_stream: \"FILTERED_LANDMARKS:f\"\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { no_filter {} } }",
            "IMAGE_SIZE"
        ),
        (
            "input_stream: \"LANDMARKS:l\"\noutput_stream: \"NORM_FILTERED_LANDMARKS:f\"\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { no_filter {} } }",
            "FILTERED_LANDMARKS"
        ),
        ("input_stream: \"LANDMARKS:l\"\noutput_stream: \"FILTERED_LANDMARKS:f\"", "exactly one of no_filter"),
        (
            "input_stream: \"LANDMARKS:l\"\noutput_stream: \"FILTERED_LANDMARKS:f\"\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { one_euro_filter { min_cutoff: 0 } } }",
            "min_cutoff"
        ),
        (
            "input_stream: \"LANDMARKS:l\"\noutput_stream: \"FILTERED_LANDMARKS:f\"\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { velocity_filter { window_size: -1 } } }",
            "window_size"
        ),
    ])
    func badSetupsAreRefused(body: String, needle: String) throws {
        let message = thrownDescription {
            let r = try CalculatorRunner(node: "calculator: \"LandmarksSmoothingCalculator\"\n" + body, registry: .standard)
            if body.contains("NORM_LANDMARKS:l") {
                r.add(NormalizedLandmarkList([NormalizedLandmark(x: 1, y: 2)]), tag: "NORM_LANDMARKS", at: 1)
            } else {
                r.add(LandmarkList([Landmark(x: 1, y: 2)]), tag: "LANDMARKS", at: 1)
            }
            try r.run()
        }
        #expect(message?.contains(needle) == true, "\(message ?? "")")
    }

    /// A list of another length than the filters were made for, a missing IMAGE_SIZE, an empty
    /// list with no object scale and an OBJECT_SCALE_ROI of the wrong kind name the stream.
    @Test func badPacketsNameTheStream() throws {
        let node = """
            calculator: "LandmarksSmoothingCalculator"
            input_stream: "NORM_LANDMARKS:lm"
            input_stream: "IMAGE_SIZE:size"
            input_stream: "OBJECT_SCALE_ROI:roi"
            output_stream: "NORM_FILTERED_LANDMARKS:f"
            options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { velocity_filter {} } }
            """
        let two = NormalizedLandmarkList([NormalizedLandmark(x: 0.1, y: 0.2), NormalizedLandmark(x: 0.5, y: 0.6)])
        let size = ImageSize(width: 100, height: 100)
        var r = try CalculatorRunner(node: node, registry: .standard)
        r.add(two, tag: "NORM_LANDMARKS", at: 1)
        r.add(size, tag: "IMAGE_SIZE", at: 1)
        r.add(NormalizedLandmarkList(two.landmark + [NormalizedLandmark(x: 0.9, y: 0.9)]), tag: "NORM_LANDMARKS", at: 2)
        r.add(size, tag: "IMAGE_SIZE", at: 2)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'lm'") && "\($0)".contains("made for 2") }
        r = try CalculatorRunner(node: node, registry: .standard)
        r.add(two, tag: "NORM_LANDMARKS", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'size'") }
        r = try CalculatorRunner(node: node, registry: .standard)
        r.add(NormalizedLandmarkList(), tag: "NORM_LANDMARKS", at: 1)
        r.add(size, tag: "IMAGE_SIZE", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'lm'") && "\($0)".contains("empty") }
        r = try CalculatorRunner(node: node, registry: .standard)
        r.add(two, tag: "NORM_LANDMARKS", at: 1)
        r.add(size, tag: "IMAGE_SIZE", at: 1)
        r.add(RotatedRect(xCenter: 1, yCenter: 1, width: 2, height: 2), tag: "OBJECT_SCALE_ROI", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'roi'") }
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "LandmarksSmoothingCalculator", ports: (["NORM_LANDMARKS:l", "IMAGE_SIZE:s"], ["NORM_FILTERED_LANDMARKS:f"]),
            ext: 325671429, as: LandmarksSmoothingCalculator.Options.self
        ) { w in
            w.message(3) { e in
                e.float(2, 0.05)
                e.float(3, 80)
            }
        }
        #expect(o?.oneEuroFilter?.minCutoff == 0.05 && o?.oneEuroFilter?.beta == 80 && o?.oneEuroFilter?.frequency == 30)
        #expect(o?.velocityFilter == nil && o?.noFilter == nil)
    }

    static let node = """
        calculator: "LandmarksSmoothingCalculator"
        input_stream: "LANDMARKS:l"
        output_stream: "FILTERED_LANDMARKS:f"
        """

    /// Window sizes that would allocate gigabytes, zero and huge rates, and a zero minimum
    /// object scale (its inverse scales the values) are refused when the graph is built.
    @Test(arguments: [
        ("velocity_filter { window_size: 2147483647 }", "window_size"), ("velocity_filter { window_size: 1001 }", "window_size"),
        ("velocity_filter { velocity_scale: -1 }", "velocity_scale"), ("velocity_filter { velocity_scale: 3e38 }", "velocity_scale"),
        ("velocity_filter { min_allowed_object_scale: 0 }", "min_allowed_object_scale"),
        ("one_euro_filter { frequency: 0 }", "frequency"), ("one_euro_filter { frequency: 3e38 }", "frequency"),
        ("one_euro_filter { min_cutoff: 1e30 }", "min_cutoff"), ("one_euro_filter { beta: -1 }", "beta"),
        ("one_euro_filter { beta: 1e30 }", "beta"), ("one_euro_filter { derivate_cutoff: 0 }", "derivate_cutoff"),
        ("one_euro_filter { min_allowed_object_scale: 0 }", "min_allowed_object_scale"), ("one_euro_filter { beta: inf }", "beta"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(Self.node + "\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { \(options) } }")
        expectInvalidOption(e, naming: field, options)
    }

    /// The edges of the ranges run on moving landmarks and give finite values.
    @Test(arguments: [
        "velocity_filter { window_size: 1000 velocity_scale: 1e6 min_allowed_object_scale: 1e-9 }",
        "velocity_filter { window_size: 0 velocity_scale: 0 min_allowed_object_scale: 1e9 }",
        "one_euro_filter { frequency: 1e6 min_cutoff: 1e6 beta: 1e6 derivate_cutoff: 1e6 min_allowed_object_scale: 1e-9 }",
        "one_euro_filter { frequency: 1e-6 min_cutoff: 1e-6 beta: 0 derivate_cutoff: 1e-6 }",
    ])
    func edgesOfTheRangesRun(options: String) throws {
        let r = try CalculatorRunner(
            node: Self.node + "\noptions { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { \(options) } }", registry: .standard)
        for t in 0..<5 {
            let d = Double(t) * 3
            r.add(
                LandmarkList([Landmark(x: 1 + d, y: 2 - d, z: d), Landmark(x: 40 + d, y: 30, z: 0)]), tag: "LANDMARKS",
                at: Timestamp(Int64(t) * 33_333))
        }
        try r.run()
        let out = try r.outputs("FILTERED_LANDMARKS").map { try $0.get(LandmarkList.self) }
        #expect(out.count == 5 && out.allSatisfy { $0.landmark.allSatisfy { [$0.x, $0.y, $0.z].allSatisfy(\.isFinite) } }, "\(out)")
    }
}
