import FuzzSupport
import FrameFlow
import FrameFlowML

/// Elements one fuzz input may have a model hold in one tensor, and in all its inputs
/// together: 4 M (16 MB of floats; ops that widen to Double or index tables stay under
/// fuzz.sh's 1 GiB malloc limit).
let budget = 1 << 22

/// TFLite flatbuffers: load (tables, vectors, buffers, options), then run once on small inputs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if ResourceLimits.current.maxTensorElements != budget { ResourceLimits.current.maxTensorElements = budget }
    guard let m = try? Model(tflite: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.tflite"),
        let feeds = smallInputs(m.inputs)
    else { return 0 }
    _ = try? m.run(feeds)
    return 0
}

/// Each input at its declared shape (TFLite shapes are concrete; a missing one is 1): floats
/// 0.5, integers and booleans 0. Nil when the inputs would hold more than `budget` elements.
func smallInputs(_ inputs: [ValueInfo]) -> [String: Tensor]? {
    var feeds: [String: Tensor] = [:], total = 0
    for input in inputs {
        let shape = (input.shape ?? [1]).map { $0 ?? 1 }
        guard let n = ResourceLimits.elementCount(shape), n <= budget - total else { return nil }
        total += n
        let type = input.type ?? .float32
        switch type {
        case .float32, .float16, .double: feeds[input.name] = Tensor(shape: shape, floats: Array(repeating: 0.5, count: n), type: type)
        default: feeds[input.name] = Tensor(shape: shape, ints: Array(repeating: 0, count: n), type: type)
        }
    }
    return feeds
}

@_cdecl("fuzz_tflite_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
