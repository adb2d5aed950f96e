import Foundation

/// Reads a calculator's `Options` from a text-format message.
///
/// The default value (`Options()`) is encoded, the file's fields are laid over it, and
/// the result is decoded; so fields the file leaves out keep their defaults. Field names
/// are snake_case in files and camelCase in Swift. Fields the options type does not have
/// and values of the wrong type are errors naming the node, the field and its position.
/// Repeated message fields of options (`var zone: [Zone] = []` with `Zone: CalculatorOptions`):
/// the file's elements are checked against the element type's fields and start from its defaults.
protocol RepeatedOptionsMessage {
    static var elementDefault: any CalculatorOptions { get }
}

extension Array: RepeatedOptionsMessage where Element: CalculatorOptions {
    static var elementDefault: any CalculatorOptions { Element() }
}

enum OptionsDecoding {
    static func decode<O: CalculatorOptions>(
        _ type: O.Type, from message: TextMessage, node: String
    ) throws -> O {
        let defaults = O()
        let schema = Schema(reflecting: defaults)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let base = try JSONSerialization.jsonObject(with: try encoder.encode(defaults)) as? [String: Any] ?? [:]
        let merged = try overlay(base, message, schema: schema, proto: O.protoSchema, node: node, path: "")
        let data = try JSONSerialization.data(withJSONObject: merged)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return try decoder.decode(O.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, message: message, node: node)
        }
    }

    /// The fields an options type has, found by reflecting its default value.
    struct Schema {
        var fields: [String: (isArray: Bool, nested: Schema?, type: String)] = [:]
        /// For repeated message fields whose elements are options types: an element's defaults,
        /// laid under each element the file writes.
        var elementDefaults: [String: [String: Any]] = [:]
        var isOpen = false  // unknown shape (a nil optional struct): accept any field

        init(reflecting value: Any) {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .struct || mirror.displayStyle == .class else {
                isOpen = true
                return
            }
            for child in mirror.children {
                guard var label = child.label else { continue }
                if label.hasPrefix("_") { label.removeFirst() }  // property wrappers
                let typeName = String(describing: Swift.type(of: child.value))
                let isArray = typeName.hasPrefix("Array<") || typeName.hasPrefix("Optional<Array<")
                var nested: Schema?
                let inner = Mirror(reflecting: child.value)
                if inner.displayStyle == .struct {
                    nested = Schema(reflecting: child.value)
                } else if let repeated = Swift.type(of: child.value) as? any RepeatedOptionsMessage.Type {
                    let element = repeated.elementDefault
                    nested = Schema(reflecting: element)
                    elementDefaults[snake(label)] = OptionsDecoding.json(element)
                } else if inner.displayStyle == .optional {
                    if let some = inner.children.first {
                        if Mirror(reflecting: some.value).displayStyle == .struct { nested = Schema(reflecting: some.value) }
                    } else if !Self.isScalarName(typeName) {
                        var open = Schema(reflecting: 0)
                        open.isOpen = true
                        nested = open
                    }
                }
                fields[snake(label)] = (isArray, nested, typeName)
            }
        }

        init() {}

        private static func isScalarName(_ t: String) -> Bool {
            ["Int", "Int32", "Int64", "UInt", "UInt8", "UInt32", "UInt64", "Double", "Float", "Bool", "String"]
                .contains { t == "Optional<\($0)>" } || t.hasPrefix("Optional<Array<")
        }
    }

    /// `base` with `message`'s fields laid over it; `proto` (the options' protobuf schema, where
    /// they have one) bounds 32-bit integer fields.
    private static func overlay(
        _ base: [String: Any], _ message: TextMessage, schema: Schema, proto: ProtoSchema?, node: String, path: String
    ) throws -> [String: Any] {
        var out = base
        var grouped: [String: [TextField]] = [:]
        var order: [String] = []
        for f in message.fields {
            if f.isExtension {
                throw GraphError(.unknownOption, "option '\(path)[\(f.name)]': extensions are not options fields", node: node, location: f.location)
            }
            if grouped[f.name] == nil { order.append(f.name) }
            grouped[f.name, default: []].append(f)
        }
        for name in order {
            let fields = grouped[name]!
            let full = path.isEmpty ? name : "\(path).\(name)"
            let spec = schema.isOpen ? (isArray: fields.count > 1, nested: Schema?(nil), type: "") : schema.fields[name]
            guard let spec else {
                let known = schema.fields.keys.sorted()
                let hint = nearestName(to: name, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw GraphError(
                    .unknownOption, "unknown option '\(full)'\(hint); known: \(known.joined(separator: ", "))",
                    node: node, location: fields[0].location)
            }
            if !spec.isArray, fields.count > 1 {
                throw GraphError(
                    .invalidOption, "option '\(full)' is not repeated but is given \(fields.count) times", node: node, location: fields[1].location)
            }
            var values: [Any] = []
            for f in fields {
                switch f.value.kind {
                case .message(let m):
                    let nestedBase: [String: Any]
                    if !spec.isArray, let b = base[name] as? [String: Any] {
                        nestedBase = b
                    } else {
                        nestedBase = schema.elementDefaults[name] ?? [:]
                    }
                    var nestedSchema = spec.nested ?? Schema()
                    if spec.nested == nil { nestedSchema.isOpen = true }
                    var nestedProto: ProtoSchema?
                    if case .message(let p)? = proto?.fields.first(where: { $0.name == name })?.kind { nestedProto = p }
                    values.append(try overlay(nestedBase, m, schema: nestedSchema, proto: nestedProto, node: node, path: full))
                case .string(let s): values.append(s)
                case .identifier(let s):
                    if s == "true" { values.append(true) } else if s == "false" { values.append(false) } else { values.append(s) }
                case .number(let raw):
                    let lower = raw.lowercased()
                    if lower.contains("inf") || lower.contains("nan") {
                        values.append(lower.hasPrefix("-") ? "-inf" : (lower.contains("nan") ? "nan" : "inf"))
                    } else if let i = Int(raw) {
                        // A protobuf 32-bit field holds what MediaPipe's parser would: no more.
                        let kind = proto?.fields.first { $0.name == name }?.kind
                        if let range = Self.range32(kind), !range.contains(i) {
                            throw GraphError(
                                .invalidOption,
                                "option '\(full)': \(raw) is out of range for its protobuf type \(kind.map { "\($0)" } ?? "")"
                                    + " (\(range.lowerBound)...\(range.upperBound))",
                                node: node, location: f.value.location)
                        }
                        values.append(i)
                    } else if Self.isIntegerType(spec.type) {
                        throw GraphError(
                            .invalidOption, "option '\(full)' has the wrong type: expected an integer, found \(raw)", node: node,
                            location: f.value.location)
                    } else if let d = TextFormatParser.numberValue(raw) {
                        if spec.type.contains("Float"), d.isFinite, abs(d) > Double(Float.greatestFiniteMagnitude) {
                            throw GraphError(
                                .invalidOption, "option '\(full)': \(raw) is out of range for a 32-bit float", node: node, location: f.value.location)
                        }
                        values.append(d)
                    } else {
                        throw GraphError(.invalidOption, "option '\(full)': '\(raw)' is not a number", node: node, location: f.value.location)
                    }
                }
            }
            out[name] = spec.isArray ? values : values[0]
        }
        return out
    }

    private static func describe(_ error: DecodingError, message: TextMessage, node: String) -> GraphError {
        func locate(_ path: [any CodingKey]) -> (String, SourceLocation?) {
            var msg: TextMessage? = message
            var loc: SourceLocation?
            var names: [String] = []
            for key in path {
                if key.intValue != nil, key.stringValue.hasPrefix("Index") { continue }
                let name = snake(key.stringValue)
                names.append(name)
                guard let m = msg, let f = m.fields.last(where: { $0.name == name }) else { msg = nil; continue }
                loc = f.value.location
                if case .message(let inner) = f.value.kind { msg = inner } else { msg = nil }
            }
            return (names.joined(separator: "."), loc)
        }
        switch error {
        case let .typeMismatch(type, ctx), let .valueNotFound(type, ctx):
            let (name, loc) = locate(ctx.codingPath)
            return GraphError(.invalidOption, "option '\(name)' has the wrong type: expected \(type)", node: node, location: loc)
        case let .dataCorrupted(ctx):
            let (name, loc) = locate(ctx.codingPath)
            return GraphError(.invalidOption, "option '\(name)' has an invalid value: \(ctx.debugDescription)", node: node, location: loc)
        case let .keyNotFound(key, ctx):
            let (name, loc) = locate(ctx.codingPath)
            let full = name.isEmpty ? snake(key.stringValue) : "\(name).\(snake(key.stringValue))"
            return GraphError(.invalidOption, "option '\(full)' is required", node: node, location: loc ?? message.location)
        @unknown default:
            return GraphError(.invalidOption, "invalid options: \(error)", node: node, location: message.location)
        }
    }

    /// `value` as a JSON object (snake_case keys, non-finite numbers as strings), as `decode` lays it.
    static func json(_ value: any CalculatorOptions) -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(value) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// Where the element field a validation message starts with (`zone[1].point[0].x must be …`)
    /// is written in `message`: the path's last field found; nil when the path names no
    /// repeated element (the node's own line is then as near) or its first field is not there.
    static func location(ofFieldIn text: String, in message: TextMessage) -> SourceLocation? {
        guard var word = text.split(separator: " ").first, word.contains("[") else { return nil }
        while word.hasSuffix(":") || word.hasSuffix(",") { word = word.dropLast() }
        var msg: TextMessage? = message
        var found: SourceLocation?
        for part in word.split(separator: ".") {
            var name = Substring(part)
            var index = 0
            if let open = part.firstIndex(of: "["), part.hasSuffix("]") {
                name = part[..<open]
                index = Int(part[part.index(after: open)..<part.index(before: part.endIndex)]) ?? 0
            }
            guard let m = msg else { break }
            let matches = m.fields(named: String(name))
            guard index < matches.count else { break }
            found = matches[index].value.location
            if case .message(let inner) = matches[index].value.kind { msg = inner } else { msg = nil }
        }
        return found
    }

    /// The values a protobuf 32-bit integer kind holds; nil for other kinds.
    static func range32(_ kind: ProtoField.Kind?) -> ClosedRange<Int>? {
        switch kind {
        case .int32?, .sint32?, .sfixed32?: Int(Int32.min)...Int(Int32.max)
        case .uint32?, .fixed32?: 0...Int(UInt32.max)
        default: nil
        }
    }

    static func isIntegerType(_ t: String) -> Bool {
        var t = Substring(t)
        if t.hasPrefix("Optional<") { t = t.dropFirst(9).dropLast() }
        if t.hasPrefix("Array<") { t = t.dropFirst(6).dropLast() }
        return ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"].contains(String(t))
    }

    /// `maxInFlight` → `max_in_flight`.
    static func snake(_ s: String) -> String {
        var out = ""
        for c in s {
            if c.isUppercase {
                if !out.isEmpty { out.append("_") }
                out.append(contentsOf: c.lowercased())
            } else {
                out.append(c)
            }
        }
        return out
    }
}
