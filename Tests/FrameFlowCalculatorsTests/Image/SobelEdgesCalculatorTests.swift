import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Reference: MediaPipe's Sobel formula written out pixel by pixel, in Double, on the
/// red channel with replicated edges. Tolerance 1 (float vs. double square root at .5).
func referenceSobel(_ img: ImageFrame, x: Int, y: Int) -> Int {
    let red = img.format == .bgra8 ? 2 : 0
    func v(_ xx: Int, _ yy: Int) -> Double {
        Double(img[min(max(xx, 0), img.width - 1), min(max(yy, 0), img.height - 1)][red])
    }
    let lu = v(x - 1, y - 1), lc = v(x - 1, y), ld = v(x - 1, y + 1)
    let cu = v(x, y - 1), cd = v(x, y + 1)
    let ru = v(x + 1, y - 1), rc = v(x + 1, y), rd = v(x + 1, y + 1)
    let h = -lu - 2 * lc - ld + ru + 2 * rc + rd
    let vv = -lu - 2 * cu - ru + ld + 2 * cd + rd
    return Int(min(255, (h * h + vv * vv).squareRoot()).rounded())
}

func checkSobel(_ input: ImageFrame) throws {
    let runner = try CalculatorRunner(SobelEdgesCalculator.self, inputs: ["in"], outputs: ["out"])
    runner.add(input, at: 0)
    try runner.run()
    let out = try #require(runner.outputs().first).get(ImageFrame.self)
    #expect(out.width == input.width && out.height == input.height && out.format == input.format)
    var maxDiff = 0
    for y in 0..<input.height {
        for x in 0..<input.width {
            let ref = referenceSobel(input, x: x, y: y)
            let q = out[x, y]
            for c in 0..<min(3, q.count) { maxDiff = max(maxDiff, abs(Int(q[c]) - ref)) }
            if q.count == 4 { #expect(q[3] == 255) }
        }
    }
    #expect(maxDiff <= 1)
}

@Suite struct SobelEdgesCalculatorTests {
    @Test func realPhotoMatchesFormula() throws {
        let photo = try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true)
        let luma = try LuminanceCalculator.luminance(photo)
        try checkSobel(luma)
        try checkSobel(photo)  // colour input: the red channel is used
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 3), (5, 2), (31, 17), (1, 9), (9, 1)])
    func smallAndOddSizes(size: (Int, Int)) throws {
        for format in [PixelFormat.rgba8, .bgra8, .rgb8, .gray8] {
            for extra in [0, 7] {
                try checkSobel(
                    try TestImages.random(width: size.0, height: size.1, format: format, extraStride: extra, seed: UInt64(size.0 &* 7 &+ size.1)))
            }
        }
    }

    @Test func flatImageHasNoEdgesAndStepSaturates() throws {
        let flat = try TestImages.make(width: 8, height: 8, format: .rgba8) { _, _, _ in 77 }
        let step = try TestImages.make(width: 8, height: 8, format: .rgba8) { x, _, c in c == 3 ? 255 : (x < 4 ? 0 : 255) }
        let runner = try CalculatorRunner(SobelEdgesCalculator.self, inputs: ["in"], outputs: ["out"])
        runner.add(flat, at: 0)
        runner.add(step, at: 1)
        try runner.run()
        let outs = try runner.outputs().map { try $0.get(ImageFrame.self) }
        #expect(outs.count == 2)
        #expect(outs[0].packedBytes().enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 255 : $0.element == 0 })
        #expect(outs[1][3, 4] == [255, 255, 255, 255])  // |h| = 4·255, clamped
        #expect(outs[1][0, 4] == [0, 0, 0, 255])
        #expect(outs[1][7, 4] == [0, 0, 0, 255])
    }

    @Test func largeFrameSplitIntoBandsMatches() throws {
        // Big enough to be split across workers inside a graph.
        try checkSobel(try TestImages.random(width: 333, height: 250, format: .rgba8, seed: 9))
    }
}

@Suite struct SobelMagnitudeTests {
    /// Every sum of squares the kernel can meet below the clamp, and some above it.
    @Test func roundedMagnitudeIsExactForEverySum() {
        var wrong: [Int32] = []
        for s in Int32(0)...Int32(2 * 1020 * 1020) where s <= 70_000 || s % 97 == 0 {
            let expected = UInt32(min(255, Double(s).squareRoot().rounded()))
            if SobelEdgesCalculator.roundedMagnitude(s) != expected { wrong.append(s) }
        }
        #expect(wrong.isEmpty, "first wrong sums: \(wrong.prefix(5))")
    }
}
