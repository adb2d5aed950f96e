import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// InkBoundsCalculator: the region on synthetic blobs against the documented formula (bounding
/// box, value-weighted centre of mass, MNIST's 20-in-28 frame), the threshold, isolated pixels,
/// dark ink with `invert` (option and side packet), colour input, the empty canvas and bad options.
@Suite struct InkBoundsCalculatorTests {
    /// A filled rectangle [x0, x1) × [y0, y1) of grey `value`.
    struct Blob {
        var x0, y0, x1, y1: Int
        var value: UInt8
    }

    /// A `width` × `height` gray8 canvas of `background` with `blobs` drawn in order.
    static func canvas(_ width: Int, _ height: Int, _ blobs: [Blob], background: UInt8 = 0) throws -> ImageFrame {
        try TestImages.make(width: width, height: height, format: .gray8) { x, y, _ in
            blobs.last { x >= $0.x0 && x < $0.x1 && y >= $0.y0 && y < $0.y1 }?.value ?? background
        }
    }

    /// The formula for non-overlapping blobs: the box of their union, the centre of mass of
    /// uniform rectangles (their centres weighted by value × area), the side
    /// max(box) · 28 / 20 and the centre moved up-left by side / 56 (the centre of mass lands
    /// on the centre of frame pixel 14).
    static func expected(_ blobs: [Blob], width: Int, height: Int) -> NormalizedRect {
        let minX = blobs.map(\.x0).min()!, maxX = blobs.map(\.x1).max()!
        let minY = blobs.map(\.y0).min()!, maxY = blobs.map(\.y1).max()!
        let mass = blobs.map { Double($0.value) * Double(($0.x1 - $0.x0) * ($0.y1 - $0.y0)) }
        let cx = zip(blobs, mass).map { Double($0.x0 + $0.x1) / 2 * $1 }.reduce(0, +) / mass.reduce(0, +)
        let cy = zip(blobs, mass).map { Double($0.y0 + $0.y1) / 2 * $1 }.reduce(0, +) / mass.reduce(0, +)
        let side = Double(max(maxX - minX, maxY - minY)) * 28 / 20
        return NormalizedRect(
            xCenter: (cx - side / 56) / Double(width), yCenter: (cy - side / 56) / Double(height), width: side / Double(width),
            height: side / Double(height))
    }

    static func close(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        abs(a.xCenter - b.xCenter) < 1e-9 && abs(a.yCenter - b.yCenter) < 1e-9 && abs(a.width - b.width) < 1e-9
            && abs(a.height - b.height) < 1e-9 && a.rotation == 0
    }

    static let cases: [(width: Int, height: Int, blobs: [Blob])] = [
        (28, 28, [Blob(x0: 4, y0: 4, x1: 24, y1: 24, value: 255)]),
        (96, 64, [Blob(x0: 50, y0: 10, x1: 58, y1: 40, value: 200)]),  // tall: the height sets the side
        (120, 80, [Blob(x0: 5, y0: 60, x1: 70, y1: 72, value: 255)]),  // wide, near the bottom-left corner
        (
            300, 200,
            [Blob(x0: 100, y0: 50, x1: 140, y1: 60, value: 255), Blob(x0: 100, y0: 60, x1: 110, y1: 150, value: 130)]
        ),  // an L of two values: the centre of mass leans to the bright bar
        (512, 512, [Blob(x0: 0, y0: 0, x1: 10, y1: 10, value: 255), Blob(x0: 400, y0: 300, x1: 500, y1: 420, value: 180)]),
    ]

    @Test(arguments: cases.indices)
    func regionFollowsTheFormula(_ i: Int) throws {
        let c = Self.cases[i]
        let want = Self.expected(c.blobs, width: c.width, height: c.height)
        let o = InkBoundsCalculator.Options()
        let got = InkBoundsCalculator.bounds(try Self.canvas(c.width, c.height, c.blobs), options: o, invert: false)
        #expect(Self.close(got, want), "\(got) ≠ \(want)")
        // Dark ink on a light canvas, inverted: the same region.
        let dark = c.blobs.map { Blob(x0: $0.x0, y0: $0.y0, x1: $0.x1, y1: $0.y1, value: 255 - $0.value) }
        let light = try Self.canvas(c.width, c.height, dark, background: 255)
        #expect(Self.close(InkBoundsCalculator.bounds(light, options: o, invert: true), want))
        // Faint marks below the threshold and isolated specks change nothing.
        let specks = c.blobs + [Blob(x0: c.width - 3, y0: c.height - 2, x1: c.width - 2, y1: c.height - 1, value: 255)]
        let faint = [Blob(x0: 0, y0: c.height - 4, x1: c.width, y1: c.height, value: 127)] + specks
        #expect(Self.close(InkBoundsCalculator.bounds(try Self.canvas(c.width, c.height, faint), options: o, invert: false), want))
    }

