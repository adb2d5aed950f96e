import FuzzSupport
import Foundation
import FrameFlow
import FrameFlowCalculators

/// A 48×48 gray image with structure (a bright square crossed by a dark bar) and a fixed
/// ripple, so windows pass the variance check and features see edges at every scale.
let gray: ImageFrame = {
    var m = try! ImagePool.shared.makeImage(width: 48, height: 48, format: .gray8)
    for y in 0..<48 {
        m.withMutableRow(y) { row in
            for x in 0..<48 {
                let inside = (12..<36).contains(x) && (12..<36).contains(y)
                let base = inside ? ((20..<28).contains(y) ? 40 : 200) : 90
                row[x] = UInt8(base + ((x &* 7919 &+ y &* 104_729) >> 3) & 15)
            }
        }
    }
    return m.freeze()
}()

/// OpenCV cascade XML: parse, then detect on the 48×48 image with what loads (every scale
/// from the window up, all stages, grouping).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let c = try? CascadeClassifier(xml: Data(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.xml") else { return 0 }
    _ = try? HaarCascadeDetector(cascade: c).detect(gray, parameters: .init(scaleFactor: 1.2, minNeighbors: 1))
    return 0
}

@_cdecl("fuzz_cascade_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
