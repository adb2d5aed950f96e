import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Expected values follow the formulas of mediapipe/calculators/util/rect_transformation_calculator.cc.
@Suite struct RectTransformationCalculatorTests {
    typealias Calc = RectTransformationCalculator

    static func options(_ edit: (inout Calc.Options) -> Void) -> Calc.Options {
        var o = Calc.Options()
        edit(&o)
        return o
    }

    /// The output packets after one `input` packet (and `size`, when given) at timestamp 0.
    func run(_ value: any Sendable, tag: String, size: ImageSize? = nil, _ options: Calc.Options) throws -> [Packet] {
        let inputs = ["\(tag):in"] + (size == nil ? [] : ["IMAGE_SIZE:s"])
        let runner = try CalculatorRunner(Calc.self, options: options, inputs: inputs, outputs: ["out"])
        runner.add(value, tag: tag, at: 0)
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        try runner.run()
        return runner.outputs()
    }

    func transformed(_ rect: NormalizedRect, size: ImageSize, _ options: Calc.Options) throws -> NormalizedRect {
        try run(rect, tag: "NORM_RECT", size: size, options)[0].get(NormalizedRect.self)
    }

    func expectClose(_ a: NormalizedRect, _ b: NormalizedRect, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let pairs = [(a.xCenter, b.xCenter), (a.yCenter, b.yCenter), (a.width, b.width), (a.height, b.height), (a.rotation, b.rotation)]
        #expect(pairs.allSatisfy { abs($0.0 - $0.1) < 1e-9 }, "\(a) ≠ \(b)", sourceLocation: sourceLocation)
    }

