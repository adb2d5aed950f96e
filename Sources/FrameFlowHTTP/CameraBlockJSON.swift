import Foundation

/// Turns a camera sent as JSON into the fleet file's `camera { … }` block, so that both forms
/// are read (and checked) by the same reader: strings, numbers and booleans become values,
/// objects blocks, and arrays repeated fields.
///
///     {"name": "door", "source": "door.mp4", "realtime": false,
///      "output": [{"stream": "detections", "to": "null"}]}
///
/// becomes `camera { name: "door" source: "door.mp4" realtime: false output { stream: "detections" to: "null" } }`.
enum CameraBlockJSON {
    /// A JSON value, decoded strictly (a number is never read as a boolean, nor the reverse).
    private indirect enum Value: Decodable {
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
        case object([String: Value])
        case array([Value])
        case null

        init(from decoder: any Decoder) throws {
            if let c = try? decoder.container(keyedBy: Key.self) {
                var o: [String: Value] = [:]
                for k in c.allKeys { o[k.stringValue] = try c.decode(Value.self, forKey: k) }
                self = .object(o)
                return
            }
            if var c = try? decoder.unkeyedContainer() {
                var a: [Value] = []
                while !c.isAtEnd { a.append(try c.decode(Value.self)) }
                self = .array(a)
                return
            }
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int64.self) {
                self = .integer(i)
            } else if let d = try? c.decode(Double.self) {
                self = .number(d)
            } else {
                self = .string(try c.decode(String.self))
            }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The `camera { … }` block for a JSON object; throws `JSONCameraError` naming what is wrong.
    static func text(fromJSON data: Data) throws -> String {
        let value: Value
        do { value = try JSONDecoder().decode(Value.self, from: data) } catch {
            throw JSONCameraError("the body is not valid JSON")
        }
        guard case .object(let o) = value else { throw JSONCameraError("the JSON camera must be an object { … }") }
        return "camera {\n" + (try fields(o, indent: "  ")) + "}\n"
    }

    private static func fields(_ o: [String: Value], indent: String) throws -> String {
        var out = ""
        for key in o.keys.sorted() {
            let letter = { (u: Unicode.Scalar) in ("a"..."z").contains(u) || ("A"..."Z").contains(u) || u == "_" }
            guard let first = key.unicodeScalars.first, letter(first), key.unicodeScalars.allSatisfy({ letter($0) || ("0"..."9").contains($0) })
            else { throw JSONCameraError("'\(key)' is not a field name") }
            let items: [Value]
            if case .array(let a) = o[key]! { items = a } else { items = [o[key]!] }
            for item in items {
                switch item {
                case .bool(let b): out += "\(indent)\(key): \(b)\n"
                case .integer(let i): out += "\(indent)\(key): \(i)\n"
                case .number(let d):
                    guard d.isFinite else { throw JSONCameraError("'\(key)' is not a finite number") }
                    out += "\(indent)\(key): \(d)\n"
                case .string(let s): out += "\(indent)\(key): \(quoted(s))\n"
                case .object(let m): out += "\(indent)\(key) {\n" + (try fields(m, indent: indent + "  ")) + "\(indent)}\n"
                case .array: throw JSONCameraError("'\(key)': arrays of arrays have no meaning in a camera block")
                case .null: throw JSONCameraError("'\(key)' is null: leave the field out instead")
                }
            }
        }
        return out
    }

    /// `s` as a text-format string literal (control characters as octal escapes).
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F:
                let octal = String(u.value, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

/// A JSON camera that cannot be read.
struct JSONCameraError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "JSON camera: " + description }
}
