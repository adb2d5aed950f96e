// ZipArchive: a read-only ZIP archive held in memory (APPNOTE.TXT 6.3: end-of-central-directory
// record, central directory, local headers), as MediaPipe Tasks bundles (`.task`) and the
// associated files appended to `.tflite` models are written.
//
// Contract:
// - Opening reads the end record (found backwards through an archive comment of up to 64 KiB),
//   then every central directory entry and its local header; entries are listed in central
//   directory order. Nothing is inflated until an entry's data is asked for.
// - An archive may follow other bytes (a TFLite flatbuffer): as Python's zipfile and minizip
//   do, the bytes before it are the end record's position less the central directory's offset
//   and size, and every offset is shifted by that much, so offsets relative to the file's start
//   (zipfile's append mode) and to the archive's start (`cat model zip`) both read.
// - Methods 0 (stored) and 8 (deflate, through zlib); each entry's CRC-32 is checked when it is
//   read. ZIP64, multi-disk, encrypted entries and other methods are refused, naming the entry.
// - Untrusted input: entry count, name length, each entry's and the total declared size are
//   held to `BundleLimits`; data must lie before the central directory, and no two entries may
//   overlap; an entry that inflates past its declared size is refused without inflating more.
//   Every failure is a `ModelError` naming the archive (and the entry).
// - Names are only names (`../x`, `/etc/x` included): nothing is ever written to disk. A name is
//   UTF-8 when the entry's flag 11 says so, else code page 437 (as zipfile decodes it); two
//   entries of the same name are refused.

import CZlib

/// A read-only ZIP archive in memory: its entries and their bytes, each checked against its
/// CRC-32. Stored and deflated entries; the archive may be appended to other bytes.
///
/// ```swift
/// let zip = try ZipArchive(bytes: bytes, name: "hand_landmarker.task")
/// for entry in zip.entries { print(entry.name, entry.size) }
/// let model = try zip.data(named: "hand_detector.tflite")
/// ```
public struct ZipArchive: Sendable {
    /// One file of the archive, as its central directory describes it.
    public struct Entry: Sendable, Equatable {
        /// The entry's name (a path inside the archive; never used as a path on disk).
        public let name: String
        /// The compression method: 0 stored, 8 deflate (others are refused when read).
        public let method: Int
        /// The CRC-32 of the uncompressed bytes, as declared.
        public let crc32: UInt32
        /// Bytes the entry takes in the archive.
        public let compressedSize: Int
        /// Bytes of the entry once uncompressed, as declared.
        public let size: Int
        /// Where the entry's local header starts, counted from the start of the bytes given
        /// (zipfile's `header_offset`).
        public let headerOffset: Int
        /// Where the entry's compressed bytes start.
        let dataOffset: Int
        /// The general purpose flags (bit 0: encrypted).
        let flags: UInt16
    }

    /// The archive's name in error messages (a file name, or `outer.task/inner.task`).
    public let name: String
    /// The entries, in central directory order.
    public let entries: [Entry]
    /// How many bytes came before the archive (0 when its offsets count from the file's start).
    public let prefixLength: Int
    /// The archive's comment (from its end record).
    public let comment: [UInt8]
    private let bytes: [UInt8]
    private let index: [String: Int]

    private static let endSignature: UInt32 = 0x0605_4b50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4b50
    private static let centralSignature: UInt32 = 0x0201_4b50
    private static let localSignature: UInt32 = 0x0403_4b50

