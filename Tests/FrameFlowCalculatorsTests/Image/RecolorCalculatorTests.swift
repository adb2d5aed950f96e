import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// RecolorCalculator: MediaPipe's per-pixel blend (8-bit rounding, luminance, inversion) written
/// out here, the mask channels and sizes it reads, and what it refuses.
@Suite struct RecolorCalculatorTests {
    func runner(_ options: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "RecolorCalculator"
                input_stream: "IMAGE:image"
                input_stream: "MASK:mask"
                output_stream: "IMAGE:recolored"
                options { [mediapipe.RecolorCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
    }

    /// MediaPipe's blend of one channel value `c` with `paint`, weight `w` (already inverted)
    /// and luminance factor `l`: each product rounded half to even and clamped, then the sum.
    static func expected(_ c: UInt8, _ paint: Int, w: Float, l: Float) -> UInt8 {
        let m = Double(w * l)
        func sat(_ v: Double) -> Double { min(max(v.rounded(.toNearestOrEven), 0), 255) }
        return UInt8(min(sat(Double(c) * (1 - m)) + sat(Double(paint) * m), 255))
    }

    static func luminance(_ p: [UInt8]) -> Float {
        Float((0.299 * Double(p[0]) + 0.587 * Double(p[1]) + 0.114 * Double(p[2])) / 255)
    }

    @Test(arguments: [(false, true), (true, true), (false, false), (true, false)])
    func blendsEveryPixel(invert: Bool, adjust: Bool) throws {
        let image = try TestImages.random(width: 5, height: 3, format: .rgb8, seed: 7)
        let weights: [Float] = (0..<15).map { Float($0) / 14 }
        let r = try runner("color { r: 10 g: 200 b: 255 } invert_mask: \(invert) adjust_with_luminance: \(adjust)")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 5, height: 3, values: weights), tag: "MASK", at: 0)
        try r.run()
        let out = try #require(r.outputs("IMAGE").first).get(ImageFrame.self)
        #expect(out.format == .rgb8 && out.width == 5 && out.height == 3)
        let paint = [10, 200, 255]
        for y in 0..<3 {
            for x in 0..<5 {
                let p = image[x, y]
                let w = invert ? 1 - weights[y * 5 + x] : weights[y * 5 + x]
                let l: Float = adjust ? Self.luminance(p) : 1
                let want = (0..<3).map { Self.expected(p[$0], paint[$0], w: w, l: l) }
                #expect(out[x, y] == want, "(\(x), \(y))")
            }
        }
    }

    @Test func eightBitMasksAtTheirChannelAndAnotherSize() throws {
        // A uniform mask resizes to itself, so the weight is known at every pixel.
        let image = try TestImages.random(width: 6, height: 4, format: .rgba8, seed: 3)
        for (format, channel, options) in [(PixelFormat.rgba8, 3, "mask_channel: ALPHA"), (.rgba8, 0, "mask_channel: RED"), (.gray8, 0, "")] {
            var mask = try ImagePool.shared.makeImage(width: 3, height: 2, format: format)
            mask.fill(40)
            for y in 0..<2 { mask.withMutableRow(y) { row in for x in 0..<3 { row[x * format.bytesPerPixel() + channel] = 200 } } }
            let r = try runner("color { r: 255 g: 0 b: 0 } adjust_with_luminance: false \(options)")
            r.add(image, tag: "IMAGE", at: 0)
            r.add(mask.freeze(), tag: "MASK", at: 0)
            try r.run()
            let out = try #require(r.outputs("IMAGE").first).get(ImageFrame.self)
            let w = Float(200.0 / 255.0)
            for (x, y) in [(0, 0), (5, 3), (2, 1)] {
                let p = image[x, y]
                #expect(Array(out[x, y].prefix(3)) == (0..<3).map { Self.expected(p[$0], [255, 0, 0][$0], w: w, l: 1) }, "\(format) \(options)")
                #expect(out[x, y][3] == p[3], "alpha kept")
            }
        }
    }

    @Test func bgraImagesBlendTheirRedGreenAndBlue() throws {
        let image = try TestImages.random(width: 2, height: 2, format: .bgra8, seed: 5)
        let r = try runner("color { r: 0 g: 0 b: 255 }")
        r.add(image, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 2, height: 2, values: [1, 1, 1, 1]), tag: "MASK", at: 0)
        try r.run()
        let out = try #require(r.outputs("IMAGE").first).get(ImageFrame.self)
        let p = image[1, 1]
        let rgb = [p[2], p[1], p[0]]
        let l = Self.luminance(rgb)
        let want = [Self.expected(rgb[2], 255, w: 1, l: l), Self.expected(rgb[1], 0, w: 1, l: l), Self.expected(rgb[0], 0, w: 1, l: l), p[3]]
        #expect(out[1, 1] == want)
    }

    @Test func passesTheImageThroughWithoutAMask() throws {
        let image = try TestImages.random(width: 2, height: 2, format: .rgb8)
        let r = try runner("color { r: 0 g: 0 b: 255 }")
        r.add(image, tag: "IMAGE", at: 2)
        try r.run()
        let out = r.outputs("IMAGE")
        #expect(out.map(\.timestamp) == [2])
        #expect(try out.first?.get(ImageFrame.self).packedBytes() == image.packedBytes())
    }

    @Test func refusesAMissingColourAndUnreadableInputs() throws {
        #expect {
            let r = try runner("invert_mask: true")
            try r.run()
        } throws: { "\($0)".contains("color is required") }

        let gray = try TestImages.random(width: 2, height: 2, format: .gray8)
        let r = try runner("color { r: 1 g: 2 b: 3 }")
        r.add(gray, tag: "IMAGE", at: 0)
        r.add(try ImageFrame.grayFloat(width: 2, height: 2, values: [1, 1, 1, 1]), tag: "MASK", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'image'") && "\($0)".contains("rgb8, rgba8 or bgra8") }

        let alpha = try runner("color { r: 1 g: 2 b: 3 } mask_channel: ALPHA")
        alpha.add(try TestImages.random(width: 2, height: 2, format: .rgb8), tag: "IMAGE", at: 0)
        alpha.add(try TestImages.random(width: 2, height: 2, format: .rgb8), tag: "MASK", at: 0)
        #expect { try alpha.run() } throws: { "\($0)".contains("stream 'mask'") && "\($0)".contains("needs a mask with alpha") }
    }
}
