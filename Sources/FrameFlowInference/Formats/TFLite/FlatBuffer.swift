/// A bounds-checked reader for FlatBuffers (the TFLite model format), without the
/// flatbuffers library: every offset is checked against the buffer, so a truncated or
/// corrupt model is a `ModelError`, never a crash.
struct FlatBuffer {
    let bytes: [UInt8]
    let file: String

    func fail(_ m: String) -> ModelError { ModelError("\(file): corrupt model (\(m))") }

    func u8(_ at: Int) throws -> UInt8 {
        guard at >= 0, at < bytes.count else { throw fail("read past the end at \(at)") }
        return bytes[at]
    }
    func u16(_ at: Int) throws -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { throw fail("read past the end at \(at)") }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }
    func u32(_ at: Int) throws -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { throw fail("read past the end at \(at)") }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    func i32(_ at: Int) throws -> Int32 { Int32(bitPattern: try u32(at)) }
    func u64(_ at: Int) throws -> UInt64 { UInt64(try u32(at)) | UInt64(try u32(at + 4)) << 32 }

    /// The root table's position.
    func root() throws -> Table {
        Table(fb: self, pos: Int(try u32(0)))
    }

    struct Table {
        let fb: FlatBuffer
        let pos: Int

        /// Position of field `index`'s value, or nil when absent.
        func field(_ index: Int) throws -> Int? {
            let vtable = pos - Int(try fb.i32(pos))
            let vsize = Int(try fb.u16(vtable))
            let entry = 4 + 2 * index
            guard entry + 2 <= vsize else { return nil }
            let off = Int(try fb.u16(vtable + entry))
            return off == 0 ? nil : pos + off
        }

        func int(_ index: Int, _ d: Int32 = 0) throws -> Int32 { try field(index).map { try fb.i32($0) } ?? d }
        func uint(_ index: Int, _ d: UInt32 = 0) throws -> UInt32 { try field(index).map { try fb.u32($0) } ?? d }
        func byte(_ index: Int, _ d: UInt8 = 0) throws -> UInt8 { try field(index).map { try fb.u8($0) } ?? d }
        func float(_ index: Int, _ d: Float = 0) throws -> Float { try field(index).map { Float(bitPattern: try fb.u32($0)) } ?? d }

        func table(_ index: Int) throws -> Table? {
            guard let f = try field(index) else { return nil }
            return Table(fb: fb, pos: f + Int(try fb.u32(f)))
        }

        /// (start of elements, count)
        func vector(_ index: Int) throws -> (Int, Int)? {
            guard let f = try field(index) else { return nil }
            let v = f + Int(try fb.u32(f))
            let n = Int(try fb.u32(v))
            guard n >= 0, v + 4 + n <= fb.bytes.count else { throw fb.fail("vector of \(n) runs past the end") }
            return (v + 4, n)
        }

        func tables(_ index: Int) throws -> [Table] {
            guard let (start, n) = try vector(index) else { return [] }
            return try (0..<n).map { i in
                let e = start + 4 * i
                return Table(fb: fb, pos: e + Int(try fb.u32(e)))
            }
        }

        func ints(_ index: Int) throws -> [Int32] {
            guard let (start, n) = try vector(index) else { return [] }
            guard start + 4 * n <= fb.bytes.count else { throw fb.fail("int vector runs past the end") }
            return try (0..<n).map { try fb.i32(start + 4 * $0) }
        }

        func bytesVector(_ index: Int) throws -> ArraySlice<UInt8> {
            guard let (start, n) = try vector(index) else { return [] }
            return fb.bytes[start..<(start + n)]
        }

        func string(_ index: Int) throws -> String {
            String(decoding: try bytesVector(index), as: UTF8.self)
        }
    }
}
