import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Inverts every byte; emits nothing for images narrower than `minWidth`.
final class InvertCalculator: ImageFilterCalculator {
    struct Options: CalculatorOptions { var minWidth = 0; init() {} }
    let minWidth: Int
    init(options: Options) { minWidth = options.minWidth }
    func filter(_ image: ImageFrame, context: CalculatorContext) throws -> ImageFrame? {
        guard image.width >= minWidth else { return nil }
        var out = try context.pool.makeImage(width: image.width, height: image.height, format: image.format)
        for y in 0..<image.height {
            let src = image.row(y)
            out.withMutableRow(y) { dst in for i in 0..<dst.count { dst[i] = 255 - src[i] } }
        }
        return out.freeze()
    }
}

/// `ImageFilterCalculator` supplies the ports and `process` around `filter`.
@Suite struct ImageFilterCalculatorTests {
    @Test func theProtocolSuppliesPortsAndProcess() throws {
        #expect(InvertCalculator.contract.inputs.map(\.tag) == ["IMAGE"])
        #expect(InvertCalculator.contract.outputs.map(\.tag) == ["IMAGE"])
        #expect(SobelEdgesCalculator.contract.inputs.map(\.tag) == [""], "untagged filters keep untagged ports")
        let image = try TestImages.random(width: 7, height: 5, format: .rgba8)
        let runner = try CalculatorRunner(InvertCalculator.self, inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        runner.add(image, tag: "IMAGE", at: 0)
        try runner.run()
        let out = try #require(try runner.outputs("IMAGE").first?.get(ImageFrame.self))
        for y in 0..<5 { #expect(Array(out.row(y)) == image.row(y).map { 255 - $0 }) }
    }

    @Test func nilEmitsNothing() throws {
        var o = InvertCalculator.Options()
        o.minWidth = 100
        let runner = try CalculatorRunner(InvertCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["IMAGE:out"])
        runner.add(try TestImages.random(width: 7, height: 5, format: .rgba8), tag: "IMAGE", at: 0)
        try runner.run()
        #expect(runner.outputs("IMAGE").isEmpty)
    }
}
