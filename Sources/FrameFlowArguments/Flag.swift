/// `--name`, no value: true when given. The name is the property's in kebab case unless given.
///
/// ```swift
/// @Flag(help: "play the input at its frame rate") var realtime = false
/// ```
@propertyWrapper public struct Flag: ArgumentDeclaration {
    let box: ArgumentBox<Bool>
    let declare: (String) -> ArgumentDefinition

    /// Whether the flag was given.
    public var wrappedValue: Bool {
        get { box.unwrapped }
        nonmutating set { box.value = newValue }
    }

    /// A flag, false unless given.
    /// - Parameters:
    ///   - name: the long name without dashes; the property's name in kebab case by default.
    ///   - help: what it does.
    ///   - hidden: left out of the help.
    public init(wrappedValue: Bool = false, name: String? = nil, help: String, hidden: Bool = false) {
        let box = ArgumentBox<Bool>(wrappedValue)
        self.box = box
        declare = { label in
            ArgumentDefinition(
                kind: .flag, name: name ?? kebabCase(label), valueName: "", help: help, isRepeatable: false, isRequired: false,
                defaultDescription: nil, allowedValues: nil, isHidden: hidden, expectation: "takes no value",
                store: { _ in
                    box.value = true
                    return true
                })
        }
    }

    public func definitions(label: String) -> [ArgumentDefinition] { [declare(label)] }
}
