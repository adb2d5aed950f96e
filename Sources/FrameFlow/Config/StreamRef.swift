/// A stream or side packet as a node names it: `TAG:index:name`, `TAG:name` or `name`.
///
/// ```swift
/// let r = try StreamRef(parsing: "IMAGE:1:frame")
/// print(r.tag, r.index, r.name)   // Prints "IMAGE 1 frame"
/// ```
public struct StreamRef: Sendable, Hashable, CustomStringConvertible {
    /// The port's tag (UPPER_SNAKE), empty for an untagged port.
    public var tag: String
    /// The index among ports with the same tag.
    public var index: Int
    /// The stream's name (lower_snake).
    public var name: String
    /// Where the reference was written, for errors.
    public var location: SourceLocation?

    /// A reference to stream `name` on port `tag`:`index`.
    public init(tag: String = "", index: Int = 0, name: String, location: SourceLocation? = nil) {
        self.tag = tag
        self.index = index
        self.name = name
        self.location = location
    }

    /// Parses `TAG:index:name`, `TAG:name` or `name`, checking MediaPipe's naming rules.
    public init(parsing text: String, location: SourceLocation? = nil) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func bad(_ why: String) -> GraphError {
            GraphError(.invalidStreamName, "'\(text)' is not a valid stream reference: \(why)", location: location)
        }
        switch parts.count {
        case 1:
            self.init(tag: "", index: 0, name: parts[0], location: location)
        case 2:
            self.init(tag: parts[0], index: 0, name: parts[1], location: location)
        case 3:
            guard let i = Int(parts[1]), i >= 0 else { throw bad("index '\(parts[1])' is not a number ≥ 0") }
            self.init(tag: parts[0], index: i, name: parts[2], location: location)
        default:
            throw bad("expected TAG:index:name")
        }
        if !tag.isEmpty, !StreamRef.isValidTag(tag) {
            throw bad("tag '\(tag)' must be UPPER_SNAKE_CASE ([A-Z_][A-Z0-9_]*)")
        }
        guard StreamRef.isValidName(name) else {
            throw bad("name '\(name)' must be lower_snake_case ([a-z_][a-z0-9_]*)")
        }
    }

    static func isValidTag(_ s: String) -> Bool {
        guard let f = s.utf8.first, (f >= 65 && f <= 90) || f == 95 else { return false }
        return s.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    static func isValidName(_ s: String) -> Bool {
        guard let f = s.utf8.first, (f >= 97 && f <= 122) || f == 95 else { return false }
        return s.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    /// The port this reference binds: tag and index.
    public var port: PortID { PortID(tag, index) }

    /// `TAG:index:name` as written in graph files (shortest form).
    public var description: String {
        if tag.isEmpty { return name }
        return index == 0 ? "\(tag):\(name)" : "\(tag):\(index):\(name)"
    }

    public static func == (a: StreamRef, b: StreamRef) -> Bool {
        a.tag == b.tag && a.index == b.index && a.name == b.name
    }
    public func hash(into h: inout Hasher) {
        h.combine(tag)
        h.combine(index)
        h.combine(name)
    }
}

/// A port of a node: a tag and an index (`IMAGE:1`). Untagged ports have an empty tag.
public struct PortID: Sendable, Hashable, CustomStringConvertible {
    /// The tag (UPPER_SNAKE), empty for an untagged port.
    public var tag: String
    /// The index among ports with the same tag.
    public var index: Int
    /// Port `tag`:`index`.
    public init(_ tag: String, _ index: Int = 0) {
        self.tag = tag
        self.index = index
    }
    public var description: String { tag.isEmpty ? "#\(index)" : (index == 0 ? tag : "\(tag):\(index)") }
}
