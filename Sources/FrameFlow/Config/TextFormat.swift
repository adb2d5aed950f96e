/// A value in protobuf text format: a scalar or a nested message, with where it was read.
package struct TextValue: Sendable {
    /// The kinds of values text format has.
    package enum Kind: Sendable {
        /// A quoted string (escapes already resolved; adjacent strings joined).
        case string(String)
        /// A bare word: an enum value, `true`, `false`, `inf`, `nan`.
        case identifier(String)
        /// A number, as written (`-3`, `0x1F`, `1.5e3`, `2.0f`).
        case number(String)
        /// A nested message.
        case message(TextMessage)
    }
    package var kind: Kind
    package var location: SourceLocation

    package init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}

/// One `name: value` of a text-format message.
package struct TextField: Sendable {
    /// The field name; for an extension (`[mediapipe.X.ext]`) the text between the brackets.
    package var name: String
    /// Whether the name was written in brackets (an extension or `Any` type URL).
    package var isExtension: Bool
    package var value: TextValue
    /// Where the field name starts.
    package var location: SourceLocation
}

/// A text-format message: an ordered list of fields (repeated fields appear repeatedly).
///
/// Opaque outside FrameFlow's own modules: a graph file's options arrive in
/// `NodeOptions.text` as one, and the calculator reads them as its `Options` type.
public struct TextMessage: Sendable {
    package var fields: [TextField]
    package var location: SourceLocation

    package init(fields: [TextField] = [], location: SourceLocation = SourceLocation(line: 1, column: 1)) {
        self.fields = fields
        self.location = location
    }

    /// The fields named `name`, in order.
    package func fields(named name: String) -> [TextField] { fields.filter { $0.name == name } }
}

/// A parser for the protobuf text format (the format of MediaPipe's `.pbtxt` graphs).
///
/// It reads comments (`# …`), nested messages with `{}` or `<>`, an optional `:` before a
/// message, repeated fields and `[a, b]` lists, quoted strings with C escapes (adjacent
/// strings are joined), numbers, enum identifiers and extension names in brackets. Every
/// error names the line and column. Messages nest at most
/// `limits.maxNestingDepth` deep: deeper is an error, not a stack overflow.
public struct TextFormatParser {
    private var chars: [UInt8]
    private var pos = 0
    private var line = 1
    private var col = 1
    private let file: String?
    /// Messages open around the current position, and how many may be.
    private var depth = 0
    private let maxDepth: Int

    /// Parses `text`; `file` only serves error messages. Messages nest at most
    /// `limits.maxNestingDepth` deep.
    public static func parse(_ text: String, file: String? = nil, limits: ResourceLimits = ResourceLimits()) throws -> TextMessage {
        var p = TextFormatParser(chars: Array(text.utf8), file: file, maxDepth: limits.maxNestingDepth)
        return try p.parseMessage(closing: nil, start: SourceLocation(file: file, line: 1, column: 1))
    }

    private init(chars: [UInt8], file: String?, maxDepth: Int) {
        self.chars = chars
        self.file = file
        self.maxDepth = maxDepth
    }

    private var here: SourceLocation { SourceLocation(file: file, line: line, column: col) }

    private func error(_ message: String, at loc: SourceLocation? = nil) -> GraphError {
        GraphError(.syntax, message, location: loc ?? here)
    }

    private mutating func advance() {
        if chars[pos] == UInt8(ascii: "\n") {
            line += 1
            col = 1
        } else if chars[pos] & 0xC0 != 0x80 {
            col += 1
        }
        pos += 1
    }

    private mutating func skipSpaceAndComments() {
        while pos < chars.count {
            let c = chars[pos]
            if c == UInt8(ascii: "#") {
                while pos < chars.count, chars[pos] != UInt8(ascii: "\n") { advance() }
            } else if c == 32 || c == 9 || c == 10 || c == 13 || c == 12 || c == 11 {
                advance()
            } else {
                return
            }
        }
    }

    private mutating func peek() -> UInt8? {
        skipSpaceAndComments()
        return pos < chars.count ? chars[pos] : nil
    }