    /// The threshold is inclusive; a kept isolated pixel moves the box; the frame's sizes set the
    /// side and the shift (an odd frame has its centre pixel at the centre: no shift).
    @Test func thresholdIsolatedPixelsAndFrame() throws {
        let bar = Blob(x0: 20, y0: 10, x1: 30, y1: 50, value: 140)
        let speck = Blob(x0: 70, y0: 70, x1: 71, y1: 71, value: 255)
        let image = try Self.canvas(80, 80, [bar, speck])
        var o = InkBoundsCalculator.Options()
        o.threshold = 140
        #expect(Self.close(InkBoundsCalculator.bounds(image, options: o, invert: false), Self.expected([bar], width: 80, height: 80)))
        o.threshold = 141
        let none = InkBoundsCalculator.bounds(image, options: o, invert: false)
        #expect(none == NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), "one speck alone is not ink")
        o.threshold = 128
        o.ignoreIsolatedPixels = false
        let kept = try #require(InkBoundsCalculator.ink(image, options: o, invert: false))
        #expect(kept.minX == 20 && kept.maxX == 70 && kept.minY == 10 && kept.maxY == 70 && kept.count == 401)
        let mass = 140.0 * 400 + 255
        #expect(abs(kept.centerX - (140 * 400 * 25 + 255 * 70.5) / mass) < 1e-9)
        o.ignoreIsolatedPixels = true
        o.boxSize = 10
        o.frameSize = 15
        let r = InkBoundsCalculator.bounds(image, options: o, invert: false)
        #expect(abs(r.height * 80 - 40 * 1.5) < 1e-9 && abs(r.xCenter * 80 - 25) < 1e-9 && abs(r.yCenter * 80 - 30) < 1e-9)
    }

    /// The node: colour input, `invert` from the side packet over the option, the `INK` image
    /// (255 − value when inverted), and the whole image for an empty canvas.
    @Test func nodeInvertsFromTheSidePacketAndEmitsTheInk() throws {
        let blob = Blob(x0: 10, y0: 20, x1: 30, y1: 30, value: 0)
        let grey = try Self.canvas(64, 48, [blob], background: 230)
        let rgba = try TestImages.make(width: 64, height: 48, format: .rgba8) { x, y, c in c == 3 ? 255 : grey[x, y][0] }
        let blank = try Self.canvas(64, 48, [], background: 230)
        let r = try CalculatorRunner(
            node: """
                calculator: "InkBoundsCalculator"
                input_stream: "IMAGE:image"
                input_side_packet: "INVERT:dark"
                output_stream: "NORM_RECT:rect"
                output_stream: "INK:ink"
                """, registry: .standard)
        r.setSidePacket(true, tag: "INVERT")
        r.add(rgba, tag: "IMAGE", at: 0)
        r.add(blank, tag: "IMAGE", at: 1)
        try r.run()
        let rects = try r.outputs("NORM_RECT").map { try $0.get(NormalizedRect.self) }
        let want = Self.expected([Blob(x0: 10, y0: 20, x1: 30, y1: 30, value: 255)], width: 64, height: 48)
        #expect(rects.count == 2 && Self.close(rects[0], want), "\(rects)")
        #expect(rects.last == NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1))
        let ink = try #require(r.outputs("INK").first).get(ImageFrame.self)
        #expect(ink.format == .gray8 && ink[15, 25] == [255] && ink[0, 0] == [25])
        // Without the side packet the option holds: light ink wanted, the paper is all ink.
        let plain = try CalculatorRunner(InkBoundsCalculator.self, inputs: ["IMAGE:image"], outputs: ["NORM_RECT:rect"])
        plain.add(grey, tag: "IMAGE", at: 0)
        try plain.run()
        let paper = try #require(plain.outputs("NORM_RECT").first).get(NormalizedRect.self)
        #expect(abs(paper.width * 64 - 64 * 1.4) < 1e-9)
    }

    @Test func badOptionsAreClearErrors() throws {
        for (edit, field) in [
            ({ (o: inout InkBoundsCalculator.Options) in o.threshold = 0 }, "threshold"), ({ $0.threshold = 256 }, "threshold"),
            ({ $0.boxSize = 0 }, "box_size"), ({ $0.frameSize = 10 }, "frame_size"),
        ] {
            var o = InkBoundsCalculator.Options()
            edit(&o)
            #expect { try InkBoundsCalculator(options: o) } throws: { "\($0)".contains(field) }
        }
        #expect {
            try CalculatorRunner(
                node:
                    #"calculator: "InkBoundsCalculator" input_stream: "IMAGE:i" output_stream: "NORM_RECT:r" options { [frameflow.InkBoundsCalculatorOptions.ext] { treshold: 3 } }"#,
                registry: .standard
            ).run()
        } throws: { "\($0)".contains("treshold") }
    }

    /// Box and frame sizes outside their ranges (a region of infinite size) are refused when
    /// the graph is built; the edges run.
    @Test(arguments: [
        ("box_size: 1e-300", "box_size"), ("box_size: 0", "box_size"), ("frame_size: 1e308", "frame_size"),
        ("box_size: 20 frame_size: 19", "frame_size"), ("threshold: 0", "threshold"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "InkBoundsCalculator" input_stream: "IMAGE:in" output_stream: "NORM_RECT:r"
            options { [frameflow.InkBoundsCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    @Test(arguments: ["box_size: 1 frame_size: 10000", "box_size: 10000 frame_size: 10000"])
    func edgesOfTheRangesRun(options: String) throws {
        let r = try CalculatorRunner(
            node: """
                calculator: "InkBoundsCalculator" input_stream: "IMAGE:in" output_stream: "NORM_RECT:r"
                options { [frameflow.InkBoundsCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        r.add(
            try TestImages.make(width: 9, height: 9, format: .gray8) { x, y, _ in (3...5).contains(x) && (2...6).contains(y) ? 255 : 0 },
            tag: "IMAGE", at: 0)
        try r.run()
        let rect = try r.outputs("NORM_RECT")[0].get(NormalizedRect.self)
        #expect([rect.xCenter, rect.yCenter, rect.width, rect.height].allSatisfy(\.isFinite) && rect.width > 0, "\(rect)")
    }
}
