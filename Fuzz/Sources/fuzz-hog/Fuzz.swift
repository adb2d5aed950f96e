import FuzzSupport
import Foundation
import FrameFlow
import FrameFlowCalculators

/// A 40×40 colour image with edges in every direction (a bright disc on a ramp) and a fixed
/// ripple, so every orientation bin gets votes.
let rgb: ImageFrame = {
    var m = try! ImagePool.shared.makeImage(width: 40, height: 40, format: .rgb8)
    for y in 0..<40 {
        m.withMutableRow(y) { row in
            for x in 0..<40 {
                let d = (x - 20) * (x - 20) + (y - 20) * (y - 20)
                let v = (d < 144 ? 220 : x * 4 + y) + ((x &* 7919 &+ y &* 104_729) >> 3) & 15
                row[3 * x] = UInt8(v & 255)
                row[3 * x + 1] = UInt8((v &* 3) & 255)
                row[3 * x + 2] = UInt8((255 - v) & 255)
            }
        }
    }
    return m.freeze()
}()

/// OpenCV HOGDescriptor XML: parse, then what loads computes a descriptor and detects on the
/// 40×40 image (every level that holds the window, padding, grouping).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let hog = try? HOGDescriptor(xml: Data(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.xml") else { return 0 }
    if hog.windowSize.width <= 40 && hog.windowSize.height <= 40 { _ = try? hog.compute(rgb, locations: [(0, 0)]) }
    _ = try? hog.detectMultiScale(rgb, parameters: .init(hitThreshold: -1, padding: .init(4, 4), scale: 1.2, groupThreshold: 1))
    return 0
}

@_cdecl("fuzz_hog_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
