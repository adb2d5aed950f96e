import FuzzSupport
import FrameFlowInference
import ModelFuzzSupport

/// TFLite flatbuffers: load (tables, vectors, buffers, options), then run once on small inputs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzModel { try Model.load(tflite: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.tflite", limits: limits) }
}

@_cdecl("fuzz_tflite_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
