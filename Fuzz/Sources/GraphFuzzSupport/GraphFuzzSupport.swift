import FrameFlow
import FrameFlowCalculators

/// The standard calculators, made once (`CalculatorRegistry.standard` is a new registry on
/// each use).
public let standardRegistry = CalculatorRegistry.standard

/// What fuzz-graph and fuzz-binarygraph do with one input: `decode` it as a graph, then build
/// it against the standard calculators and draw it. Always 0, libFuzzer's "keep going".
public func fuzzGraph(_ decode: () throws -> GraphConfig) -> CInt {
    if let config = try? decode() {
        _ = try? Graph(config, registry: standardRegistry)
        _ = config.dot()
    }
    return 0
}
