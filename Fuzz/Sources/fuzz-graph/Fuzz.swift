import FuzzSupport
import FrameFlow
import GraphFuzzSupport

/// Graph text: parse, then validate against the standard calculators.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    return fuzzGraph { try GraphConfig(parsing: text, file: "fuzz.pbtxt") }
}

@_cdecl("fuzz_graph_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
