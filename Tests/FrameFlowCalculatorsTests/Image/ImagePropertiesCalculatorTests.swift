import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's ImagePropertiesCalculator: SIZE (width, height) per image, IMAGE or IMAGE_CPU.
@Suite struct ImagePropertiesCalculatorTests {
    @Test(arguments: ["IMAGE", "IMAGE_CPU"])
    func reportsWidthAndHeight(tag: String) throws {
        let r = try CalculatorRunner(ImagePropertiesCalculator.self, inputs: ["\(tag):image"], outputs: ["SIZE:size"])
        r.add(try grayImage(width: 7, height: 3), tag: tag, at: 1)
        r.add(try grayImage(width: 2, height: 5), tag: tag, at: 2)
        try r.run()
        #expect(
            try values(r.outputs("SIZE"), as: ImageSize.self).map(\.1) == [ImageSize(width: 7, height: 3), ImageSize(width: 2, height: 5)])
        #expect(r.outputs("SIZE").map(\.timestamp) == [1, 2])
    }

    @Test func refusesGpuImagesAndTwoInputs() throws {
        let gpu = try CalculatorRunner(ImagePropertiesCalculator.self, inputs: ["IMAGE_GPU:image"], outputs: ["SIZE:size"])
        let e = #expect(throws: GraphError.self) { try gpu.run() }
        #expect(e?.description.contains("IMAGE_GPU is not supported") == true, "\(String(describing: e))")
        let two = try CalculatorRunner(ImagePropertiesCalculator.self, inputs: ["IMAGE:a", "IMAGE_CPU:b"], outputs: ["SIZE:size"])
        let e2 = #expect(throws: GraphError.self) { try two.run() }
        #expect(e2?.description.contains("exactly one of IMAGE and IMAGE_CPU") == true, "\(String(describing: e2))")
    }

    @Test func aNonImagePacketIsAnErrorNamingTheStream() throws {
        let r = try CalculatorRunner(ImagePropertiesCalculator.self, inputs: ["IMAGE:frames"], outputs: ["SIZE:size"])
        r.add("not an image", tag: "IMAGE", at: 1)
        let e = #expect(throws: (any Error).self) { try r.run() }
        #expect("\(String(describing: e))".contains("frames"), "\(String(describing: e))")
    }
}
