import Foundation
import FrameFlowTestSupport
import Testing

/// What a graph reads lives in its `GraphEnvironment`, not in process-wide variables: this
/// lint reads every library source file (`Sources/`, the two executables excepted) and
/// refuses a stored `static var` (task-local bindings, scoped to one call, excepted), a
/// file-level stored `var`, `nonisolated(unsafe)`, a `static let` lock or mutex (mutable state
/// behind it), and `setenv`/`putenv`. A line may say why it is fine with `// process-wide: <why>`.
@Suite struct ProcessWideStateLintTests {
    /// A stored static variable: `static var x = …` or `static var x: T` not followed by `{`.
    static let storedStatic = regex(#"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?static var \w+\s*(?:=|:[^{=]*(?:=|$))"#)
    /// A file-level stored variable (computed ones end their line with `{`).
    static let topLevelVar = regex(#"^(?:(?:public|package|internal|private|fileprivate)\s+)?var \w+\s*(?:=|:[^{]*$)"#)
    static let unsafe = regex(#"nonisolated\(unsafe\)"#)
    static let staticLock = regex(#"static let \w+\s*(?::[^=]*)?=\s*(?:Locked|Mutex|NSLock|Atomic)\b"#)
    static let environment = regex(#"(?<![\w.])(?:setenv|putenv|unsetenv)\("#)

    static func regex(_ pattern: String) -> NSRegularExpression {
        do { return try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) } catch { fatalError("\(pattern): \(error)") }
    }

    /// `file:line: code` for each line of `text` one of the patterns matches.
    static func findings(in text: String, file: String) -> [String] {
        var found: [String] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let s = String(line)
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("//") || s.contains("// process-wide:") { continue }
            if trimmed.hasPrefix("@TaskLocal") { continue }  // a binding for the duration of one call
            let range = NSRange(s.startIndex..., in: s)
            for r in [storedStatic, topLevelVar, unsafe, staticLock, environment] where r.firstMatch(in: s, range: range) != nil {
                found.append("\(file):\(n + 1): \(trimmed)")
                break
            }
        }
        return found
    }

    @Test func librariesHoldNoProcessWideConfiguration() throws {
        let root = RepositoryFiles.path("Sources")
        let files = try #require(FileManager.default.subpathsOfDirectory(atPath: root) as [String]?)
        var found: [String] = []
        var read = 0
        for f in files.sorted() where f.hasSuffix(".swift") && !f.hasPrefix("frameflow/") && !f.hasPrefix("frameflow-bench/") {
            let text = try String(contentsOfFile: root + "/" + f, encoding: .utf8)
            found += Self.findings(in: text, file: "Sources/" + f)
            read += 1
        }
        #expect(read > 200, "read \(read) files")
        #expect(found.isEmpty, "process-wide state (put it in GraphEnvironment):\n\(found.joined(separator: "\n"))")
    }

    /// The patterns catch what they are for, and leave computed properties and locals alone.
    @Test(arguments: [
        ("    public static var root: String? {", false),
        ("    public static var current = ResourceLimits()", true),
        ("    static var cache: [String: Int] = [:]", true),
        ("    private static var hits: Int", true),
        ("    @TaskLocal static var pool: FloatPool?", false),
        ("var args = CommandLine.arguments", true),
        ("public var frameFlowBuildDescription: String {", false),
        ("        var local = 0", false),
        ("nonisolated(unsafe) let table = make()", true),
        ("    private static let storage = Locked<[String]>([])", true),
        ("    static let shared = ModelCache()", false),
        ("        setenv(\"OPENBLAS_NUM_THREADS\", \"1\", 1)", true),
        ("    private static let counter = AtomicCounter()", false),
    ])
    func patterns(line: String, flagged: Bool) {
        #expect(Self.findings(in: line, file: "x.swift").isEmpty == !flagged, "\(line)")
    }
}
