/// One declared option, flag or positional argument as the parser and the help see it: its
/// name, value name, help, default and how a value is stored.
public struct ArgumentDefinition {
    /// What the command line gives for it.
    public enum Kind: Sendable {
        /// `--name VALUE` or `--name=VALUE`.
        case option
        /// `--name`, no value.
        case flag
        /// A bare word, by position.
        case positional
    }

    /// Option, flag or positional.
    public var kind: Kind
    /// The long name without dashes (`output`); a positional's is its property name.
    public var name: String
    /// The value's name in usage (`FILE`, `N`).
    public var valueName: String
    /// One or two lines of help.
    public var help: String
    /// Whether it may be given more than once (its values collect in order).
    public var isRepeatable: Bool
    /// Whether it must be given.
    public var isRequired: Bool
    /// The default, shown in help.
    public var defaultDescription: String?
    /// The only values accepted (shown in help); nil: any the type accepts.
    public var allowedValues: [String]?
    /// Left out of the help.
    public var isHidden: Bool
    /// The end of the error message for a bad value, after the option's name ("needs a
    /// whole number").
    public var expectation: String
    /// Parses and stores a value; false when the value is not acceptable. A flag's is called
    /// with an empty string.
    let store: (String) -> Bool

    /// `--name` for options and flags, the value name for positionals.
    public var displayName: String { kind == .positional ? valueName : (name.count == 1 ? "-" : "--") + name }

    /// How it appears in a usage line: `--output DST`, `[--realtime]`, `GRAPH`, `[--input SRC]...`.
    public var synopsis: String {
        var s: String
        switch kind {
        case .option: s = "\(displayName) \(valueName)"
        case .flag: s = displayName
        case .positional: s = valueName
        }
        if !isRequired { s = "[\(s)]" }
        if isRepeatable { s += "..." }
        return s
    }
}

/// Something declared in a command (`Option`, `Flag`, `Argument`, `OptionGroup`): the
/// definitions it contributes, named after its property's `label` unless it names itself.
public protocol ArgumentDeclaration {
    /// Its definitions; `label` is the property's name (without the wrapper's underscore).
    func definitions(label: String) -> [ArgumentDefinition]
}

/// `maxFramesInFlight` → `max-frames-in-flight`.
func kebabCase(_ name: String) -> String {
    var out = ""
    for c in name {
        if c.isUppercase {
            if !out.isEmpty { out.append("-") }
            out.append(contentsOf: c.lowercased())
        } else {
            out.append(c)
        }
    }
    return out
}
