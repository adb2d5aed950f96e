/// `--name VALUE` (or `--name=VALUE`): declared once with its help, parsed into the property.
/// The name is the property's in kebab case (`maxFramesInFlight` → `--max-frames-in-flight`)
/// unless given. A property with a default is optional on the command line, an optional one
/// is nil when absent, an array one collects every occurrence, and one without a default
/// must be given.
///
/// ```swift
/// @Option(valueName: "N", help: "stop after N frames", expecting: "needs a positive number", valid: { $0 > 0 })
/// var frames: Int?
/// ```
@propertyWrapper public struct Option<Value>: ArgumentDeclaration {
    let box: ArgumentBox<Value>
    let declare: (String) -> ArgumentDefinition

    /// The parsed value.
    public var wrappedValue: Value {
        get { box.unwrapped }
        nonmutating set { box.value = newValue }
    }

    public func definitions(label: String) -> [ArgumentDefinition] { [declare(label)] }
}

extension Option where Value: ExpressibleByArgument {
    /// An option with a default: `@Option(help: "…") var size = "640x480"`.
    /// - Parameters:
    ///   - name: the long name without dashes; the property's name in kebab case by default.
    ///   - valueName: the value's name in usage (`FILE`).
    ///   - help: what it does.
    ///   - allowedValues: the only values accepted, if any.
    ///   - expecting: the end of the message for a bad value (`needs a positive number`).
    ///   - valid: a check on the parsed value.
    ///   - hidden: left out of the help.
    public init(
        wrappedValue: Value, name: String? = nil, valueName: String? = nil, help: String, allowedValues: [String]? = nil,
        expecting: String? = nil, valid: ((Value) -> Bool)? = nil, hidden: Bool = false
    ) {
        let box = ArgumentBox<Value>(wrappedValue)
        self.box = box
        declare = { label in
            makeDefinition(
                .option, name: name ?? kebabCase(label), valueName: valueName, help: help, repeatable: false, required: false,
                defaultDescription: "\(wrappedValue)", allowed: allowedValues, expecting: expecting, valid: valid, hidden: hidden
            ) { box.value = $0 }
        }
    }

    /// An option that must be given.
    public init(
        name: String? = nil, valueName: String? = nil, help: String, allowedValues: [String]? = nil, expecting: String? = nil,
        valid: ((Value) -> Bool)? = nil, hidden: Bool = false
    ) {
        let box = ArgumentBox<Value>(nil)
        self.box = box
        declare = { label in
            makeDefinition(
                .option, name: name ?? kebabCase(label), valueName: valueName, help: help, repeatable: false, required: true,
                defaultDescription: nil, allowed: allowedValues, expecting: expecting, valid: valid, hidden: hidden
            ) { box.value = $0 }
        }
    }
}

extension Option {
    /// An option that may be left out (nil then): `@Option(help: "…") var output: String?`.
    public init<T: ExpressibleByArgument>(
        name: String? = nil, valueName: String? = nil, help: String, allowedValues: [String]? = nil, expecting: String? = nil,
        valid: ((T) -> Bool)? = nil, hidden: Bool = false
    ) where Value == T? {
        let box = ArgumentBox<Value>(.some(nil))
        self.box = box
        declare = { label in
            makeDefinition(
                .option, name: name ?? kebabCase(label), valueName: valueName, help: help, repeatable: false, required: false,
                defaultDescription: nil, allowed: allowedValues, expecting: expecting, valid: valid, hidden: hidden
            ) { box.value = .some($0) }
        }
    }

    /// An option given any number of times, its values in order: `@Option(help: "…") var input: [String] = []`.
    public init<T: ExpressibleByArgument>(
        wrappedValue: [T] = [], name: String? = nil, valueName: String? = nil, help: String, allowedValues: [String]? = nil,
        expecting: String? = nil, valid: ((T) -> Bool)? = nil, hidden: Bool = false
    ) where Value == [T] {
        let box = ArgumentBox<Value>(wrappedValue)
        self.box = box
        declare = { label in
            makeDefinition(
                .option, name: name ?? kebabCase(label), valueName: valueName, help: help, repeatable: true, required: false,
                defaultDescription: nil, allowed: allowedValues, expecting: expecting, valid: valid, hidden: hidden
            ) { v in
                // The first value given replaces the default; later ones add to it.
                if box.isSet { box.value = (box.value ?? []) + [v] } else { box.value = [v] }
                box.isSet = true
            }
        }
    }
}