    /// Reads the archive's directory from `bytes`; `name` names it in errors.
    /// - Throws: `ModelError` when the bytes are not a ZIP archive FrameFlow reads, or break `limits`.
    public init(bytes: [UInt8], name: String, limits: BundleLimits = BundleLimits()) throws {
        self.bytes = bytes
        self.name = name
        func fail(_ m: String) -> ModelError { ModelError("\(name): \(m)") }
        let end = try Self.findEndRecord(bytes, name: name)
        let r = Reader(bytes: bytes)
        guard end < 20 || r.u32(end - 20) != Self.zip64LocatorSignature,
            r.u16(end + 8) != 0xFFFF, r.u32(end + 12) != 0xFFFF_FFFF, r.u32(end + 16) != 0xFFFF_FFFF
        else { throw fail("ZIP64 archives are not supported") }
        guard r.u16(end + 4) == 0, r.u16(end + 6) == 0, r.u16(end + 8) == r.u16(end + 10) else {
            throw fail("multi-disk archives are not supported")
        }
        let count = Int(r.u16(end + 10)), directorySize = Int(r.u32(end + 12)), directoryOffset = Int(r.u32(end + 16))
        guard count <= limits.maxEntries else {
            throw fail("\(count) entries, over the limit of \(limits.maxEntries) (BundleLimits.maxEntries)")
        }
        // The bytes before the archive: zero when its offsets count from the start of `bytes`.
        let prefix = end - directorySize - directoryOffset
        guard prefix >= 0 else {
            throw fail(
                "the central directory (\(directorySize) bytes at \(directoryOffset)) runs past the end record at \(end); the archive is truncated or corrupt"
            )
        }
        prefixLength = prefix
        comment = Array(bytes[(end + 22)..<(end + 22 + Int(r.u16(end + 20)))])
        let directoryStart = directoryOffset + prefix

        var entries: [Entry] = []
        var index: [String: Int] = [:]
        var total = 0
        var at = directoryStart
        for i in 0..<count {
            guard at + 46 <= end, r.u32(at) == Self.centralSignature else {
                throw fail("central directory entry \(i) of \(count) is missing or corrupt (at \(at))")
            }
            let flags = r.u16(at + 8), method = Int(r.u16(at + 10)), crc = r.u32(at + 16)
            let compressed = r.u32(at + 20), size = r.u32(at + 24)
            let nameLength = Int(r.u16(at + 28)), extraLength = Int(r.u16(at + 30)), commentLength = Int(r.u16(at + 32))
            let local = r.u32(at + 42)
            guard at + 46 + nameLength + extraLength + commentLength <= end else {
                throw fail("central directory entry \(i) runs past the directory's end")
            }
            let rawName = Array(bytes[(at + 46)..<(at + 46 + nameLength)])
            let entryName = Self.decodeName(rawName, utf8: flags & 0x0800 != 0)
            func entryFail(_ m: String) -> ModelError { fail("entry '\(entryName)': \(m)") }
            guard nameLength <= limits.maxNameLength else {
                throw entryFail("a name of \(nameLength) bytes, over the limit of \(limits.maxNameLength) (BundleLimits.maxNameLength)")
            }
            guard compressed != 0xFFFF_FFFF, size != 0xFFFF_FFFF, local != 0xFFFF_FFFF else {
                throw entryFail("ZIP64 entries are not supported")
            }
            guard Int(size) <= limits.maxEntryBytes else {
                throw entryFail("declares \(size) bytes, over the limit of \(limits.maxEntryBytes) (BundleLimits.maxEntryBytes)")
            }
            total += Int(size)
            guard total <= limits.maxTotalBytes else {
                throw entryFail("the entries so far declare \(total) bytes, over the limit of \(limits.maxTotalBytes) (BundleLimits.maxTotalBytes)")
            }
            guard method != 0 || compressed == size else {
                throw entryFail("stored, but declares \(size) bytes in \(compressed)")
            }
            // The local header repeats the name; the data follows it and its extra field.
            let header = Int(local) + prefix
            guard header + 30 <= directoryStart, r.u32(header) == Self.localSignature else {
                throw entryFail("no local header at \(header) (before the central directory at \(directoryStart))")
            }
            let localNameLength = Int(r.u16(header + 26)), localExtraLength = Int(r.u16(header + 28))
            let dataStart = header + 30 + localNameLength + localExtraLength
            guard dataStart + Int(compressed) <= directoryStart else {
                throw entryFail("its \(compressed) bytes at \(dataStart) run past the central directory at \(directoryStart)")
            }
            guard bytes[(header + 30)..<(header + 30 + localNameLength)].elementsEqual(rawName) else {
                throw entryFail(
                    "the local header names '\(Self.decodeName(Array(bytes[(header + 30)..<(header + 30 + localNameLength)]), utf8: flags & 0x0800 != 0))'"
                )
            }
            guard index[entryName] == nil else { throw entryFail("two entries have this name") }
            index[entryName] = entries.count
            entries.append(
                Entry(
                    name: entryName, method: method, crc32: crc, compressedSize: Int(compressed), size: Int(size), headerOffset: header,
                    dataOffset: dataStart, flags: flags))
            at += 46 + nameLength + extraLength + commentLength
        }
        // Entries that share bytes are how small archives inflate to huge ones: refused.
        let byOffset = entries.sorted { $0.headerOffset < $1.headerOffset }
        for (a, b) in zip(byOffset, byOffset.dropFirst()) where b.headerOffset < a.dataOffset + a.compressedSize {
            throw fail("entries '\(a.name)' and '\(b.name)' overlap")
        }
        self.entries = entries
        self.index = index
    }

    /// The entry named `name` (exactly), or nil.
    public func entry(named name: String) -> Entry? { index[name].map { entries[$0] } }

    /// The uncompressed bytes of the entry named `name`.
    /// - Throws: `ModelError` naming the archive, the entry and the entries present when there
    ///   is none of that name; or naming the entry when it cannot be read.
    public func data(named name: String) throws -> [UInt8] {
        guard let entry = entry(named: name) else {
            throw ModelError("\(self.name): no entry '\(name)' (entries: \(entries.map(\.name).joined(separator: ", ")))")
        }
        return try data(of: entry)
    }

