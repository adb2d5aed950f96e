import Foundation
import FrameFlowTestSupport
import Testing

/// Swift's `Int(_: Double)` (and every integer type's) traps on NaN, infinities and values
/// out of range: a value from a file, a graph or a packet must never reach one. This lint
/// reads every `.swift` file under `Sources/` and refuses each integer initializer whose
/// argument is evidently floating point — it rounds (`.rounded`, `floor(`, `ceil(`, `round(`,
/// `trunc(`), takes `sqrt(`/`pow(`/`exp(`/`log(`, converts (`Double(`, `Float(`) or holds a
/// decimal literal — unless it is `Int(saturating:)` (or another labelled initializer) or
/// its line ends in `// checked: <why it cannot trap>`.
///
/// A heuristic: `Int(x)` of a `Double` variable is invisible to it; what it sees it must see
/// without false alarms, so it reads code only (comments and doc lines are skipped).
@Suite struct FloatConversionLintTests {
    /// One flagged conversion: `Sources/…/File.swift:line: code`.
    struct Finding: CustomStringConvertible {
        var file: String, line: Int, code: String
        var description: String { "\(file):\(line): \(code)" }
    }

    static let integerTypes = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]

    /// An integer type's name immediately called: `Int(`, `UInt8(`, not `.Int(`, `myInt(` or `Int(saturating:`
    /// (labels are checked on the argument).
    static let initializer = regex(#"(?<![\w.])(?:U?Int(?:8|16|32|64)?)\("#)

    /// Signs that an argument is floating point.
    static let floatingPoint = regex(
        #"\.rounded\b|\.squareRoot\(|(?<![\w.])(?:floor|ceil|round|trunc|sqrt|sqrtf|pow|powf|exp|expf|exp2|log|log2|log10|log1p|logf)\("#
            + #"|(?<![\w.])(?:Double|Float|Float32|Float64|CGFloat)\(|(?<![\w.$])\d[\d_]*\.\d|(?<![\w.$])\d[\d_]*[eE][-+]?\d"#)

    /// A labelled initializer (`saturating:`, `clamping:`, `exactly:`, `truncatingIfNeeded:`,
    /// `bitPattern:` …): none of them traps on a floating-point value.
    static let labelled = regex(#"^\s*[A-Za-z_]\w*\s*:(?!:)"#)

    /// `pattern` compiled (the patterns above are constants: a typo fails every test here).
    static func regex(_ pattern: String) -> NSRegularExpression {
        do { return try NSRegularExpression(pattern: pattern) } catch { fatalError("\(pattern): \(error)") }
    }

    /// The code of `line` without a trailing `//` comment (a `//` outside string literals).
    static func code(_ line: Substring) -> Substring {
        var inString = false, previous: Character = " "
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if c == "\"" && previous != "\\" { inString.toggle() }
            if !inString && c == "/" && previous == "/" { return line[..<line.index(before: i)] }
            previous = c
            i = line.index(after: i)
        }
        return line
    }

    /// The text between the `(` at `open` and its matching `)`, or to the end of the line.
    static func argument(_ s: String, from open: String.Index) -> Substring {
        var depth = 0
        var i = open
        while i < s.endIndex {
            if s[i] == "(" { depth += 1 }
            if s[i] == ")" {
                depth -= 1
                if depth == 0 { return s[s.index(after: open)..<i] }
            }
            i = s.index(after: i)
        }
        return s[s.index(after: open)...]
    }

    /// The unchecked float → integer conversions in `text`, a Swift file named `file`.
    static func findings(in text: String, file: String) -> [Finding] {
        var found: [Finding] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = raw.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("//") || trimmed.hasPrefix("/*") { continue }
            if raw.range(of: #"//\s*checked:\s*\S"#, options: .regularExpression) != nil { continue }
            let line = String(code(raw))
            let ns = line as NSString
            for m in initializer.matches(in: line, range: NSRange(location: 0, length: ns.length)) {
                guard let r = Range(m.range, in: line) else { continue }
                let arg = String(argument(line, from: line.index(before: r.upperBound)))
                let whole = NSRange(location: 0, length: (arg as NSString).length)
                if labelled.firstMatch(in: arg, range: whole) != nil { continue }
                if floatingPoint.firstMatch(in: arg, range: whole) != nil {
                    found.append(Finding(file: file, line: n + 1, code: trimmed.trimmingCharacters(in: .whitespaces)))
                    break
                }
            }
        }
        return found
    }

    /// Every `.swift` file under `Sources/`, as paths relative to the repository root.
    static func sourceFiles() -> [String] {
        let root = RepositoryFiles.path("Sources")
        let walker = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let p = walker?.nextObject() as? String {
            if p.hasSuffix(".swift") { files.append("Sources/" + p) }
        }
        return files.sorted()
    }

    @Test func noUncheckedFloatToIntegerConversionsInSources() throws {
        let files = Self.sourceFiles()
        #expect(files.count > 100, "found \(files.count) Swift files under \(RepositoryFiles.path("Sources"))")
        var all: [Finding] = []
        for f in files {
            all += Self.findings(in: try String(contentsOfFile: RepositoryFiles.path(f), encoding: .utf8), file: f)
        }
        if !all.isEmpty {
            Issue.record(
                """
                \(all.count) integer initializers take a floating-point value that may trap (NaN, ±inf, out of range): \
                use Int(saturating:) and its kind, or end the line with `// checked: <why it cannot trap>`.
                \(all.map(\.description).joined(separator: "\n"))
                """)
        }
    }

    /// The heuristic on lines it must and must not flag.
    @Test func flagsEvidentFloatArgumentsOnly() {
        let flagged = [
            "let i = Int(x.rounded())", "q[i] = UInt8((v * 255).rounded(.down))", "let n = Int32(floor(y))",
            "let k = Int(Double(a) * 0.5)", "let s = Int64(sqrt(v))", "let e = UInt16(1e3 * f)", "let t = Int(pow(2, b))",
            "foo(Int(ceil(w)), 3)", "let l = UInt(log2(d))", "let h = Int(d.squareRoot())", "\"\\(Int(fps.rounded())) fps\"",
            "let z = Int(Float(n)) // a comment",
        ]
        let clean = [
            "let i = Int(saturating: x.rounded())", "let b = UInt8(clamping: v)", "let j = Int(exactly: d.rounded())",
            "let k = Int(s[c]) - Int(b[c])", "let m = Int(x.rounded()) // checked: x is in 0…255", "/// Int(x.rounded()) in a doc",
            "let w = UInt32(truncatingIfNeeded: f.bitPattern)", "let p = Int(count)", "let q = myInt(2.5)", "let r = x.Int(3.5)",
            "let v = Int(a) // 0.5 in a comment", "let u = Int(bitPattern: ptr)", "let t = steps.map { Int32($0.0) }",
        ]
        for line in flagged {
            #expect(Self.findings(in: line, file: "t.swift").count == 1, "\(line)")
        }
        for line in clean {
            #expect(Self.findings(in: line, file: "t.swift").isEmpty, "\(line)")
        }
    }
}
