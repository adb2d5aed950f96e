/// One field of a calculator's options as a graph file writes it: its snake_case name, its type
/// and its default (what `frameflow calculators` shows, as `gst-inspect` shows properties).
public struct OptionField: Sendable, Equatable, CustomStringConvertible {
    /// The field's name in graph files (`max_in_flight`).
    public var name: String
    /// Its type: `int`, `int32`, `double`, `float`, `bool`, `string`, an enum's values
    /// (`NONE|SIGMOID`), a nested message's Swift type; `[T]` when repeated, `T?` when optional.
    public var type: String
    /// The value a node gets when its file does not set the field (`unset` for an optional).
    public var defaultValue: String

    /// A field as given.
    public init(name: String, type: String, defaultValue: String) {
        (self.name, self.type, self.defaultValue) = (name, type, defaultValue)
    }

    /// `name: type = default`.
    public var description: String { "\(name): \(type) = \(defaultValue)" }

    /// The fields of `options`, in declaration order, read from its default value.
    /// An enum's values come from the options' protobuf schema where it has one.
    public static func fields(of options: any CalculatorOptions.Type) -> [OptionField] {
        let proto = options.protoSchema
        return Mirror(reflecting: options.init()).children.compactMap { child in
            guard var label = child.label else { return nil }
            if label.hasPrefix("_") { label.removeFirst() }  // property wrappers
            let name = OptionsDecoding.snake(label)
            var type = typeName(of: child.value)
            if case .enumeration(let values)? = proto?.fields.first(where: { $0.name == name })?.kind {
                type = values.sorted { $0.key < $1.key }.map(\.value).joined(separator: "|")
            }
            return OptionField(name: name, type: type, defaultValue: describe(child.value))
        }
    }

    /// The file-format name of `value`'s type.
    static func typeName(of value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            let inner = String(describing: Swift.type(of: value)).dropFirst("Optional<".count).dropLast()
            return scalar(String(inner)) + "?"
        }
        if let array = value as? [Any] {
            let element = String(describing: Swift.type(of: value)).dropFirst("Array<".count).dropLast()
            return "[" + (array.first.map(typeName(of:)) ?? scalar(String(element))) + "]"
        }
        if let cases = (Swift.type(of: value) as? any CaseIterable.Type)?.allCases {
            let names = cases.map { rawText($0) }
            if !names.isEmpty { return names.joined(separator: "|") }
        }
        return scalar(String(describing: Swift.type(of: value)))
    }

    /// `Int` → `int`, `Double` → `double`, …; other types by their Swift name.
    static func scalar(_ swiftName: String) -> String {
        let names = [
            "Int": "int", "Int32": "int32", "Int64": "int64", "UInt32": "uint32", "UInt64": "uint64", "Double": "double",
            "Float": "float", "Bool": "bool", "String": "string",
        ]
        return names[swiftName] ?? swiftName
    }

    /// `value` as a graph file would write it.
    static func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.map { describe($0.value) } ?? "unset" }
        if let s = value as? String { return "\"\(s)\"" }
        if let array = value as? [Any] { return "[" + array.map(describe).joined(separator: ", ") + "]" }
        if mirror.displayStyle == .struct || mirror.displayStyle == .class {
            return "{ "
                + mirror.children.compactMap { c in c.label.map { "\(OptionsDecoding.snake($0)): \(describe(c.value))" } }
                .joined(separator: " ") + " }"
        }
        return rawText(value)
    }

    /// An enum case by its raw value (`SIGMOID`), anything else as Swift prints it.
    static func rawText(_ value: Any) -> String {
        if let raw = (value as? any RawRepresentable)?.rawValue { return "\(raw)" }
        return "\(value)"
    }
}
