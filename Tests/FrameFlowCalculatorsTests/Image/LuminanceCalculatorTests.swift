import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Reference: MediaPipe's formula, 0.2125 R + 0.7154 G + 0.0721 B, rounded to nearest (halves
/// up), in exact integer arithmetic (weights in 1/10000).
func referenceLuminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
    (2125 * Int(r) + 7154 * Int(g) + 721 * Int(b) + 5000) / 10000
}

func checkLuminance(_ input: ImageFrame) throws {
    let runner = try CalculatorRunner(LuminanceCalculator.self, inputs: ["in"], outputs: ["out"])
    runner.add(input, at: 0)
    try runner.run()
    let out = try #require(runner.outputs().first).get(ImageFrame.self)
    #expect(out.width == input.width && out.height == input.height && out.format == input.format)
    let (ri, bi) = input.format == .bgra8 ? (2, 0) : (0, 2)
    var maxDiff = 0
    for y in 0..<input.height {
        for x in 0..<input.width {
            let p = input[x, y], q = out[x, y]
            let l = referenceLuminance(p[ri], p[1], p[bi])
            for c in 0..<3 { maxDiff = max(maxDiff, abs(Int(q[c]) - l)) }
            if p.count == 4 { #expect(q[3] == p[3], "alpha must pass through") }
        }
    }
    #expect(maxDiff == 0)
}

@Suite struct LuminanceCalculatorTests {
    @Test func realPhotoMatchesFormula() throws {
        try checkLuminance(try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true))
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 5), (17, 9), (63, 1), (1, 31)])
    func oddSizesAndWideStrides(size: (Int, Int)) throws {
        for format in [PixelFormat.rgba8, .bgra8, .rgb8] {
            for extra in [0, 13] {
                try checkLuminance(
                    try TestImages.random(width: size.0, height: size.1, format: format, extraStride: extra, seed: UInt64(size.0 * 31 + size.1)))
            }
        }
    }

    @Test func everyGrayAndEveryChannelLevelIsExact() throws {
        // All 256 levels of each channel alone and of gray, so every rounding boundary the
        // weights reach is met (the 16-bit weights were off by one on some).
        let img = try TestImages.make(width: 256, height: 4, format: .rgba8) { x, y, c in
            c == 3 ? 255 : (y == 3 || y == c ? UInt8(x) : 0)
        }
        try checkLuminance(img)
        let rgb = try TestImages.make(width: 256, height: 4, format: .rgb8) { x, y, c in y == 3 || y == c ? UInt8(x) : UInt8((x * 7 + c * 13) & 255) }
        try checkLuminance(rgb)
    }

    @Test func extremesAndAlpha() throws {
        let img = try TestImages.make(width: 4, height: 2, format: .rgba8) { x, y, c in
            c == 3 ? UInt8(x * 60 + y) : (x % 2 == 0 ? 255 : 0)
        }
        try checkLuminance(img)
        let white = try TestImages.make(width: 1, height: 1, format: .rgba8) { _, _, _ in 255 }
        let runner = try CalculatorRunner(LuminanceCalculator.self, inputs: ["in"], outputs: ["out"])
        runner.add(white, at: 0)
        try runner.run()
        #expect(try runner.outputs()[0].get(ImageFrame.self)[0, 0] == [255, 255, 255, 255])
    }

    @Test func rejectsUnsupportedFormat() throws {
        let gray = try TestImages.random(width: 4, height: 4, format: .gray8)
        let runner = try CalculatorRunner(LuminanceCalculator.self, inputs: ["in"], outputs: ["out"])
        runner.add(gray, at: 0)
        let error = #expect(throws: GraphError.self) { try runner.run() }
        #expect(error?.kind == .calculatorFailed)
        #expect(error?.node == "LuminanceCalculator")
        #expect(error?.description.contains("gray8") == true)
    }

    @Test func wrongPayloadTypeNamesStreamAndTypes() throws {
        let runner = try CalculatorRunner(LuminanceCalculator.self, inputs: ["frames_in"], outputs: ["out"])
        runner.add("not an image", at: 0)
        let error = #expect(throws: GraphError.self) { try runner.run() }
        let text = error?.description ?? ""
        #expect(text.contains("frames_in") && text.contains("String") && text.contains("ImageFrame"), "\(text)")
    }
}
