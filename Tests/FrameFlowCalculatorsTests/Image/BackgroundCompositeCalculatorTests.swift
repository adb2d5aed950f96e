import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// BackgroundCompositeCalculator: the per-pixel mix written out here, each kind of background
/// (stream, side packet picture scaled to cover, colour), masks of other sizes and formats, and
/// what it refuses.
@Suite struct BackgroundCompositeCalculatorTests {
    func runner(_ options: String = "", background: Bool = false, picture: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "BackgroundCompositeCalculator"
                input_stream: "IMAGE:image"
                input_stream: "MASK:mask"
                \(background ? "input_stream: \"BACKGROUND:background\"" : "")
                \(picture ? "input_side_packet: \"BACKGROUND:picture\"" : "")
                output_stream: "IMAGE:composited"
                options { [frameflow.BackgroundCompositeCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
    }

    /// The documented mix of one channel: weight a = clamp((m − low) / (high − low)), then
    /// fg · a + bg · (1 − a) rounded half to even, in Float.
    static func expected(_ fg: UInt8, _ bg: Float, mask m: Float, low: Float = 0, high: Float = 1) -> UInt8 {
        let a = min(max((m - low) / (high - low), 0), 1)
        let v = Float(fg) * a + bg * (1 - a)
        return UInt8(v.rounded(.toNearestOrEven))
    }

    static func output(_ r: CalculatorRunner) throws -> ImageFrame {
        try #require(r.outputs("IMAGE").first).get(ImageFrame.self)
    }

    @Test(arguments: [("", Float(0), Float(1), false), ("mask_low: 0.25 mask_high: 0.75", 0.25, 0.75, false), ("invert_mask: true", 0, 1, true)])
    func colourBackgroundFollowsTheMix(options: String, low: Float, high: Float, invert: Bool) throws {
        let image = try TestImages.random(width: 5, height: 3, format: .rgb8, seed: 11)
        let weights: [Float] = (0..<15).map { Float($0) / 14 }
        let r = try runner("color { r: 20 g: 120 b: 250 } \(options)")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 5, height: 3, values: weights), tag: "MASK", at: 0)
        try r.run()
        let out = try Self.output(r)
        #expect(out.format == .rgb8 && out.width == 5 && out.height == 3)
        for y in 0..<3 {
            for x in 0..<5 {
                let m = invert ? 1 - weights[y * 5 + x] : weights[y * 5 + x]
                let want = zip(image[x, y], [20, 120, 250]).map { Self.expected($0, Float($1), mask: m, low: low, high: high) }
                #expect(out[x, y] == want, "(\(x), \(y))")
            }
        }
    }

    /// A background stream in another layout (BGRA behind RGBA) mixes red with red; alpha is the frame's.
    @Test func backgroundStreamOfTheSameSize() throws {
        let image = try TestImages.random(width: 4, height: 4, format: .rgba8, seed: 2)
        let back = try TestImages.random(width: 4, height: 4, format: .bgra8, seed: 9)
        let weights: [Float] = (0..<16).map { Float(($0 * 7) % 16) / 15 }
        let r = try runner(background: true)
        r.add(image, tag: "IMAGE", at: 5)
        r.add(try ImageFrame.grayFloat(width: 4, height: 4, values: weights), tag: "MASK", at: 5)
        r.add(back, tag: "BACKGROUND", at: 5)
        try r.run()
        let out = try Self.output(r)
        #expect(out.format == .rgba8)
        for y in 0..<4 {
            for x in 0..<4 {
                let f = image[x, y], b = back[x, y], m = weights[y * 4 + x]
                let want = [0, 1, 2].map { Self.expected(f[$0], Float(b[2 - $0]), mask: m) } + [f[3]]
                #expect(out[x, y] == want, "(\(x), \(y))")
            }
        }
    }