    @Test func unrotatedShiftAndScale() throws {
        let o = Self.options {
            $0.scaleX = 2
            $0.scaleY = 0.5
            $0.shiftX = 0.5
            $0.shiftY = -0.25
        }
        let r = try transformed(
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4), size: .init(width: 100, height: 100), o)
        // Centre moves by half a width right and a quarter height up; then the sides scale.
        expectClose(r, NormalizedRect(xCenter: 0.6, yCenter: 0.4, width: 0.4, height: 0.2))
        // The default options change nothing.
        let same = NormalizedRect(xCenter: 0.3, yCenter: 0.7, width: 0.2, height: 0.1, rotation: 0.5, rectID: 7)
        #expect(try transformed(same, size: .init(width: 64, height: 32), .init()) == same)
    }

    /// A rect turned a quarter turn on a 200×100 image: its x side points down the image, so
    /// shift_x moves the centre down by half its width in pixels (0.2 × 200 / 2 = 20 px =
    /// 0.2 of the height). Shifting in fractions would give 0.1.
    @Test func shiftFollowsTheRotatedSideInPixels() throws {
        let o = Self.options { $0.shiftX = 0.5 }
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4, rotation: Double.pi / 2)
        let r = try transformed(rect, size: .init(width: 200, height: 100), o)
        expectClose(r, NormalizedRect(xCenter: 0.5, yCenter: 0.7, width: 0.2, height: 0.4, rotation: Double.pi / 2))
        // shift_y on the same rect moves it left (its y side points left): 0.4 × 100 / 2 = 20 px = 0.1 of the width.
        let y = try transformed(rect, size: .init(width: 200, height: 100), Self.options { $0.shiftY = 0.5 })
        #expect(abs(y.xCenter - 0.4) < 1e-9 && abs(y.yCenter - 0.5) < 1e-9)
    }

    /// The added rotation turns the shift but, as in MediaPipe, the output keeps the input's rotation.
    @Test func addedRotationTurnsTheShiftOnly() throws {
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2)
        let degrees = try transformed(
            rect, size: .init(width: 100, height: 100),
            Self.options {
                $0.rotationDegrees = 90
                $0.shiftX = 0.5
            })
        expectClose(degrees, NormalizedRect(xCenter: 0.5, yCenter: 0.6, width: 0.2, height: 0.2))
        let radians = try transformed(
            rect, size: .init(width: 100, height: 100),
            Self.options {
                $0.rotation = -Double.pi / 2
                $0.shiftX = 0.5
            })
        expectClose(radians, NormalizedRect(xCenter: 0.5, yCenter: 0.4, width: 0.2, height: 0.2))
    }

    /// 0.3 × 0.4 of a 200×100 image is 60 × 40 px: square_long makes it 60 px square (0.3 × 0.6),
    /// square_short 40 px (0.2 × 0.4). Comparing fractions would pick 0.4 and 0.3.
    @Test func squaringComparesPixelSides() throws {
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.3, height: 0.4)
        let size = ImageSize(width: 200, height: 100)
        let long = try transformed(
            rect, size: size,
            Self.options {
                $0.squareLong = true
                $0.scaleX = 2
                $0.scaleY = 2
            })
        expectClose(long, NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.6, height: 1.2))
        let short = try transformed(rect, size: size, Self.options { $0.squareShort = true })
        expectClose(short, NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4))
        // square_long: false is set but does nothing.
        expectClose(try transformed(rect, size: size, Self.options { $0.squareLong = false }), rect)
    }

    @Test func pixelRectsTruncateLikeInt32Fields() throws {
        let o = Self.options {
            $0.shiftX = 0.1
            $0.shiftY = 0.5
            $0.scaleX = 1.5
            $0.scaleY = 1.5
        }
        // 100 + 31 × 0.1 = 103.1 → 103; 100 + 15 = 115; 31 × 1.5 = 46.5 → 46; 30 × 1.5 = 45.
        let r = try run(RotatedRect(xCenter: 100, yCenter: 100, width: 31, height: 30), tag: "RECT", o)[0].get(RotatedRect.self)
        #expect(r == RotatedRect(xCenter: 103, yCenter: 115, width: 46, height: 45))
        // Rotated a quarter turn: shift_x moves down.
        let turned = try run(
            [RotatedRect(xCenter: 100, yCenter: 100, width: 40, height: 20, rotation: Double.pi / 2)], tag: "RECTS",
            Self.options {
                $0.shiftX = 0.5
                $0.squareLong = true
            })[0].get([RotatedRect].self)
        #expect(turned == [RotatedRect(xCenter: 100, yCenter: 120, width: 40, height: 40, rotation: Double.pi / 2)])
    }

    @Test func normalizedVectorsAndMissingImageSize() throws {
        let rects = [
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4),
            NormalizedRect(xCenter: 0.25, yCenter: 0.25, width: 0.1, height: 0.1),
        ]
        let o = Self.options { $0.scaleX = 2 }
        let out = try run(rects, tag: "NORM_RECTS", size: .init(width: 10, height: 10), o)[0].get([NormalizedRect].self)
        #expect(out.count == 2)
        expectClose(out[0], NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.4))
        expectClose(out[1], NormalizedRect(xCenter: 0.25, yCenter: 0.25, width: 0.2, height: 0.1))
        // A timestamp without an IMAGE_SIZE packet gives nothing.
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: ["NORM_RECT:in", "IMAGE_SIZE:s"], outputs: ["out"])
        runner.add(rects[0], tag: "NORM_RECT", at: 0)
        runner.add(rects[0], tag: "NORM_RECT", at: 1)
        runner.add(ImageSize(width: 10, height: 10), tag: "IMAGE_SIZE", at: 1)
        try runner.run()
        #expect(runner.outputs().map(\.timestamp.microseconds) == [1])
    }

    @Test func badOptionsAndPortsAreErrors() throws {
        let rotation = #expect(throws: GraphError.self) {
            try Self.options {
                $0.rotation = 1
                $0.rotationDegrees = 90
            }.validate()
        }
        #expect(rotation?.kind == .invalidOption && rotation?.message.contains("rotation_degrees") == true)
        let square = #expect(throws: GraphError.self) {
            try Self.options {
                $0.squareLong = false
                $0.squareShort = true
            }.validate()
        }
        #expect(square?.kind == .invalidOption && square?.message.contains("square_short") == true)
        // A normalized rect needs IMAGE_SIZE; exactly one rect input.
        let noSize = thrownDescription {
            _ = try run(NormalizedRect(xCenter: 0, yCenter: 0, width: 1, height: 1), tag: "NORM_RECT", .init())
        }
        #expect(noSize?.contains("IMAGE_SIZE") == true)
        let two = try CalculatorRunner(Calc.self, inputs: ["RECT:a", "RECTS:b"], outputs: ["out"])
        #expect(throws: (any Error).self) { try two.run() }
    }

    @Test func graphFileAndBinaryOptions() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:r" input_stream: "IMAGE_SIZE:s"
                output_stream: "out"
                options { [mediapipe.RectTransformationCalculatorOptions.ext] { scale_x: 2 scale_y: 2 shift_y: -0.5 square_long: true } }
                """, registry: .standard)
        runner.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.2), tag: "NORM_RECT", at: 0)
        runner.add(ImageSize(width: 100, height: 100), tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        expectClose(try runner.outputs()[0].get(NormalizedRect.self), NormalizedRect(xCenter: 0.5, yCenter: 0.4, width: 0.4, height: 0.4))

        let o = try binaryGraphOptions(
            "RectTransformationCalculator", ports: (["RECT:r"], ["out"]), ext: 262226312, as: Calc.Options.self
        ) { w in
            w.float(1, 2.5)
            w.int(4, 90)
            w.float(6, -0.5)
            w.int(7, 1)
        }
        let expected = Self.options {
            $0.scaleX = 2.5
            $0.rotationDegrees = 90
            $0.shiftY = -0.5
            $0.squareLong = true
        }
        #expect(o == expected)
    }

    static let node = """
        calculator: "RectTransformationCalculator"
        input_stream: "NORM_RECT:r"
        input_stream: "IMAGE_SIZE:s"
        output_stream: "out"
        """

    /// Scales, shifts and added rotations outside their ranges are refused when the graph is
    /// built (as `frameflow validate` builds it), naming the field.
    @Test(arguments: [
        ("scale_x: 1e308", "scale_x"), ("scale_y: -1", "scale_y"), ("shift_x: 1001", "shift_x"), ("shift_y: -1e30", "shift_y"),
        ("rotation: 1e30", "rotation"), ("rotation_degrees: 2147483647", "rotation_degrees"), ("scale_x: nan", "scale_x"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(Self.node + "\noptions { [mediapipe.RectTransformationCalculatorOptions.ext] { \(options) } }")
        expectInvalidOption(e, naming: field, options)
    }

    /// The edges of the ranges run and give finite rects.
    @Test func edgesOfTheRangesRun() throws {
        let o = Self.options {
            $0.scaleX = 1000
            $0.scaleY = 0
            $0.shiftX = -1000
            $0.shiftY = 1000
            $0.rotationDegrees = -360
        }
        try o.validate()
        let r = try transformed(
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: 0.3), size: ImageSize(width: 64, height: 48), o)
        #expect([r.xCenter, r.yCenter, r.width, r.height].allSatisfy(\.isFinite) && r.height == 0, "\(r)")
    }
}
