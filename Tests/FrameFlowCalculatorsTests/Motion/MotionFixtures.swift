import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport

/// The motion fixtures: OpenCV's motion boxes (`Tests/Fixtures/motion/expected.json`, written by
/// `scripts/fixtures/make_motion_fixtures.py --expected`), vtest.avi's frames in grey
/// (`.build/fixtures/motion/vtest_gray.raw`, `scripts/setup.sh test`) and the synthetic sequence.
enum MotionFixtures {
    struct Options: Decodable {
        var frameHeight: Int, blurKernelSize: Int, frameAlpha: Double, threshold: Int, dilation: Int, minArea: Int
        var lightningThreshold: Double
        var mask: [[[Double]]]

        var parameters: MotionDetector.Parameters {
            var p = MotionDetector.Parameters()
            p.frameHeight = frameHeight
            p.blurKernelSize = blurKernelSize
            p.frameAlpha = frameAlpha
            p.threshold = threshold
            p.dilation = dilation
            p.minArea = minArea
            p.lightningThreshold = lightningThreshold
            p.mask = mask.map { $0.map { Point(x: $0[0], y: $0[1]) } }
            return p
        }
    }
    struct Frame: Decodable {
        var boxes: [[Int]]
        var lightning: Bool
    }
    struct Sequence: Decodable {
        var width: Int, height: Int
        var options: Options
        var frames: [Frame]
    }
    struct Expected: Decodable {
        var opencv: String
        var vtest: Sequence
        var synthetic: Sequence
    }

    static func expected() throws -> Expected {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("motion/expected.json"))))
    }

    /// vtest.avi: 795 frames of 768 × 576.
    static let clipPath = RepositoryFiles.built("motion/vtest_gray.raw")
    static let clipFrames = 795, clipWidth = 768, clipHeight = 576

    /// Frames `range` of vtest.avi in grey (OpenCV's `COLOR_BGR2GRAY` of its decoder's frames).
    static func vtest(_ range: Range<Int>) throws -> [ImageFrame] {
        guard let file = FileHandle(forReadingAtPath: clipPath) else {
            throw GraphError(.calculatorFailed, "\(clipPath) missing: run scripts/setup.sh test")
        }
        defer { try? file.close() }
        let size = clipWidth * clipHeight
        try file.seek(toOffset: UInt64(range.lowerBound * size))
        return try range.map { i in
            guard let data = try file.read(upToCount: size), data.count == size else {
                throw GraphError(.calculatorFailed, "\(clipPath): frame \(i) is short")
            }
            return try gray(Array(data), width: clipWidth, height: clipHeight)
        }
    }

    /// A gray8 image of `pixels` (rows packed).
    static func gray(_ pixels: [UInt8], width: Int, height: Int) throws -> ImageFrame {
        let buffer = ImageBuffer(byteCount: width * height)
        pixels.withUnsafeBytes { buffer.baseAddress.copyMemory(from: $0.baseAddress!, byteCount: width * height) }
        return try ImageFrame(
            width: width, height: height, format: .gray8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: width, rows: height)])
    }

    /// Frame `t` of the synthetic sequence (160 × 120), as `synthetic_frame` in the script.
    static func syntheticPixels(_ t: Int, width w: Int = 160, height h: Int = 120) -> [UInt8] {
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var f = (x * 3 + y * 5 + (x * y) % 23) % 160 + 40 + t / 6
                if (5...40).contains(t), (30..<42).contains(y), ((10 + 2 * t)..<(22 + 2 * t)).contains(x) { f = 250 }
                if (10...50).contains(t), ((75 + t / 2)..<(83 + t / 2)).contains(y), (130..<140).contains(x) { f = 5 }
                if t >= 45 { f += 100 }
                px[y * w + x] = UInt8(min(max(f, 0), 255))
            }
        }
        return px
    }
}
