import FuzzSupport
import FrameFlowML

/// TFLite flatbuffers: load (tables, vectors, buffers, options).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Model(tflite: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.tflite")
    return 0
}

@_cdecl("fuzz_tflite_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
