/// A bounds-checked reader for FlexBuffers, the schema-less format of a TFLite custom
/// operator's `custom_options`, without the flatbuffers library. It reads what MediaPipe's
/// custom operators store there: a map of integers, floats and integer vectors.
///
/// A FlexBuffer is read from its end: the last byte is the root's width in bytes, the one
/// before it the root's packed type (type `<< 2 |` log2 of its width), and the root value
/// sits just before those. Maps, vectors and strings are stored earlier and referred to by
/// unsigned offsets counted backwards. Every offset, size and width is checked against the
/// buffer, so a truncated or forged buffer is a `ModelError`, never a crash.
///
/// ```
/// let options = try FlexBuffer(bytes: customOptions, context: "operator 3 (TransformTensorBilinear)").root().map()
/// let height = try options.int("output_height")   // 16
/// ```
struct FlexBuffer {
    let bytes: [UInt8]
    /// Where the buffer comes from, at the start of each error.
    let context: String

    init(bytes: some Sequence<UInt8>, context: String) {
        self.bytes = Array(bytes)
        self.context = context
    }

    /// The value types of the format (`flexbuffers::Type`) this reader tells apart.
    enum ValueType: UInt8 {
        case null = 0, int, uint, float, key, string, indirectInt, indirectUInt, indirectFloat, map, vector
        case vectorInt, vectorUInt, vectorFloat, vectorKey
        case vectorInt2 = 16, vectorUInt2, vectorFloat2, vectorInt3, vectorUInt3, vectorFloat3, vectorInt4, vectorUInt4, vectorFloat4
        case blob = 25, bool = 26, vectorBool = 36
    }

    func fail(_ message: String) -> ModelError { ModelError("\(context): custom_options: \(message)") }

    /// The unsigned integer of `width` bytes (1, 2, 4 or 8) at `at`, little-endian.
    func uint(_ at: Int, width: Int) throws -> UInt64 {
        guard [1, 2, 4, 8].contains(width) else { throw fail("invalid byte width \(width)") }
        guard at >= 0, at <= bytes.count - width else { throw fail("read of \(width) bytes at \(at) past the end (\(bytes.count) bytes)") }
        var v: UInt64 = 0
        for i in (0..<width).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        return v
    }

