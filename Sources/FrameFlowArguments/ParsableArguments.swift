/// A type whose stored properties are declared arguments (`Option`, `Flag`, `Argument`,
/// `OptionGroup`): the parser reads the declarations from an instance made with `init()`
/// and fills that instance.
public protocol ParsableArguments {
    /// An instance with every declaration at its default, for the parser to fill.
    init()
    /// Checks the parsed values together; throw `ValidationError` (status 2) for a bad one.
    mutating func validate() throws
}

extension ParsableArguments {
    public mutating func validate() throws {}
}

/// Every definition declared in `value`'s stored properties, in declaration order.
func collectDefinitions(of value: Any) -> [ArgumentDefinition] {
    Mirror(reflecting: value).children.flatMap { child -> [ArgumentDefinition] in
        guard let declaration = child.value as? any ArgumentDeclaration else { return [] }
        var label = child.label ?? ""
        if label.hasPrefix("_") { label.removeFirst() }
        return declaration.definitions(label: label)
    }
}

/// The option groups in `value`'s stored properties, to validate after parsing.
func collectGroups(of value: Any) -> [any GroupValidating] {
    Mirror(reflecting: value).children.compactMap { $0.value as? any GroupValidating }
}

/// An `OptionGroup`, whose group has its own `validate()`.
protocol GroupValidating {
    func validateGroup() throws
}

extension OptionGroup: GroupValidating {
    func validateGroup() throws {
        var group = wrappedValue
        try group.validate()
    }
}
