import Foundation

/// The media files `frameflow batch LIST` processes, read from LIST, and the names of their
/// outputs.
///
/// LIST is UTF-8 text with one file per line. Spaces and tabs around a path are dropped; a
/// blank line, and a line whose first other character is `#`, are skipped (a `#` later in
/// a line is part of the path). A relative path is relative to LIST's folder, not to the
/// working directory, so a list and its files can move together; a URL (`scheme://…`) is
/// kept as written. Windows line ends (CRLF) are read as line ends.
///
/// Each file's outputs are named after its file name without the extension (its *stem*):
/// `DIR/clip.mp4` for the video output and `DIR/clip.detections.jsonl` for the stream
/// `detections` of `media/clip.mov`. Two entries with the same stem would write the same
/// outputs, so the list is refused; so are an empty list, a line that is not UTF-8 or holds
/// a control character, and a line that names no file (`/`, `..`). Every error names
/// `LIST:line`. A file that is missing or unreadable is not a list error: it fails on its own
/// when it is processed, and the other files still run.
///
/// Example:
///
///     # lobby cameras, 2 December
///     lobby/cam1.mp4
///     lobby/cam2.mp4
///     /srv/archive/door.mkv
public struct BatchList: Sendable, Equatable {
    /// One file of the list.
    public struct Entry: Sendable, Equatable {
        /// The line as written (without the spaces around it).
        public let text: String
        /// The path to open: `text` resolved against the list's folder, or the URL as written.
        public let path: String
        /// The line number in the list, from 1.
        public let line: Int
        /// The file name without its extension: what the outputs are named after.
        public let stem: String
    }

    /// The list's path, as given (errors and results name it).
    public let file: String
    /// The files, in list order (the order `Shard` counts in).
    public let entries: [Entry]

    /// Reads and parses the list at `path`; relative entries resolve against its folder.
    public init(contentsOfFile path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            var isDir: ObjCBool = false
            let why =
                !FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
                ? "no such file" : isDir.boolValue ? "is a folder, not a list" : "cannot be read"
            throw BatchListError(file: path, line: nil, why)
        }
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        try self.init(data: data, file: path, baseDirectory: folder)
    }

    /// Parses list text; `file` is the name errors give it, `baseDirectory` the folder that
    /// relative entries resolve against.
    public init(data: Data, file: String, baseDirectory: String) throws {
        var entries: [Entry] = []
        var stems: [String: Int] = [:]
        var lineNumber = 0
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var bytes = rawLine[...]
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw BatchListError(file: file, line: lineNumber, "is not UTF-8 text")
            }
            let text = decoded.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            if text.isEmpty || text.hasPrefix("#") { continue }
            if let c = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                throw BatchListError(
                    file: file, line: lineNumber,
                    "holds the control character U+\(String(c.value, radix: 16, uppercase: true)); a path is one line of text")
            }
            let isURL = Self.isURL(text)
            let path = isURL || text.hasPrefix("/") ? text : Self.joined(baseDirectory, text)
            let stem = Self.stem(of: Self.fileName(text, isURL: isURL))
            guard !stem.isEmpty, stem != ".", stem != "..", stem != "/" else {
                throw BatchListError(file: file, line: lineNumber, "'\(text)' names no file")
            }
            if let first = stems[stem] {
                throw BatchListError(
                    file: file, line: lineNumber,
                    "'\(text)' has the same name without extension, '\(stem)', as line \(first), so their outputs would overwrite each other; rename one"
                )
            }
            stems[stem] = lineNumber
            entries.append(Entry(text: text, path: path, line: lineNumber, stem: stem))
        }
        guard !entries.isEmpty else { throw BatchListError(file: file, line: nil, "lists no file (only blank lines and # comments)") }
        self.file = file
        self.entries = entries
    }

    /// Where `entry`'s output goes in `directory`: `<stem>.<ext>` for the graph's output
    /// (`stream` nil) and `<stem>.<stream>.<ext>` for an output stream.
    ///
    ///     list.outputPath(for: clip, stream: "detections", extension: "jsonl", in: "out")
    ///     // out/clip.detections.jsonl
    public func outputPath(for entry: Entry, stream: String?, extension ext: String, in directory: String) -> String {
        Self.joined(directory, [entry.stem, stream, ext].compactMap { $0 }.joined(separator: "."))
    }

    // Paths are taken apart by hand: NSString's and URL's path functions trap on some
    // non-ASCII text after "//" (found by fuzz-batchlist; Tests/Fixtures/fuzz/batchlist).

    /// `name` in `folder`: one slash between them.
    static func joined(_ folder: String, _ name: String) -> String {
        var folder = Substring(folder)
        while folder.count > 1 && folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder == "/" ? "/" + name : folder + "/" + name
    }

    /// Whether `text` is a URL: `scheme://…`, the scheme a letter then letters, digits, `+-.`.
    static func isURL(_ text: String) -> Bool {
        guard let separator = text.range(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// The last component of a path, or of a URL's path (no query or fragment); empty for
    /// none (`/`, a URL of a host alone).
    static func fileName(_ text: String, isURL: Bool) -> String {
        guard isURL, let separator = text.range(of: "://") else { return text.split(separator: "/").last.map(String.init) ?? "" }
        var rest = text[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let parts = rest.split(separator: "/")
        return parts.count >= 2 ? String(parts[parts.count - 1]) : ""
    }

    /// `name` without its extension: up to its last dot, unless that dot begins the name.
    static func stem(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}

/// A list `BatchList` cannot use: `LIST:line: why`, or `LIST: why` for the whole file.
public struct BatchListError: Error, Equatable, CustomStringConvertible {
    /// The list's path.
    public let file: String
    /// The line at fault, from 1; nil when the fault is the whole file.
    public let line: Int?
    /// What is wrong.
    public let reason: String

    init(file: String, line: Int?, _ reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)" }
}
