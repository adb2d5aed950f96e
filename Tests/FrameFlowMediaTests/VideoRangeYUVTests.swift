import FrameFlow
@testable import FrameFlowMedia
import FrameFlowTesting
import Foundation
import Testing

/// The encoder's RGBA/BGRA/grey → YUV 4:2:0 conversion (`ff_rgbx_rows_to_yuv420`,
/// `ff_gray_to_video_luma`) at every kernel level this machine runs, against the BT.601
/// video-range formulas evaluated in Double.
@Suite struct VideoRangeYUVTests {
    static let levels = KernelLevel.available

    /// Y, U and V planes of `image` (tightly packed).
    static func planes(_ image: ImageFrame) -> (y: [UInt8], u: [UInt8], v: [UInt8]) {
        let (w, h) = (image.width, image.height)
        var y = [UInt8](repeating: 0, count: w * h), u = [UInt8](repeating: 0, count: w * h / 4), v = u
        y.withUnsafeMutableBufferPointer { yp in
            u.withUnsafeMutableBufferPointer { up in
                v.withUnsafeMutableBufferPointer { vp in
                    VideoRangeYUV.convert(
                        image, y: yp.baseAddress!, yStride: w, u: up.baseAddress!, v: vp.baseAddress!, uvStride: w / 2)
                }
            }
        }
        return (y, u, v)
    }

    /// `x` rounded, or nil when it lies within 0.001 of a half (a fixed-point sum may round either way).
    static func rounded(_ x: Double) -> Int? {
        abs(x - x.rounded(.down) - 0.5) < 0.001 ? nil : Int(x.rounded())
    }

    /// Every plane byte equals the formula (±1 only where the exact value is a half).
    static func check(_ image: ImageFrame, red: Int, green: Int, blue: Int, level: KernelLevel) {
        let (y, u, v) = KernelLevel.withThreadLevel(level) { planes(image) }
        let w = image.width
        for row in 0..<image.height {
            for x in 0..<w {
                let p = image[x, row].map(Double.init)
                let exact = 16 + 219.0 / 255 * (0.299 * p[red] + 0.587 * p[green] + 0.114 * p[blue])
                let got = Int(y[row * w + x])
                if let want = rounded(exact) { #expect(got == want, "Y at (\(x), \(row))") } else { #expect(abs(Double(got) - exact) <= 0.5 + 0.001) }
            }
        }
        for row in 0..<image.height / 2 {
            for x in 0..<w / 2 {
                var (r, g, b) = (0.0, 0.0, 0.0)
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = image[2 * x + dx, 2 * row + dy].map(Double.init)
                    (r, g, b) = (r + p[red] / 4, g + p[green] / 4, b + p[blue] / 4)
                }
                let cb = 128 + 224.0 / 255 * (-0.299 / 1.772 * r - 0.587 / 1.772 * g + 0.5 * b)
                let cr = 128 + 224.0 / 255 * (0.5 * r - 0.587 / 1.402 * g - 0.114 / 1.402 * b)
                for (plane, exact, name) in [(u, cb, "U"), (v, cr, "V")] {
                    let got = Int(plane[row * w / 2 + x])
                    if let want = rounded(exact) {
                        #expect(got == want, "\(name) at (\(x), \(row))")
                    } else {
                        #expect(abs(Double(got) - exact) <= 0.5 + 0.001)
                    }
                }
            }
        }
    }

    /// Random RGBA and BGRA with padded rows, 70 pixels wide (two vector blocks of 16 pairs and
    /// three pairs one at a time).
    @Test(arguments: levels)
    func colourMatchesTheFormula(level: KernelLevel) throws {
        let rgba = try TestImages.random(width: 70, height: 6, format: .rgba8, extraStride: 12, seed: 7)
        Self.check(rgba, red: 0, green: 1, blue: 2, level: level)
        Self.check(try TestImages.random(width: 70, height: 6, format: .bgra8, extraStride: 4, seed: 8), red: 2, green: 1, blue: 0, level: level)
    }

    /// Saturated colours reach the ends of the ranges: Y 16…235, U and V 16…240.
    @Test(arguments: levels)
    func extremes(level: KernelLevel) throws {
        let colours: [[UInt8]] = [
            [0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255],
        ]
        let image = try TestImages.make(width: 2 * 34, height: 2 * colours.count, format: .rgba8) { x, y, c in
            c == 3 ? 255 : colours[(y / 2 + x / 2) % colours.count][c]
        }
        Self.check(image, red: 0, green: 1, blue: 2, level: level)
        let (y, u, v) = KernelLevel.withThreadLevel(level) { Self.planes(image) }
        #expect(y.min() == 16 && y.max() == 235)
        #expect(u.min() == 16 && u.max() == 240 && v.min() == 16 && v.max() == 240)
    }

    /// Grey (gray8, and RGBA with R = G = B as the edge graph writes): Y = 16 + 219 L / 255
    /// for every L, U = V = 128.
    @Test(arguments: levels)
    func greyKeepsNeutralChroma(level: KernelLevel) throws {
        let gray = try TestImages.make(width: 64, height: 8, format: .gray8) { x, y, _ in UInt8((y * 64 + x) % 256) }
        let rgba = try TestImages.make(width: 64, height: 8, format: .rgba8) { x, y, c in c == 3 ? 9 : UInt8((y * 64 + x) % 256) }
        for image in [gray, rgba] {
            let (y, u, v) = KernelLevel.withThreadLevel(level) { Self.planes(image) }
            for (i, l) in y.enumerated() {
                #expect(Int(l) == Int((16 + 219.0 * Double(i % 256) / 255).rounded()), "L = \(i % 256)")
            }
            #expect(u.allSatisfy { $0 == 128 } && v.allSatisfy { $0 == 128 })
        }
    }

    /// Odd sizes, another size than the encoder's, and other formats are left to swscale.
    @Test func takesOnlyEvenSameSizeRGBAOrGrey() throws {
        #expect(VideoRangeYUV.converts(try TestImages.random(width: 8, height: 4, format: .bgra8), width: 8, height: 4))
        #expect(!VideoRangeYUV.converts(try TestImages.random(width: 9, height: 4, format: .rgba8), width: 9, height: 4))
        #expect(!VideoRangeYUV.converts(try TestImages.random(width: 9, height: 4, format: .rgba8), width: 8, height: 4))
        #expect(!VideoRangeYUV.converts(try TestImages.random(width: 8, height: 4, format: .rgb8), width: 8, height: 4))
    }
}