    /// The uncompressed bytes of `entry`, checked against its CRC-32.
    /// - Throws: `ModelError` naming the archive and the entry when it is encrypted, uses another
    ///   method, does not inflate to its declared size, or fails its CRC-32.
    public func data(of entry: Entry) throws -> [UInt8] {
        func fail(_ m: String) -> ModelError { ModelError("\(name): entry '\(entry.name)': \(m)") }
        // An entry of another archive would point at other bytes.
        guard let i = index[entry.name], entries[i] == entry else { throw fail("not an entry of this archive") }
        guard entry.flags & 1 == 0 else { throw fail("encrypted entries are not supported") }
        let raw = bytes[entry.dataOffset..<(entry.dataOffset + entry.compressedSize)]
        let out: [UInt8]
        switch entry.method {
        case 0: out = Array(raw)
        case 8: out = try Self.inflate(raw, size: entry.size, fail: fail)
        default: throw fail("compression method \(entry.method) is not supported (only 0, stored, and 8, deflate)")
        }
        let crc = Self.crc32(out)
        guard crc == entry.crc32 else {
            throw fail("CRC-32 \(hex(crc)) of its bytes differs from the declared \(hex(entry.crc32))")
        }
        return out
    }

    /// Whether `bytes` end in what looks like a ZIP end-of-central-directory record (with a
    /// comment of up to 64 KiB); a cheap check before `init`.
    public static func hasEndRecord(_ bytes: [UInt8]) -> Bool { (try? findEndRecord(bytes, name: "")) != nil }

    /// The CRC-32 (ISO 3309, zlib's) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { b in
            var crc: uLong = CZlib.crc32(0, nil, 0)
            var at = 0
            while at < b.count {
                let n = min(b.count - at, 1 << 30)
                crc = CZlib.crc32(crc, b.baseAddress! + at, uInt(n))
                at += n
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// The position of the end-of-central-directory record: the last signature in the final
    /// 22 + 65535 bytes (the record and the longest comment), whose comment fits the bytes.
    private static func findEndRecord(_ bytes: [UInt8], name: String) throws -> Int {
        guard bytes.count >= 22 else {
            throw ModelError("\(name): not a ZIP archive (\(bytes.count) bytes, fewer than an end-of-central-directory record)")
        }
        let r = Reader(bytes: bytes)
        var at = bytes.count - 22
        let lowest = max(0, at - 65535)
        while at >= lowest {
            if bytes[at] == 0x50, r.u32(at) == endSignature {
                let comment = Int(r.u16(at + 20))
                guard at + 22 + comment <= bytes.count else {
                    throw ModelError("\(name): the archive's comment (\(comment) bytes) runs past the end; the archive is truncated")
                }
                return at
            }
            at -= 1
        }
        throw ModelError("\(name): not a ZIP archive (no end-of-central-directory record)")
    }

    /// Raw deflate (no zlib header) of `raw` into exactly `size` bytes. The output grows as
    /// zlib fills it, never past `size` + 1 bytes, so a lying declared size costs nothing.
    private static func inflate(_ raw: ArraySlice<UInt8>, size: Int, fail: (String) -> ModelError) throws -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard ff_inflate_init_raw(stream) == Z_OK else { throw fail("zlib could not start inflating") }
        defer { inflateEnd(stream) }
        // One byte past the declared size tells "more than declared" from "exactly".
        let capacity = size + 1
        var out = [UInt8](repeating: 0, count: min(capacity, max(1 << 16, raw.count * 4)))
        var produced = 0
        return try raw.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                if produced == out.count {
                    guard out.count < capacity else { throw fail("inflates to more than its declared \(size) bytes") }
                    out.append(contentsOf: repeatElement(0, count: min(capacity, out.count * 2) - out.count))
                }
                let status = out.withUnsafeMutableBufferPointer { o -> Int32 in
                    stream.pointee.next_out = o.baseAddress! + produced
                    stream.pointee.avail_out = uInt(o.count - produced)
                    let s = CZlib.inflate(stream, Z_NO_FLUSH)
                    produced = o.count - Int(stream.pointee.avail_out)
                    return s
                }
                switch status {
                case Z_STREAM_END:
                    guard produced == size else { throw fail("inflates to \(produced) bytes, not its declared \(size)") }
                    out.removeLast(out.count - produced)
                    return out
                case Z_OK: continue
                case Z_BUF_ERROR:
                    // No progress: the output is full (grown above), or the input ended early.
                    if produced < out.count { throw fail("its deflate stream is truncated") }
                case Z_DATA_ERROR: throw fail("corrupt deflate data (\(stream.pointee.msg.map { String(cString: $0) } ?? "zlib"))")
                default: throw fail("zlib failed inflating (status \(status))")
                }
            }
        }
    }

    /// An entry's name: UTF-8 under flag 11, else code page 437 (ASCII below 128).
    private static func decodeName(_ raw: [UInt8], utf8: Bool) -> String {
        if utf8 || raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        var s = String.UnicodeScalarView()
        for b in raw { s.append(b < 0x80 ? Unicode.Scalar(b) : cp437[Int(b) - 0x80]) }
        return String(s)
    }

    /// Code page 437's characters for bytes 128...255.
    private static let cp437 = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}"
            .unicodeScalars)

    /// Little-endian reads at positions the caller has checked.
    private struct Reader {
        let bytes: [UInt8]
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    }
}

/// `v` as eight hex digits.
private func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 8 - s.count) + s
}
