/// Options shared by several commands, declared once in a `ParsableArguments` type and
/// included with `@OptionGroup var subgraphs: SubgraphOptions`.
@propertyWrapper public struct OptionGroup<Value: ParsableArguments>: ArgumentDeclaration {
    /// The group, filled by the parser.
    public var wrappedValue: Value

    /// The group with its defaults, until parsed.
    public init() { wrappedValue = Value() }

    public func definitions(label: String) -> [ArgumentDefinition] { collectDefinitions(of: wrappedValue) }
}
