import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// ImageCloneCalculator: the image passes unchanged; a GPU output is refused.
@Suite struct ImageCloneCalculatorTests {
    @Test func passesTheImageOn() throws {
        let r = try CalculatorRunner(
            node: """
                node { calculator: "ImageCloneCalculator" input_stream: "in" output_stream: "out"
                  options { [mediapipe.ImageCloneCalculatorOptions.ext] { output_on_gpu: false } } }
                """, registry: .standard)
        let image = try ImageFrame(width: 3, height: 2, format: .rgb8, value: { x, y, c in UInt8(x + 3 * y + c) })
        r.add(image, at: 5)
        try r.run()
        let out = try #require(r.outputs().first)
        #expect(out.timestamp == 5)
        #expect(try out.get(ImageFrame.self).row(1).elementsEqual(image.row(1)))
    }

    @Test func refusesGpuOutput() {
        let e = GraphBuildErrors.firstOptionError(
            """
            node { calculator: "ImageCloneCalculator" input_stream: "in" output_stream: "out"
              options { [mediapipe.ImageCloneCalculatorOptions.ext] { output_on_gpu: true } } }
            """, registry: .standard)
        #expect(e?.kind == .invalidOption && e?.message.contains("output_on_gpu") == true, "\(String(describing: e))")
    }
}
