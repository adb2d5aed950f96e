/// Which categories a classifier reports, as MediaPipe Tasks' `ClassifierOptions`: at most
/// `maxResults` (−1: all), those scoring at least `scoreThreshold` (nil: the model's own
/// threshold), only the `categoryAllowlist` names or none of the `categoryDenylist` names.
public struct ClassifierOptions: Sendable, Equatable {
    /// How many categories to keep, best first; −1 keeps all (0 is refused, as MediaPipe).
    public var maxResults = -1
    /// The lowest score kept; nil: the threshold the model's metadata gives, else none.
    public var scoreThreshold: Float?
    /// Only these category names (empty: every name). Excludes `categoryDenylist`.
    public var categoryAllowlist: [String] = []
    /// None of these category names. Excludes `categoryAllowlist`.
    public var categoryDenylist: [String] = []

    /// Every category, the model's threshold.
    public init() {}

    /// The `classifier_options` text of a task graph's options; `name` prefixes the option
    /// names in errors (`cannedGesturesClassifierOptions`).
    func graphOptions(_ name: String) throws -> String {
        guard maxResults != 0, maxResults >= -1, maxResults <= Int(Int32.max) else {
            throw TaskError.invalidOption(name: "\(name).maxResults", reason: "\(maxResults) is not -1 (all) or 1…\(Int32.max)")
        }
        guard categoryAllowlist.isEmpty || categoryDenylist.isEmpty else {
            throw TaskError.invalidOption(name: "\(name).categoryAllowlist", reason: "an allowlist and a denylist exclude each other")
        }
        var text = "max_results: \(maxResults)"
        if let t = scoreThreshold {
            guard t.isFinite else { throw TaskError.invalidOption(name: "\(name).scoreThreshold", reason: "\(t) is not a finite score") }
            text += " score_threshold: \(t)"
        }
        for c in categoryAllowlist { text += " category_allowlist: \(TaskRunner.quoted(c))" }
        for c in categoryDenylist { text += " category_denylist: \(TaskRunner.quoted(c))" }
        return text
    }
}