    /// The signed integer of `width` bytes at `at` (sign-extended).
    func int(_ at: Int, width: Int) throws -> Int64 {
        let u = try uint(at, width: width)
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: u << shift) >> Int64(shift)
    }

    /// The float of `width` bytes (4 or 8) at `at`.
    func float(_ at: Int, width: Int) throws -> Double {
        switch width {
        case 4: return Double(Float(bitPattern: UInt32(try uint(at, width: 4))))
        case 8: return Double(bitPattern: try uint(at, width: 8))
        default: throw fail("a float of \(width) bytes")
        }
    }

    /// The position an offset stored at `at` (in `width` bytes) points back to.
    func target(_ at: Int, width: Int) throws -> Int {
        let offset = try uint(at, width: width)
        guard offset <= UInt64(at) else { throw fail("offset \(offset) at \(at) points before the start") }
        return at - Int(offset)
    }

    /// The root value.
    func root() throws -> Reference {
        guard bytes.count >= 3 else { throw fail("\(bytes.count) bytes, too short for a FlexBuffer") }
        let width = Int(bytes[bytes.count - 1])
        guard [1, 2, 4, 8].contains(width), bytes.count >= 2 + width else { throw fail("invalid root width \(width)") }
        return try Reference(buffer: self, at: bytes.count - 2 - width, parentWidth: width, packedType: bytes[bytes.count - 2])
    }

    /// One value: where it is stored, the width of the slot that holds it, and its packed type.
    struct Reference {
        let buffer: FlexBuffer
        /// The slot: the value itself for inline scalars, an offset to it otherwise.
        let at: Int
        let parentWidth: Int
        let type: ValueType
        /// The width of the value pointed to (for indirect scalars) or of a vector's elements.
        let width: Int

        init(buffer: FlexBuffer, at: Int, parentWidth: Int, packedType: UInt8) throws {
            guard let type = ValueType(rawValue: packedType >> 2) else { throw buffer.fail("unknown value type \(packedType >> 2)") }
            self.buffer = buffer
            self.at = at
            self.parentWidth = parentWidth
            self.type = type
            self.width = 1 << Int(packedType & 3)
        }

        /// An integer (signed, unsigned, boolean, inline or indirect); a float or anything else
        /// is an error, as is a value past Int64.
        func int() throws -> Int64 {
            switch type {
            case .int: return try buffer.int(at, width: parentWidth)
            case .uint, .bool: return try checkedSigned(try buffer.uint(at, width: parentWidth))
            case .indirectInt: return try buffer.int(try buffer.target(at, width: parentWidth), width: width)
            case .indirectUInt: return try checkedSigned(try buffer.uint(try buffer.target(at, width: parentWidth), width: width))
            default: throw buffer.fail("\(type) where an integer belongs")
            }
        }

        /// A number: a float, or an integer (as flexbuffers' `AsFloat` reads one).
        func double() throws -> Double {
            switch type {
            case .float: return try buffer.float(at, width: parentWidth)
            case .indirectFloat: return try buffer.float(try buffer.target(at, width: parentWidth), width: width)
            case .int, .uint, .bool, .indirectInt, .indirectUInt: return Double(try int())
            default: throw buffer.fail("\(type) where a number belongs")
            }
        }

        private func checkedSigned(_ u: UInt64) throws -> Int64 {
            guard u <= UInt64(Int64.max) else { throw buffer.fail("integer \(u) out of range") }
            return Int64(u)
        }

        /// The start and element count of a vector-like value (`vector`, typed vectors, `map`),
        /// with `count` elements of `width` bytes checked to lie in the buffer (and, for an
        /// untyped vector or a map, the `count` type bytes after them).
        func elements() throws -> (start: Int, count: Int) {
            let start = try buffer.target(at, width: parentWidth)
            let fixed: Int? =
                switch type {
                case .vectorInt2, .vectorUInt2, .vectorFloat2: 2
                case .vectorInt3, .vectorUInt3, .vectorFloat3: 3
                case .vectorInt4, .vectorUInt4, .vectorFloat4: 4
                case .vector, .map, .vectorInt, .vectorUInt, .vectorFloat, .vectorKey, .vectorBool: nil
                default: throw buffer.fail("\(type) where a vector belongs")
                }
            let count: Int
            if let fixed {
                count = fixed
            } else {
                let n = try buffer.uint(start - width, width: width)
                guard n <= UInt64(buffer.bytes.count) else { throw buffer.fail("vector of \(n) elements in \(buffer.bytes.count) bytes") }
                count = Int(n)
            }
            let typeBytes = type == .vector || type == .map ? count : 0
            guard start >= 0, count * width + typeBytes <= buffer.bytes.count - start else {
                throw buffer.fail("vector of \(count) elements of \(width) bytes at \(start) runs past the end")
            }
            return (start, count)
        }

        /// Element `i` of an untyped vector or map (whose type bytes follow the elements), or of
        /// a typed vector.
        func element(_ i: Int, start: Int, count: Int) throws -> Reference {
            let packed: UInt8
            switch type {
            case .vector, .map: packed = buffer.bytes[start + count * width + i]
            case .vectorInt, .vectorInt2, .vectorInt3, .vectorInt4: packed = ValueType.int.rawValue << 2
            case .vectorUInt, .vectorUInt2, .vectorUInt3, .vectorUInt4: packed = ValueType.uint.rawValue << 2
            case .vectorFloat, .vectorFloat2, .vectorFloat3, .vectorFloat4: packed = ValueType.float.rawValue << 2
            case .vectorBool: packed = ValueType.bool.rawValue << 2
            case .vectorKey: packed = ValueType.key.rawValue << 2
            default: throw buffer.fail("\(type) has no elements")
            }
            return try Reference(buffer: buffer, at: start + i * width, parentWidth: width, packedType: packed)
        }

        /// A vector of integers: a typed integer vector, or an untyped one whose elements are
        /// all integers.
        func ints() throws -> [Int64] {
            guard type != .map, type != .vectorFloat, type != .vectorKey, type != .vectorFloat2, type != .vectorFloat3, type != .vectorFloat4 else {
                throw buffer.fail("\(type) where a vector of integers belongs")
            }
            let (start, count) = try elements()
            return try (0..<count).map { try element($0, start: start, count: count).int() }
        }

        /// A key: the bytes up to the terminating zero.
        func key() throws -> [UInt8] {
            guard type == .key else { throw buffer.fail("\(type) where a key belongs") }
            let start = try buffer.target(at, width: parentWidth)
            guard let end = buffer.bytes[start...].firstIndex(of: 0) else { throw buffer.fail("key at \(start) has no terminating zero") }
            return Array(buffer.bytes[start..<end])
        }

        /// The value as a map.
        func map() throws -> Map {
            guard type == .map else { throw buffer.fail("the options are a \(type), not a map") }
            let (start, count) = try elements()
            // Before the size: the keys vector's offset, then its element width.
            let keysSlot = start - 3 * width
            let keysWidth = try buffer.uint(start - 2 * width, width: width)
            guard [1, 2, 4, 8].contains(keysWidth) else { throw buffer.fail("invalid key width \(keysWidth)") }
            let keys = try Reference(
                buffer: buffer, at: keysSlot, parentWidth: width,
                packedType: ValueType.vectorKey.rawValue << 2 | UInt8(keysWidth.trailingZeroBitCount))
            let (keysStart, keyCount) = try keys.elements()
            guard keyCount == count else { throw buffer.fail("map of \(count) values has \(keyCount) keys") }
            var entries: [(key: String, value: Reference)] = []
            for i in 0..<count {
                let key = try keys.element(i, start: keysStart, count: keyCount).key()
                entries.append((String(decoding: key, as: UTF8.self), try element(i, start: start, count: count)))
            }
            return Map(buffer: buffer, entries: entries)
        }
    }

    /// A map's keys and values, in stored order.
    struct Map {
        let buffer: FlexBuffer
        let entries: [(key: String, value: Reference)]

        subscript(key: String) -> Reference? { entries.first { $0.key == key }?.value }

        /// The value at `key`, which must be there.
        func required(_ key: String) throws -> Reference {
            guard let v = self[key] else { throw buffer.fail("no '\(key)'") }
            return v
        }

        /// The integer at `key`, which must fit Int32 (the operators' C++ reads `AsInt32`).
        func int(_ key: String) throws -> Int {
            let v = try withKey(key) { try $0.int() }
            guard let i = Int32(exactly: v) else { throw buffer.fail("'\(key)' = \(v) is out of range") }
            return Int(i)
        }

        /// The number at `key` as a Float, which must be finite; `default` when absent.
        func float(_ key: String, default d: Float? = nil) throws -> Float {
            if self[key] == nil, let d { return d }
            let v = Float(try withKey(key) { try $0.double() })
            guard v.isFinite else { throw buffer.fail("'\(key)' = \(v) is not finite") }
            return v
        }

        /// The integers at `key`, each fitting Int32.
        func ints(_ key: String) throws -> [Int] {
            try withKey(key) { try $0.ints() }.map {
                guard let i = Int32(exactly: $0) else { throw buffer.fail("'\(key)' holds \($0), out of range") }
                return Int(i)
            }
        }

        /// Runs `read` on the value at `key`, naming the key in any error.
        private func withKey<T>(_ key: String, _ read: (Reference) throws -> T) throws -> T {
            do {
                return try read(try required(key))
            } catch let e as ModelError where !e.message.contains("'\(key)'") {
                throw ModelError("\(e.message) (reading '\(key)')")
            }
        }
    }
}
