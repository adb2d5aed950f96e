import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's FromImageCalculator: IMAGE in, IMAGE_CPU and SOURCE_ON_GPU (false) out.
@Suite struct FromImageCalculatorTests {
    @Test func passesTheImageToImageCpuFromCpu() throws {
        let r = try CalculatorRunner(
            FromImageCalculator.self, inputs: ["IMAGE:image"], outputs: ["IMAGE_CPU:frame", "SOURCE_ON_GPU:on_gpu"])
        r.add(try grayImage(width: 5, height: 6), tag: "IMAGE", at: 8)
        try r.run()
        let frame = try #require(r.outputs("IMAGE_CPU").first)
        #expect(frame.timestamp == 8)
        #expect(try frame.get(ImageFrame.self).width == 5)
        #expect(try values(r.outputs("SOURCE_ON_GPU"), as: Bool.self).map { "\($0.0):\($0.1)" } == ["8:false"])
    }

    @Test func refusesGpuOutput() throws {
        let r = try CalculatorRunner(FromImageCalculator.self, inputs: ["IMAGE:image"], outputs: ["IMAGE_GPU:frame"])
        let e = #expect(throws: GraphError.self) { try r.run() }
        #expect(e?.description.contains("IMAGE_GPU is not supported") == true, "\(String(describing: e))")
    }
}
