import FuzzSupport
import Foundation
import FrameFlowML

/// ONNX models: load (protobuf, graph, initializers), then run on zeros when inputs are small.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let m = try? Model(onnx: Data(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.onnx") else { return 0 }
    var feeds: [String: Tensor] = [:]
    for i in m.inputs {
        guard let shape = i.shape, shape.allSatisfy({ $0 != nil && $0! <= 64 }), shape.map({ $0! }).reduce(1, *) <= 4096 else { return 0 }
        feeds[i.name] = Tensor(shape: shape.map { $0! }, floats: Array(repeating: 0.5, count: shape.map { $0! }.reduce(1, *)))
    }
    _ = try? m.run(feeds)
    return 0
}

@_cdecl("fuzz_onnx_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
