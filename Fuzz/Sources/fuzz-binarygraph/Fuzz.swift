import FuzzSupport
import FrameFlow
import FrameFlowCalculators

/// Binary graphs (`.binarypb`): decode with the standard calculators' options schemas, then
/// build and draw the graph, as a text graph is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let config = try? GraphConfig(binary: bytes, file: "fuzz.binarypb", registry: .standard) {
        _ = try? Graph(config, registry: .standard)
        _ = config.dot()
    }
    return 0
}

@_cdecl("fuzz_binarygraph_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
