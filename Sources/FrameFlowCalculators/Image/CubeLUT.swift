import Foundation
import FrameFlow

/// A colour lookup table read from an Adobe/Resolve `.cube` file: a 3-D table
/// (`LUT_3D_SIZE N`, N³ RGB rows, red varying fastest) or a 1-D one (`LUT_1D_SIZE N`),
/// with optional `TITLE`, `DOMAIN_MIN`, `DOMAIN_MAX` and `#` comments.
///
/// A malformed file is a `CubeLUTError` naming the file and line: a bad number, a wrong
/// number of values on a row, a size out of range (2…256 for 3-D, 2…65536 for 1-D) or a table
/// over `ResourceLimits.current.maxTensorElements` values, a missing size, a domain that is
/// not finite, or too few / too many table rows.
public struct CubeLUT: Sendable {
    public enum Kind: Sendable { case oneD, threeD }
    public var title: String?
    public var kind: Kind
    public var size: Int
    public var domainMin: [Float] = [0, 0, 0]
    public var domainMax: [Float] = [1, 1, 1]
    /// RGB triples; for 3-D, index `(b·N + g)·N + r`.
    public var table: [Float]

    /// Reads a `.cube` file.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CubeLUTError(file: path, line: 0, message: "cannot read the file")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), file: path)
    }

    /// Parses `.cube` text; `file` names it in errors.
    public init(text: String, file: String = "<cube>") throws {
        try self.init(text: text, file: file, limits: .current)
    }

    /// Parses `.cube` text, its table held to `limits.maxTensorElements` values.
    init(text: String, file: String, limits: ResourceLimits) throws {
        var title: String?
        var kind: Kind?
        var size = 0
        var dmin: [Float] = [0, 0, 0], dmax: [Float] = [1, 1, 1]
        var values: [Float] = []
        var lastLine = 0
        var domainLine = 0
        func fail(_ line: Int, _ m: String) -> CubeLUTError { CubeLUTError(file: file, line: line, message: m) }
        func triple(_ parts: [Substring], _ line: Int, _ what: String) throws -> [Float] {
            guard parts.count == 3 else { throw fail(line, "\(what) needs 3 numbers, found \(parts.count)") }
            return try parts.map { p in
                guard let v = Float(p) else { throw fail(line, "'\(p)' is not a number") }
                guard v.isFinite else { throw fail(line, "'\(p)' is not a finite number") }
                return v
            }
        }
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNo = i + 1
            if !raw.allSatisfy({ $0.isWhitespace }) { lastLine = lineNo }
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            line = line.trimmingCharacters(in: .whitespacesAndNewlines)[...]
            if line.isEmpty { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch parts[0] {
            case "TITLE":
                title = line.dropFirst(5).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            case "LUT_3D_SIZE", "LUT_1D_SIZE":
                guard kind == nil else { throw fail(lineNo, "a second size declaration") }
                guard values.isEmpty else { throw fail(lineNo, "\(parts[0]) after table rows") }
                guard parts.count == 2, let n = Int(parts[1]) else { throw fail(lineNo, "\(parts[0]) needs one integer") }
                let is3D = parts[0] == "LUT_3D_SIZE"
                let range = is3D ? 2...256 : 2...65536
                guard range.contains(n) else { throw fail(lineNo, "\(parts[0]) \(n) is out of range \(range.lowerBound)…\(range.upperBound)") }
                let count = 3 * (is3D ? n * n * n : n)  // at most 3 · 256³: no overflow
                guard count <= limits.maxTensorElements else {
                    throw fail(lineNo, "\(parts[0]) \(n) needs \(count) values, over the memory budget of \(limits.maxTensorElements) (ResourceLimits.maxTensorElements)")
                }
                kind = is3D ? .threeD : .oneD
                size = n
                // Room for the rows the text can hold (each takes at least 6 bytes, "0 0 0\n"),
                // so that a short file declaring a big table does not reserve it.
                values.reserveCapacity(min(count, 3 * (text.utf8.count / 6 + 1)))
            case "DOMAIN_MIN": dmin = try triple(Array(parts.dropFirst()), lineNo, "DOMAIN_MIN")
            case "DOMAIN_MAX":
                dmax = try triple(Array(parts.dropFirst()), lineNo, "DOMAIN_MAX")
                domainLine = lineNo
            case "LUT_3D_INPUT_RANGE", "LUT_1D_INPUT_RANGE":
                guard parts.count == 3, let lo = Float(parts[1]), let hi = Float(parts[2]) else { throw fail(lineNo, "\(parts[0]) needs 2 numbers") }
                // An infinite domain makes every table coordinate NaN.
                guard lo.isFinite, hi.isFinite else { throw fail(lineNo, "\(parts[0]) needs 2 finite numbers") }
                guard hi > lo else { throw fail(lineNo, "\(parts[0]) needs a maximum above its minimum") }
                dmin = [lo, lo, lo]
                dmax = [hi, hi, hi]
            default:
                guard let k = kind else {
                    if Float(parts[0]) != nil { throw fail(lineNo, "table rows before LUT_3D_SIZE or LUT_1D_SIZE") }
                    throw fail(lineNo, "unknown keyword '\(parts[0])'")
                }
                let expected = 3 * (k == .threeD ? size * size * size : size)
                guard values.count < expected else { throw fail(lineNo, "more table rows than the size \(size) allows (\(expected / 3))") }
                values += try triple(parts, lineNo, "a table row")
            }
        }
        guard let kind else { throw fail(lastLine, "no LUT_3D_SIZE or LUT_1D_SIZE") }
        let expected = 3 * (kind == .threeD ? size * size * size : size)
        guard values.count == expected else {
            throw fail(lastLine, "\(values.count / 3) table rows, the size \(size) needs \(expected / 3)")
        }
        for c in 0..<3 where !(dmax[c] > dmin[c]) {
            throw fail(domainLine, "DOMAIN_MAX must exceed DOMAIN_MIN")
        }
        self.title = title
        self.kind = kind
        self.size = size
        self.domainMin = dmin
        self.domainMax = dmax
        self.table = values
    }

    /// A LUT from values (`table` as in a file).
    public init(kind: Kind, size: Int, table: [Float], title: String? = nil) {
        self.kind = kind
        self.size = size
        self.table = table
        self.title = title
    }
}

/// A malformed `.cube` file: the file, the 1-based line and what is wrong.
public struct CubeLUTError: Error, Sendable, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}
