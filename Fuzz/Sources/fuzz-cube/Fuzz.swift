import FuzzSupport
import FrameFlow
import FrameFlowCalculators

/// Test images for the LUT: 20 pixels wide, so a row takes the sixteen-pixel blocks and the
/// per-pixel tail of the kernels, in 4-byte (rgba8) and 3-byte (rgb8) pixels.
let images: [ImageFrame] = [PixelFormat.rgba8, .rgb8].map { format in
    var m = try! ImagePool.shared.makeImage(width: 20, height: 8, format: format)
    for y in 0..<m.height {
        m.withMutableRow(y) { row in
            for i in row.indices { row[i] = UInt8(truncatingIfNeeded: i &* 37 &+ y &* 101) }
        }
    }
    return m.freeze()
}

/// .cube LUT files: parse, then apply what loads to small images through `LUTCalculator`'s
/// code path, with both interpolations and a partial intensity.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let lut = try? CubeLUT(text: text, file: "fuzz.cube") else { return 0 }
    for image in images {
        for mode in LUTCalculator.LUTInterpolation.allCases {
            _ = try? LUTCalculator.apply(lut, to: image, interpolation: mode)
        }
        _ = try? LUTCalculator.apply(lut, to: image, intensity: 0.5)
    }
    return 0
}

@_cdecl("fuzz_cube_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
