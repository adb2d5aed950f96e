/// A protobuf wire-format reader over bytes, checking every length against the end.
/// Truncated or corrupt input throws `ProtoReader.DecodeError` with the byte offset; each
/// format maps it to its own error (FrameFlowML's ONNX decoder to `ModelError`).
package struct ProtoReader {
    /// Corrupt or truncated input: `source` (the file) and what went wrong at which byte.
    package struct DecodeError: Error, Sendable, CustomStringConvertible {
        package let source: String
        package let reason: String
        package let offset: Int
        package var description: String { "\(source): \(reason) at byte \(offset)" }
    }

    package let bytes: UnsafeRawBufferPointer
    package var pos: Int
    package let end: Int
    /// The name errors give for the input (a file path).
    package let what: String

    package init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil, what: String) {
        self.bytes = bytes
        pos = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
        self.what = what
    }

    package var atEnd: Bool { pos >= end }

    package func fail(_ m: String) -> DecodeError { DecodeError(source: what, reason: m, offset: pos) }

    package mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard pos < end else { throw fail("truncated varint") }
            let b = bytes[pos]
            pos += 1
            if shift >= 64 { throw fail("varint too long") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// (field number, wire type)
    package mutating func tag() throws -> (Int, Int) {
        let t = try varint()
        let field = Int(t >> 3), wire = Int(t & 7)
        guard field > 0 else { throw fail("invalid field number 0") }
        return (field, wire)
    }

    package mutating func fixed32() throws -> UInt32 {
        guard end - pos >= 4 else { throw fail("truncated fixed32") }
        let v = bytes.loadUnaligned(fromByteOffset: pos, as: UInt32.self)
        pos += 4
        return UInt32(littleEndian: v)
    }

    package mutating func fixed64() throws -> UInt64 {
        guard end - pos >= 8 else { throw fail("truncated fixed64") }
        let v = bytes.loadUnaligned(fromByteOffset: pos, as: UInt64.self)
        pos += 8
        return UInt64(littleEndian: v)
    }

    /// A length-delimited field's byte range.
    package mutating func lengthDelimited() throws -> Range<Int> {
        let n = try varint()
        guard n <= UInt64(end - pos) else { throw fail("length \(n) runs past the end (\(end - pos) bytes left)") }
        let r = pos..<(pos + Int(n))
        pos += Int(n)
        return r
    }

    package mutating func string() throws -> String {
        let r = try lengthDelimited()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[r]), as: UTF8.self)
    }

    package mutating func skip(_ wire: Int) throws {
        switch wire {
        case 0: _ = try varint()
        case 1: _ = try fixed64()
        case 2: _ = try lengthDelimited()
        case 5: _ = try fixed32()
        default: throw fail("unsupported wire type \(wire)")
        }
    }

    /// Repeated int64 (packed or not).
    package mutating func int64s(_ wire: Int, into out: inout [Int64]) throws {
        try repeated(wire, into: &out, width: nil, "int64s") { Int64(bitPattern: try $0.varint()) }
    }

    /// Repeated float (packed or not).
    package mutating func floats(_ wire: Int, into out: inout [Float]) throws {
        try repeated(wire, into: &out, width: 4, "floats") { Float(bitPattern: try $0.fixed32()) }
    }

    package mutating func doubles(_ wire: Int, into out: inout [Double]) throws {
        try repeated(wire, into: &out, width: 8, "doubles") { Double(bitPattern: try $0.fixed64()) }
    }

    /// A repeated scalar field, packed (wire type 2: a run of `width`-byte values, or varints
    /// when `width` is nil) or one value; `element` reads one value from a reader.
    private mutating func repeated<T>(
        _ wire: Int, into out: inout [T], width: Int?, _ kind: String, _ element: (inout ProtoReader) throws -> T
    ) throws {
        if wire == 2 {
            let r = try lengthDelimited()
            if let width, r.count % width != 0 { throw fail("packed \(kind) of \(r.count) bytes") }
            var sub = ProtoReader(bytes, range: r, what: what)
            while !sub.atEnd { out.append(try element(&sub)) }
        } else {
            out.append(try element(&self))
        }
    }
}
