import Foundation
import FrameFlow
import FrameFlowTestSupport
import Testing

/// Float masks (`grayFloat32`): OpenCV's bilinear resize (fixtures from cv2.resize), the 8-bit
/// conversion and the summary written to JSON Lines, each against a formula or OpenCV.
@Suite struct ImageFrameGrayFloatTests {
    struct Fixture: Decodable {
        struct Mask: Decodable {
            var width: Int
            var height: Int
            var values: [Float]
        }
        var source: Mask
        var cases: [Mask]
    }

    @Test func bilinearResizeMatchesOpenCV() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("segmentation/opencv_linear_resize.json")))
        let f = try JSONDecoder().decode(Fixture.self, from: data)
        let src = try ImageFrame.grayFloat(width: f.source.width, height: f.source.height, values: f.source.values)
        #expect(f.cases.count == 10)
        for c in f.cases {
            let got = try src.resizedBilinear(width: c.width, height: c.height)
            #expect(got.width == c.width && got.height == c.height && got.format == .grayFloat32)
            let v = try got.grayFloatValues()
            let worst = zip(v, c.values).map { abs($0 - $1) }.max() ?? .infinity
            #expect(v.count == c.values.count && worst <= 1e-6, "\(c.width)×\(c.height): worst difference \(worst)")
        }
    }

    @Test func bilinearResizeFormulaOnARamp() throws {
        // A horizontal ramp 0, 1, 2, 3 doubled in width: OpenCV's centres-aligned taps give
        // x_src = (x + 0.5) / 2 − 0.5, clamped to [0, 3].
        let src = try ImageFrame.grayFloat(width: 4, height: 1, values: [0, 1, 2, 3])
        let v = try src.resizedBilinear(width: 8, height: 2).grayFloatValues()
        let want = (0..<8).map { x in Float(min(max((Double(x) + 0.5) / 2 - 0.5, 0), 3)) }
        #expect(Array(v[0..<8]) == want && Array(v[8..<16]) == want)
    }

    @Test func resizeRefusesOtherFormats() throws {
        var m = try ImagePool.shared.makeImage(width: 2, height: 2, format: .gray8)
        m.fill(1)
        let image = m.freeze()
        #expect(throws: ImageError.unsupportedFormat(.gray8, "resizedBilinear")) { try image.resizedBilinear(width: 4, height: 4) }
        #expect(throws: ImageError.self) { try ImageFrame.grayFloat(width: 2, height: 2, values: [1, 2, 3]) }
    }

    @Test func gray8IsValueTimes255ClampedAndRounded() throws {
        let values: [Float] = [0, 1, 0.5, 0.25, -0.5, 1.5, .nan, 0.002, 0.998, 1 / 255, 127.5 / 255, 0.1]
        let got = try ImageFrame.grayFloat(width: 4, height: 3, values: values).grayFloatToGray8()
        #expect(got.format == .gray8 && got.width == 4 && got.height == 3)
        let want = values.map { v -> UInt8 in v.isNaN ? 0 : UInt8(min(max(v * 255, 0), 255).rounded()) }
        #expect(got.packedBytes() == want)
        #expect(Array(got.packedBytes().prefix(6)) == [0, 255, 128, 64, 0, 255])
    }

    @Test func summaryAndJSONObject() throws {
        let values: [Float] = [0, 0.5, 0.49, 1, 0.75, 0.25]
        let mask = try ImageFrame.grayFloat(width: 3, height: 2, values: values)
        let s = try #require(mask.maskSummary)
        #expect(abs(s.mean - values.map(Double.init).reduce(0, +) / 6) < 1e-9)
        #expect(s.foregroundFraction == 3.0 / 6)
        let json = mask.jsonObject
        #expect(json["width"] as? Int == 3 && json["height"] as? Int == 2 && json["format"] as? String == "gray_f32")
        #expect(json["mean"] as? Double == s.mean && json["foreground_fraction"] as? Double == 0.5)

        var rgb = try ImagePool.shared.makeImage(width: 5, height: 1, format: .rgb8)
        rgb.fill(9)
        let other = rgb.freeze().jsonObject
        #expect(other["format"] as? String == "rgb8" && other["width"] as? Int == 5 && other["mean"] == nil)
    }
}
