/// A positional argument: the bare words of the command line, in declaration order. One
/// without a default must be given; an optional one may be left out; an array one takes every
/// remaining word (declare it last).
///
/// ```swift
/// @Argument(valueName: "GRAPH", help: "the graph file (.pbtxt)") var graph: String
/// ```
@propertyWrapper public struct Argument<Value>: ArgumentDeclaration {
    let box: ArgumentBox<Value>
    let declare: (String) -> ArgumentDefinition

    /// The parsed value.
    public var wrappedValue: Value {
        get { box.unwrapped }
        nonmutating set { box.value = newValue }
    }

    public func definitions(label: String) -> [ArgumentDefinition] { [declare(label)] }
}

extension Argument where Value: ExpressibleByArgument {
    /// A positional argument that must be given.
    /// - Parameters:
    ///   - valueName: its name in usage (`GRAPH`); the property's name upper-cased by default.
    ///   - help: what it is.
    ///   - expecting: the end of the message for a bad value.
    ///   - valid: a check on the parsed value.
    public init(valueName: String? = nil, help: String, expecting: String? = nil, valid: ((Value) -> Bool)? = nil) {
        let box = ArgumentBox<Value>(nil)
        self.box = box
        declare = { label in
            makeDefinition(
                .positional, name: label, valueName: valueName ?? kebabCase(label).uppercased(), help: help, repeatable: false,
                required: true, defaultDescription: nil, allowed: nil, expecting: expecting, valid: valid, hidden: false
            ) { box.value = $0 }
        }
    }
}

extension Argument {
    /// A positional argument that may be left out (nil then).
    public init<T: ExpressibleByArgument>(valueName: String? = nil, help: String, expecting: String? = nil, valid: ((T) -> Bool)? = nil)
    where Value == T? {
        let box = ArgumentBox<Value>(.some(nil))
        self.box = box
        declare = { label in
            makeDefinition(
                .positional, name: label, valueName: valueName ?? kebabCase(label).uppercased(), help: help, repeatable: false,
                required: false, defaultDescription: nil, allowed: nil, expecting: expecting, valid: valid, hidden: false
            ) { box.value = .some($0) }
        }
    }

    /// Every remaining positional word, in order (none is fine).
    public init<T: ExpressibleByArgument>(
        wrappedValue: [T] = [], valueName: String? = nil, help: String, allowedValues: [String]? = nil, expecting: String? = nil
    ) where Value == [T] {
        let box = ArgumentBox<Value>(wrappedValue)
        self.box = box
        declare = { label in
            makeDefinition(
                .positional, name: label, valueName: valueName ?? kebabCase(label).uppercased(), help: help, repeatable: true,
                required: false, defaultDescription: nil, allowed: allowedValues, expecting: expecting, valid: nil, hidden: false
            ) { v in
                if box.isSet { box.value = (box.value ?? []) + [v] } else { box.value = [v] }
                box.isSet = true
            }
        }
    }
}
