import FuzzSupport
import FrameFlowCalculators

/// .cube LUT files.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? CubeLUT(text: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self), file: "fuzz.cube")
    return 0
}

@_cdecl("fuzz_cube_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
