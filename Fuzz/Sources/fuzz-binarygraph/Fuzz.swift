import FuzzSupport
import FrameFlow
import FrameFlowCalculators
import GraphFuzzSupport

/// Binary graphs (`.binarypb`): decode with the standard calculators' options schemas, then
/// build and draw the graph, as a text graph is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzGraph { try GraphConfig(binary: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.binarypb", registry: standardRegistry) }
}

@_cdecl("fuzz_binarygraph_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
