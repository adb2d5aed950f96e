import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// WarpAffineCalculator: OpenCV's warpAffine as MediaPipe's runner calls it (fixtures from
/// scripts/fixtures/make_warp_affine_fixtures.py), the pixel matrix, and refused inputs.
@Suite struct WarpAffineCalculatorTests {
    struct Case: Decodable {
        var name: String
        var format: String
        var inputSize: [Int]
        var outputSize: [Int]
        var matrix: [Double]
        var borderMode: String
        var input: String
        var output: String
    }
    struct Fixtures: Decodable { var cases: [Case] }

    static let fixtures: [Case] = {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("pose/warp_affine.json"))) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (try? decoder.decode(Fixtures.self, from: data).cases) ?? []
    }()

    static let formats: [String: PixelFormat] = [
        "gray8": .gray8, "rgb8": .rgb8, "rgba8": .rgba8, "grayFloat32": .grayFloat32, "rgbaFloat32": .rgbaFloat32,
    ]

    func image(_ bytes: [UInt8], width: Int, height: Int, format: PixelFormat) throws -> ImageFrame {
        var m = try ImagePool().makeImage(width: width, height: height, format: format)
        let rowBytes = width * format.bytesPerPixel()
        for y in 0..<height {
            m.withMutableRow(y) { row in
                for i in 0..<rowBytes { row[i] = bytes[y * rowBytes + i] }
            }
        }
        return m.freeze()
    }

    func runner(_ border: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "WarpAffineCalculator"
                input_stream: "IMAGE:image"
                input_stream: "MATRIX:matrix"
                input_stream: "OUTPUT_SIZE:size"
                output_stream: "IMAGE:warped"
                options { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: \(border) gpu_origin: TOP_LEFT } }
                """, registry: .standard)
    }

    @Test func fixturesArePresent() {
        #expect(Self.fixtures.count == 12, "Tests/Fixtures/pose/warp_affine.json")
    }

    /// Every byte equals OpenCV's (8-bit formats) and every float of four-channel images; the
    /// floats of one-channel images are within 1 ulp of OpenCV's.
    @Test(arguments: Self.fixtures.map(\.name))
    func matchesOpenCV(name: String) throws {
        let c = try #require(Self.fixtures.first { $0.name == name })
        let format = try #require(Self.formats[c.format])
        let input = try image(
            Array(try #require(Data(base64Encoded: c.input))), width: c.inputSize[0], height: c.inputSize[1], format: format)
        let expected = Array(try #require(Data(base64Encoded: c.output)))
        let r = try runner(c.borderMode)
        r.add(input, tag: "IMAGE", at: 1)
        r.add(try #require(ProjectionMatrix(c.matrix.map(Float.init))), tag: "MATRIX", at: 1)
        r.add(ImageSize(width: c.outputSize[0], height: c.outputSize[1]), tag: "OUTPUT_SIZE", at: 1)
        try r.run()
        let out = try #require(try r.outputs("IMAGE").first?.get(ImageFrame.self))
        #expect(out.width == c.outputSize[0] && out.height == c.outputSize[1] && out.format == format)
        let got = out.packedBytes()
        #expect(got.count == expected.count)
        if format == .grayFloat32 || format == .rgbaFloat32 {
            let g = got.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let e = expected.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            // cv2 4.x sums one-channel floats in another order than its scalar bilinear sum
            // (which four-channel floats still use, and FrameFlow follows): up to 1 ulp apart.
            let bound: Float = format == .grayFloat32 ? 2.5e-7 : 0
            let differing = zip(g, e).filter { abs($0 - $1) > bound * max(1, abs($1)) }.count
            let worst = zip(g, e).map { abs($0 - $1) }.max() ?? 0
            #expect(differing == 0, "\(name): \(differing) of \(e.count) floats differ from OpenCV's, by up to \(worst)")
        } else {
            let differing = zip(got, expected).filter { $0 != $1 }.count
            let worst = zip(got, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(differing == 0, "\(name): \(differing) of \(expected.count) bytes differ from OpenCV's, by up to \(worst)")
        }
    }

    /// MediaPipe's runner scales the normalized matrix to pixels: input size on the left,
    /// 1 / output size on the right.
    @Test func pixelMatrix() {
        let m = ProjectionMatrix([0.5, 0.25, 0, 0.125, -0.25, 0.5, 0, 0.375, 0, 0, 1, 0, 0, 0, 0, 1])!
        let p = WarpAffineCalculator.pixelMatrix(m, input: ImageSize(width: 64, height: 32), output: ImageSize(width: 16, height: 8))
        let expected: [Double] = [2, 2, 8, -0.5, 2, 12]  // 64·0.5/16, 64·0.25/8, 64·0.125, 32·−0.25/16, 32·0.5/8, 32·0.375
        #expect(p == expected)
    }

    /// A timestamp missing the matrix gives nothing.
    @Test func missingInputsGiveNothing() throws {
        let r = try runner("BORDER_ZERO")
        r.add(try grayImage(width: 4, height: 4), tag: "IMAGE", at: 1)
        r.add(ImageSize(width: 4, height: 4), tag: "OUTPUT_SIZE", at: 1)
        try r.run()
        #expect(r.outputs("IMAGE").isEmpty)
    }

    @Test func badInputsNameTheStream() throws {
        var r = try runner("BORDER_ZERO")
        r.add(try grayImage(width: 4, height: 4), tag: "IMAGE", at: 1)
        r.add(ProjectionMatrix.identity, tag: "MATRIX", at: 1)
        r.add(ImageSize(width: 0, height: 4), tag: "OUTPUT_SIZE", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'size'") }
        r = try runner("BORDER_ZERO")
        r.add(try ImagePool().makeImage(width: 4, height: 4, format: .nv12(.video)).freeze(), tag: "IMAGE", at: 1)
        r.add(ProjectionMatrix.identity, tag: "MATRIX", at: 1)
        r.add(ImageSize(width: 4, height: 4), tag: "OUTPUT_SIZE", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'image'") }
    }

    @Test func cubicIsRefused() throws {
        let message = thrownDescription {
            let r = try CalculatorRunner(
                node: """
                    calculator: "WarpAffineCalculator"
                    input_stream: "IMAGE:image"
                    input_stream: "MATRIX:matrix"
                    input_stream: "OUTPUT_SIZE:size"
                    output_stream: "IMAGE:warped"
                    options { [mediapipe.WarpAffineCalculatorOptions.ext] { interpolation: INTER_CUBIC } }
                    """, registry: .standard)
            try r.run()
        }
        #expect(message?.contains("INTER_CUBIC") == true)
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "WarpAffineCalculator", ports: (["IMAGE:i", "MATRIX:m", "OUTPUT_SIZE:s"], ["IMAGE:o"]), ext: 373693895,
            as: WarpAffineCalculator.Options.self
        ) { w in
            w.int(1, 1)
            w.int(2, 2)
        }
        #expect(o?.borderMode == .zero && o?.gpuOrigin == .topLeft && o?.interpolation == .unspecified)
    }
}
