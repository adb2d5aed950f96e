import FrameFlow

/// Emits 0..<count, one per call: the benchmark's in-graph source.
final class CounterSource: Calculator {
    struct Options: CalculatorOptions { var count = 0; init() {} }
    static let contract = CalculatorContract(outputs: [PortSpec("")], timestampOffset: nil)
    var i = 0
    let n: Int
    init(options: Options) { n = options.count }
    func process(_ cc: CalculatorContext) throws {
        if i >= n { cc.finishSource(); return }
        try cc.emit(i, at: Timestamp(Int64(i)))
        i += 1
    }
}
