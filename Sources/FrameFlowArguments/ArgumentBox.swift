/// Where a declared property's value lives: a reference, so that the parser fills the value
/// through the definitions it read from one instance of the command and that instance sees it.
final class ArgumentBox<Value> {
    /// nil until parsed, for a required value without a default.
    var value: Value?
    /// Whether the command line gave it.
    var isSet = false

    init(_ value: Value?) { self.value = value }

    /// The value; reading a required one before parsing is a defect of the command.
    var unwrapped: Value {
        guard let value else { preconditionFailure("a required argument was read before the command was parsed") }
        return value
    }
}

/// The definition of one value of type `T`: parses with `T(argument:)`, checks `allowed` and
/// `valid`, then hands the value to `assign`.
func makeDefinition<T: ExpressibleByArgument>(
    _ kind: ArgumentDefinition.Kind, name: String, valueName: String?, help: String, repeatable: Bool, required: Bool,
    defaultDescription: String?, allowed: [String]?, expecting: String?, valid: ((T) -> Bool)?, hidden: Bool,
    assign: @escaping (T) -> Void
) -> ArgumentDefinition {
    let expectation =
        expecting ?? allowed.map { "must be one of \($0.joined(separator: ", "))" } ?? "needs \(T.expectation)"
    return ArgumentDefinition(
        kind: kind, name: name, valueName: valueName ?? (kind == .positional ? name.uppercased() : "VALUE"), help: help,
        isRepeatable: repeatable, isRequired: required, defaultDescription: defaultDescription, allowedValues: allowed,
        isHidden: hidden, expectation: expectation,
        store: { text in
            if let allowed, !allowed.contains(text) { return false }
            guard let v = T(argument: text), valid?(v) ?? true else { return false }
            assign(v)
            return true
        })
}
