import FrameFlow

/// What building a graph reports, for tests of option checks and graph validation.
///
/// ```swift
/// let errors = GraphBuildErrors.of("node { calculator: \"FlowLimiterCalculator\" … }", registry: .standard)
/// #expect(errors.first?.kind == .invalidOption)
/// ```
public enum GraphBuildErrors {
    /// The errors building the graph text `text` (named `file` in them) reports, in order;
    /// empty when it builds. An error that is not a `GraphError` (a calculator's own) comes
    /// back as `.calculatorFailed` with its description.
    public static func of(
        _ text: String, file: String = "graph.pbtxt", registry: CalculatorRegistry,
        environment: GraphEnvironment = GraphEnvironment()
    ) -> [GraphError] {
        do {
            _ = try Graph(GraphConfig(parsing: text, file: file), registry: registry, environment: environment)
            return []
        } catch let e as GraphErrors {
            return e.errors
        } catch let e as GraphError {
            return [e]
        } catch {
            return [GraphError(.calculatorFailed, "\(error)")]
        }
    }

    /// The first `.invalidOption` error building `text` reports, else its first error; nil
    /// when it builds.
    public static func firstOptionError(
        _ text: String, file: String = "graph.pbtxt", registry: CalculatorRegistry
    ) -> GraphError? {
        let errors = of(text, file: file, registry: registry)
        return errors.first { $0.kind == .invalidOption } ?? errors.first
    }
}
