import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's ToImageCalculator: IMAGE or IMAGE_CPU in, the same image out on IMAGE.
@Suite struct ToImageCalculatorTests {
    @Test(arguments: ["IMAGE", "IMAGE_CPU"])
    func passesTheImageThrough(tag: String) throws {
        let r = try CalculatorRunner(ToImageCalculator.self, inputs: ["\(tag):frame"], outputs: ["IMAGE:image"])
        let image = try grayImage(width: 4, height: 2)
        r.add(image, tag: tag, at: 3)
        try r.run()
        let out = try #require(r.outputs("IMAGE").first)
        #expect(out.timestamp == 3)
        let got = try out.get(ImageFrame.self)
        #expect(got.width == 4 && got.height == 2 && got.format == image.format)
    }

    @Test func refusesGpuInput() throws {
        let r = try CalculatorRunner(ToImageCalculator.self, inputs: ["IMAGE_GPU:frame"], outputs: ["IMAGE:image"])
        let e = #expect(throws: GraphError.self) { try r.run() }
        #expect(e?.description.contains("IMAGE_GPU is not supported") == true, "\(String(describing: e))")
    }

    @Test func refusesAnUnknownTagWhenBuilt() throws {
        let text = """
            input_stream: "f"
            node { calculator: "ToImageCalculator" input_stream: "VIDEO:f" output_stream: "IMAGE:i" }
            """
        let e = thrownDescription { try Graph(GraphConfig(parsing: text), registry: .standard).start() }
        #expect(e?.contains("VIDEO") == true, "\(String(describing: e))")
    }
}
