import Foundation
import FrameFlow

/// A colour lookup table read from an Adobe/Resolve `.cube` file: a 3-D table
/// (`LUT_3D_SIZE N`, N³ RGB rows, red varying fastest) or a 1-D one (`LUT_1D_SIZE N`),
/// with optional `TITLE`, `DOMAIN_MIN`, `DOMAIN_MAX` and `#` comments.
///
/// A malformed file is a `CubeLUTError` naming the file and line: a bad number, a wrong
/// number of values on a row, a size out of range (2…256 for 3-D, 2…65536 for 1-D) or a table
/// over `limits.maxTensorElements` values, a missing size, a domain that is
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

    /// Reads a `.cube` file, its table held to `limits.maxTensorElements` values.
    public init(contentsOfFile path: String, limits: ResourceLimits = ResourceLimits()) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CubeLUTError(file: path, line: 0, message: "cannot read the file")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), file: path, limits: limits)
    }

    /// Parses `.cube` text, its table held to `limits.maxTensorElements` values; `file` names
    /// it in errors.
    public init(text: String, file: String = "<cube>", limits: ResourceLimits = ResourceLimits()) throws {
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
        // ASCII whitespace, as Character.isWhitespace and CharacterSet.whitespacesAndNewlines see it.
        func isSpace(_ b: UInt8) -> Bool { b == 32 || (9...13).contains(b) }
        var lineNo = 0
        // Lines split, trimmed and cut into fields as UTF-8 bytes (by Character, a 17³ table
        // took ten times as long); a line with other than ASCII takes the Character path. A
        // CRLF line ends in "\r", trimmed as whitespace.
        for rawBytes in text.utf8.split(separator: 10, omittingEmptySubsequences: false) {
            lineNo += 1
            let line: Substring
            let parts: [Substring]
            if rawBytes.allSatisfy({ $0 < 0x80 }) {
                if !rawBytes.allSatisfy(isSpace) { lastLine = lineNo }
                var bytes = rawBytes
                if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes = bytes[..<hash] }
                while let b = bytes.first, isSpace(b) { bytes = bytes.dropFirst() }
                while let b = bytes.last, isSpace(b) { bytes = bytes.dropLast() }
                if bytes.isEmpty { continue }
                line = Substring(bytes)
                parts = bytes.split(whereSeparator: { $0 == 32 || $0 == 9 }).map { Substring($0) }
            } else {
                let raw = Substring(rawBytes)
                if !raw.allSatisfy({ $0.isWhitespace }) { lastLine = lineNo }
                var l = raw
                if let hash = l.firstIndex(of: "#") { l = l[..<hash] }
                line = l.trimmingCharacters(in: .whitespacesAndNewlines)[...]
                if line.isEmpty { continue }
                parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            }
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
                    throw fail(
                        lineNo,
                        "\(parts[0]) \(n) needs \(count) values, over the memory budget of \(limits.maxTensorElements) (ResourceLimits.maxTensorElements)"
                    )
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