    private mutating func consume(_ c: Character) -> Bool {
        if peek() == c.asciiValue! {
            advance()
            return true
        }
        return false
    }

    private static func isIdentStart(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
    }
    private static func isIdentChar(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 48 && c <= 57) }

    private mutating func describeNext() -> String {
        guard let c = peek() else { return "end of file" }
        if c >= 32 && c < 127 { return "'\(Character(UnicodeScalar(c)))'" }
        return "byte 0x\(String(c, radix: 16))"
    }

    private mutating func parseMessage(closing: UInt8?, start: SourceLocation) throws -> TextMessage {
        var msg = TextMessage(fields: [], location: start)
        while true {
            guard let c = peek() else {
                if let closing {
                    throw error(
                        "expected '\(Character(UnicodeScalar(closing)))' to close the message opened at line \(start.line), column \(start.column), found end of file"
                    )
                }
                return msg
            }
            if let closing, c == closing {
                advance()
                return msg
            }
            msg.fields.append(contentsOf: try parseField())
            _ = consume(",") || consume(";")
        }
    }

    /// One field, or several for a `name: [a, b, c]` list.
    private mutating func parseField() throws -> [TextField] {
        let loc = here
        var name: String
        var isExtension = false
        if consume("[") {
            isExtension = true
            var s = ""
            while let c = peek(), c != UInt8(ascii: "]") {
                guard Self.isIdentChar(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "/") else {
                    throw error("unexpected \(describeNext()) in extension name")
                }
                s.append(Character(UnicodeScalar(c)))
                advance()
            }
            guard consume("]") else { throw error("expected ']' to close the extension name, found end of file") }
            guard !s.isEmpty else { throw error("empty extension name", at: loc) }
            name = s
        } else {
            guard let c = peek(), Self.isIdentStart(c) else {
                throw error("expected a field name, found \(describeNext())")
            }
            name = ""
            while pos < chars.count, Self.isIdentChar(chars[pos]) {
                name.append(Character(UnicodeScalar(chars[pos])))
                advance()
            }
        }
        let hadColon = consume(":")
        let valueLoc = here
        if let c = peek(), c == UInt8(ascii: "{") || c == UInt8(ascii: "<") {
            // Each nested message is a level of recursion: bounded so that hostile text
            // cannot overflow the stack.
            guard depth < maxDepth else {
                throw error("messages nested more than \(maxDepth) deep (ResourceLimits.maxNestingDepth)", at: valueLoc)
            }
            advance()
            let closing = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">")
            depth += 1
            defer { depth -= 1 }
            let m = try parseMessage(closing: closing, start: valueLoc)
            return [TextField(name: name, isExtension: isExtension, value: TextValue(.message(m), at: valueLoc), location: loc)]
        }
        guard hadColon else {
            throw error("expected ':' or '{' after field '\(name)', found \(describeNext())")
        }
        if peek() == UInt8(ascii: "[") {
            // A list of scalars: the same as repeating the field.
            let open = here
            advance()
            var fields: [TextField] = []
            if consume("]") { return [] }
            while true {
                let v = try parseScalar(field: name)
                fields.append(TextField(name: name, isExtension: isExtension, value: v, location: v.location))
                if consume("]") { return fields }
                guard consume(",") else {
                    throw error(
                        "expected ',' or ']' in the list for field '\(name)' opened at line \(open.line), column \(open.column), found \(describeNext())"
                    )
                }
            }
        }
        let v = try parseScalar(field: name)
        return [TextField(name: name, isExtension: isExtension, value: v, location: loc)]
    }

    private mutating func parseScalar(field: String) throws -> TextValue {
        let loc = here
        guard let c = peek() else { throw error("expected a value for field '\(field)', found end of file") }
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            var s = try parseString()
            while let n = peek(), n == UInt8(ascii: "\"") || n == UInt8(ascii: "'") { s += try parseString() }
            return TextValue(.string(s), at: loc)
        }
        if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || (c >= 48 && c <= 57) {
            var s = ""
            if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
                s.append(Character(UnicodeScalar(c)))
                advance()
                skipSpaceAndComments()
            }
            while pos < chars.count {
                let d = chars[pos]
                if Self.isIdentChar(d) || d == UInt8(ascii: ".")
                    || ((d == UInt8(ascii: "-") || d == UInt8(ascii: "+")) && (s.last == "e" || s.last == "E") && !s.lowercased().hasPrefix("0x")
                        && !s.lowercased().hasPrefix("-0x"))
                {
                    s.append(Character(UnicodeScalar(d)))
                    advance()
                } else {
                    break
                }
            }
            let body = s.trimmingPrefix { $0 == "-" || $0 == "+" }
            if body == "inf" || body == "infinity" || body == "nan" { return TextValue(.number(s), at: loc) }
            guard TextFormatParser.numberValue(s) != nil else {
                throw error("invalid number '\(s)' for field '\(field)'", at: loc)
            }
            return TextValue(.number(s), at: loc)
        }
        if Self.isIdentStart(c) {
            var s = ""
            while pos < chars.count, Self.isIdentChar(chars[pos]) {
                s.append(Character(UnicodeScalar(chars[pos])))
                advance()
            }
            return TextValue(.identifier(s), at: loc)
        }
        throw error("expected a value for field '\(field)', found \(describeNext())")
    }

    /// The value of a text-format number literal, or `nil` if it is not one.
    static func numberValue(_ raw: String) -> Double? {
        var s = Substring(raw)
        var sign = 1.0
        if s.first == "-" { sign = -1; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
        let lower = s.lowercased()
        if lower == "inf" || lower == "infinity" { return sign * .infinity }
        if lower == "nan" { return .nan }
        if lower.hasPrefix("0x") {
            guard let v = UInt64(lower.dropFirst(2), radix: 16) else { return nil }
            return sign * Double(v)
        }
        var body = lower
        if body.hasSuffix("f"), !body.hasPrefix("0x") { body.removeLast() }
        guard !body.isEmpty, body.first!.isNumber || body.first == "." else { return nil }
        guard let v = Double(body) else { return nil }
        return sign * v
    }

    private mutating func parseString() throws -> String {
        let start = here
        let quote = chars[pos]
        advance()
        var bytes: [UInt8] = []
        while true {
            guard pos < chars.count else { throw error("unterminated string", at: start) }
            let c = chars[pos]
            if c == quote {
                advance()
                break
            }
            if c == UInt8(ascii: "\n") { throw error("unterminated string (newline inside quotes)", at: start) }
            if c == UInt8(ascii: "\\") {
                advance()
                guard pos < chars.count else { throw error("unterminated string", at: start) }
                let e = chars[pos]
                advance()
                switch e {
                case UInt8(ascii: "n"): bytes.append(10)
                case UInt8(ascii: "t"): bytes.append(9)
                case UInt8(ascii: "r"): bytes.append(13)
                case UInt8(ascii: "a"): bytes.append(7)
                case UInt8(ascii: "b"): bytes.append(8)
                case UInt8(ascii: "f"): bytes.append(12)
                case UInt8(ascii: "v"): bytes.append(11)
                case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "?"): bytes.append(e)
                case UInt8(ascii: "x"):
                    var v = 0
                    var n = 0
                    while n < 2, pos < chars.count, let d = hexDigit(chars[pos]) {
                        v = v * 16 + d
                        n += 1
                        advance()
                    }
                    guard n > 0 else { throw error("'\\x' needs hex digits") }
                    bytes.append(UInt8(v))
                case UInt8(ascii: "0")...UInt8(ascii: "7"):
                    var v = Int(e - 48)
                    var n = 1
                    while n < 3, pos < chars.count, chars[pos] >= 48, chars[pos] <= 55 {
                        v = v * 8 + Int(chars[pos] - 48)
                        n += 1
                        advance()
                    }
                    guard v <= 255 else { throw error("octal escape out of range") }
                    bytes.append(UInt8(v))
                default:
                    throw error("unknown escape '\\\(Character(UnicodeScalar(e)))' in string")
                }
                continue
            }
            bytes.append(c)
            advance()
        }
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: start)
        }
        return s
    }

    private func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case 48...57: return Int(c - 48)
        case 65...70: return Int(c - 55)
        case 97...102: return Int(c - 87)
        default: return nil
        }
    }
}
