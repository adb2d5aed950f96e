import FuzzSupport
import Foundation
import FrameFlowCalculators

/// OpenCV cascade XML; a cascade that loads is also built into a detector.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let c = try? CascadeClassifier(xml: Data(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.xml") {
        _ = HaarCascadeDetector(cascade: c)
    }
    return 0
}

@_cdecl("fuzz_cascade_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