    /// A 2×1 picture (0 and 200) behind a 4×2 frame: scaled by 2 to cover, sampled at pixel
    /// centres −0.25, 0.25, 0.75, 1.25 (clamped) of its width: 0, 50, 150, 200 in every row.
    /// The mask is 0, so the output is the background.
    @Test func sidePacketPictureIsScaledToCover() throws {
        var picture = try ImagePool.shared.makeImage(width: 2, height: 1, format: .rgb8)
        picture.withMutableRow(0) { row in for (i, v) in [0, 0, 0, 200, 200, 200].enumerated() { row[i] = UInt8(v) } }
        let image = try TestImages.random(width: 4, height: 2, format: .rgb8, seed: 4)
        let r = try runner(picture: true)
        r.setSidePacket(picture.freeze(), tag: "BACKGROUND")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 4, height: 2, values: Array(repeating: 0, count: 8)), tag: "MASK", at: 0)
        try r.run()
        let out = try Self.output(r)
        for y in 0..<2 {
            for (x, v) in [0, 50, 150, 200].enumerated() { #expect(out[x, y] == [UInt8(v), UInt8(v), UInt8(v)], "(\(x), \(y))") }
        }
    }

    /// A 4×2 picture behind a 2×2 frame: the same scale, the middle two columns kept.
    @Test func widerPictureIsCroppedToItsMiddle() throws {
        let picture = try TestImages.random(width: 4, height: 2, format: .bgra8, seed: 8)
        let image = try TestImages.random(width: 2, height: 2, format: .rgb8, seed: 6)
        let r = try runner(picture: true)
        r.setSidePacket(picture, tag: "BACKGROUND")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 2, height: 2, values: [0.3, 0.3, 0.3, 0.3]), tag: "MASK", at: 0)
        try r.run()
        let out = try Self.output(r)
        for y in 0..<2 {
            for x in 0..<2 {
                let b = picture[x + 1, y], f = image[x, y]
                #expect(out[x, y] == [0, 1, 2].map { Self.expected(f[$0], Float(b[2 - $0]), mask: 0.3) }, "(\(x), \(y))")
            }
        }
    }

    /// An 8-bit mask of another size: uniform, so resizing keeps its value (200 / 255) everywhere.
    @Test func grayMaskOfAnotherSize() throws {
        let image = try TestImages.random(width: 6, height: 4, format: .gray8, seed: 1)
        var mask = try ImagePool.shared.makeImage(width: 3, height: 2, format: .gray8)
        mask.fill(200)
        let r = try runner("color { r: 255 g: 0 b: 0 }")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(mask.freeze(), tag: "MASK", at: 0)
        try r.run()
        let out = try Self.output(r)
        let grey: Float = 0.299 * 255 + 0.587 * 0 + 0.114 * 0
        for y in 0..<4 {
            for x in 0..<6 { #expect(out[x, y] == [Self.expected(image[x, y][0], grey, mask: Float(200) / 255)], "(\(x), \(y))") }
        }
    }

    /// Values outside 0…1 are clamped; NaN is background (no crash on a broken mask).
    @Test func maskValuesOutOfRange() throws {
        let image = try TestImages.random(width: 4, height: 1, format: .rgb8, seed: 12)
        let r = try runner("color { r: 9 g: 99 b: 199 }")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 4, height: 1, values: [.nan, -.infinity, 7, .infinity]), tag: "MASK", at: 0)
        try r.run()
        let out = try Self.output(r)
        #expect(out[0, 0] == [9, 99, 199] && out[1, 0] == [9, 99, 199])
        #expect(out[2, 0] == image[2, 0] && out[3, 0] == image[3, 0])
    }

    @Test func withoutAMaskTheFramePassesUnchanged() throws {
        let image = try TestImages.random(width: 3, height: 3, format: .rgb8, seed: 3)
        let r = try runner()
        r.add(image, tag: "IMAGE", at: 0)
        try r.run()
        #expect(try Self.output(r).packedBytes() == image.packedBytes())
    }

    @Test func refusesWhatItCannotMix() throws {
        let image = try TestImages.random(width: 2, height: 2, format: .rgb8)
        let mask = try ImageFrame.grayFloat(width: 2, height: 2, values: [0, 0.5, 1, 0.5])
        let badMask = try TestImages.random(width: 2, height: 2, format: .rgb8)
        for (options, m, words) in [
            ("mask_low: 0.6 mask_high: 0.4", mask, "mask_low"), ("color { r: 300 g: 0 b: 0 }", mask, "color"), ("", badMask, "MASK"),
        ] {
            let r = try runner(options)
            r.add(image, tag: "IMAGE", at: 0)
            r.add(m, tag: "MASK", at: 0)
            let error = #expect(throws: (any Error).self) { try r.run() }
            #expect(String(describing: error).contains(words), "\(options): \(String(describing: error))")
        }
    }

    /// Mask levels outside 0…1 are refused when the graph is built.
    @Test(arguments: [
        ("mask_low: -2", "mask_low"), ("mask_high: 3e38", "mask_high"), ("mask_low: 0.5 mask_high: 0.5", "mask_high"),
        ("mask_low: -1e308", "mask_low"), ("mask_high: 1e39", "mask_high"),
    ])
    func refusesMaskLevelsOutsideTheirRange(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "BackgroundCompositeCalculator" input_stream: "IMAGE:in" input_stream: "MASK:m" output_stream: "IMAGE:out"
            options { [frameflow.BackgroundCompositeCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
