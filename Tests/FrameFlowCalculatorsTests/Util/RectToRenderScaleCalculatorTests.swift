import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// RectToRenderScaleCalculator: max(w·W, h·H)·multiplier, the multiplier alone without a rect,
/// timestamp bounds, and a rect without an image size refused.
@Suite struct RectToRenderScaleCalculatorTests {
    func runner(_ options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "RectToRenderScaleCalculator"
                input_stream: "NORM_RECT:roi"
                input_stream: "IMAGE_SIZE:size"
                output_stream: "RENDER_SCALE:scale"
                \(options.isEmpty ? "" : "options { [mediapipe.RectToRenderScaleCalculatorOptions.ext] { \(options) } }")
                """, registry: .standard)
    }

    @Test func scaleIsTheLongerSideTimesTheMultiplier() throws {
        let r = try runner("multiplier: 0.0012")
        r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5), tag: "NORM_RECT", at: 1)
        r.add(ImageSize(width: 640, height: 480), tag: "IMAGE_SIZE", at: 1)
        r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.25, height: 0.9), tag: "NORM_RECT", at: 2)
        r.add(ImageSize(width: 640, height: 480), tag: "IMAGE_SIZE", at: 2)
        // No rect: the multiplier.
        r.add(ImageSize(width: 640, height: 480), tag: "IMAGE_SIZE", at: 3)
        try r.run()
        let got = try values(r.outputs("RENDER_SCALE"), as: Float.self)
        #expect(got.map(\.0) == [1, 2, 3])
        #expect(got.map(\.1) == [320 * Float(0.0012), Float(0.9) * 480 * Float(0.0012), Float(0.0012)])
    }

    @Test func defaultMultiplier() throws {
        #expect(RectToRenderScaleCalculator.Options().multiplier == 0.01)
        #expect(
            RectToRenderScaleCalculator.scale(
                NormalizedRect(xCenter: 0, yCenter: 0, width: 1, height: 1), ImageSize(width: 300, height: 200), multiplier: 0.01)
                == 300 * Float(0.01))
    }

    /// With process_timestamp_bounds a bound alone gives the multiplier; without, nothing.
    @Test(arguments: [true, false])
    func timestampBounds(process: Bool) throws {
        let r = try runner("multiplier: 0.5 process_timestamp_bounds: \(process)")
        try r.start()
        try r.setBound(Timestamp(5), tag: "NORM_RECT")
        try r.setBound(Timestamp(5), tag: "IMAGE_SIZE")
        try r.runUntilIdle()
        let got = try values(r.takeOutputs("RENDER_SCALE"), as: Float.self)
        _ = try r.finish()
        #expect(got.map(\.1) == (process ? [0.5] : []))
    }

    /// Closing one input leaves the settled timestamp where it was: no second step at it.
    @Test func closingOneInputDoesNotRepeatTheBoundStep() throws {
        let r = try runner("multiplier: 0.5 process_timestamp_bounds: true")
        try r.start()
        try r.setBound(Timestamp(5), tag: "NORM_RECT")
        try r.setBound(Timestamp(5), tag: "IMAGE_SIZE")
        try r.runUntilIdle()
        try r.close("NORM_RECT")
        try r.runUntilIdle()
        let got = try values(r.takeOutputs("RENDER_SCALE"), as: Float.self)
        _ = try r.finish()
        #expect(got.map(\.0) == [4])
    }

    @Test func rectWithoutSizeNamesTheStream() throws {
        let r = try runner()
        r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5), tag: "NORM_RECT", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'size'") }
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "RectToRenderScaleCalculator", ports: (["NORM_RECT:r", "IMAGE_SIZE:s"], ["RENDER_SCALE:o"]), ext: 299463409,
            as: RectToRenderScaleCalculator.Options.self
        ) { w in
            w.float(1, 0.25)
            w.int(2, 1)
        }
        #expect(o == RectToRenderScaleCalculator.Options(multiplier: 0.25, processTimestampBounds: true))
    }
}
