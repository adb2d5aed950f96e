import FrameFlow
import FrameFlowInference

/// Elements one fuzz input may have a model hold in one tensor, and in all its inputs
/// together: 4 M (16 MB of floats; ops that widen to Double or index tables stay under
/// fuzz.sh's 1 GiB malloc limit), so that a crafted shape is a budget error, not an
/// out-of-memory report.
public let budget = 1 << 22

/// `budget` as limits, for `Model.load(…, limits:)`.
public let limits: ResourceLimits = {
    var l = ResourceLimits()
    l.maxTensorElements = budget
    return l
}()

/// What fuzz-onnx and fuzz-tflite do with one input: `load` it as a model (under `limits`),
/// then run it once on `smallInputs`. Always 0, libFuzzer's "keep going".
public func fuzzModel(_ load: () throws -> Model) -> CInt {
    guard let m = try? load(), let feeds = smallInputs(m.inputs) else { return 0 }
    _ = try? m.run(feeds)
    return 0
}

/// Each input at its declared shape, symbolic dimensions (and an undeclared shape) as 1
/// (TFLite shapes are concrete); floats 0.5, integers and booleans 0 (a valid index). Nil when
/// a declared size is negative or the inputs would hold more than `budget` elements together.
public func smallInputs(_ inputs: [ValueInfo]) -> [String: Tensor]? {
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
