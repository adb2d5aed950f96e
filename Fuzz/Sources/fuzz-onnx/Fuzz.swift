import FuzzSupport
import Foundation
import FrameFlowInference
import ModelFuzzSupport

/// ONNX models: load (protobuf, graph, initializers), then run once on small inputs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzModel { try Model.load(onnx: Data(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.onnx", limits: limits) }
}

@_cdecl("fuzz_onnx_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
