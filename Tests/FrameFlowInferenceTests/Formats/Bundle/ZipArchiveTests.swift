import Foundation
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// The ZIP reader against Python's zipfile (listings and SHA-256 digests written by
/// scripts/fixtures/make_bundle_fixtures.py, deflate by Python's zlib), and on broken archives:
/// each a `ModelError` naming the archive (and the entry), none a crash.
@Suite struct ZipArchiveTests {
    /// Every entry's name, sizes, method, CRC-32 and header offset as zipfile lists them, and its
    /// bytes' SHA-256 as zipfile reads them.
    static func expectMatches(_ archive: ZipArchive, _ listing: [String: Any]) throws {
        let expected = try #require(listing["entries"] as? [[String: Any]])
        #expect(archive.entries.map(\.name) == expected.map { $0["name"] as? String })
        for (entry, want) in zip(archive.entries, expected) {
            #expect(entry.size == want["size"] as? Int, "\(entry.name)")
            #expect(entry.compressedSize == want["compressedSize"] as? Int, "\(entry.name)")
            #expect(entry.method == want["method"] as? Int, "\(entry.name)")
            #expect(Int(entry.crc32) == want["crc32"] as? Int, "\(entry.name)")
            #expect(entry.headerOffset == want["headerOffset"] as? Int, "\(entry.name)")
            #expect(BundleFixtures.sha256(try archive.data(of: entry)) == want["sha256"] as? String, "\(entry.name)")
        }
        #expect(String(decoding: archive.comment, as: UTF8.self) == listing["comment"] as? String)
    }

    @Test func deflatedStoredEmptyAndDirectoryEntriesMatchZipfile() throws {
        let zip = try ZipArchive(bytes: try BundleFixtures.committed("deflate.zip"), name: "deflate.zip")
        try Self.expectMatches(zip, try BundleFixtures.json("deflate.json"))
        #expect(zip.prefixLength == 0)
        // Names are only names: a UTF-8 one decoded, one that climbs out is kept as it is.
        #expect(zip.entry(named: "folder/n\u{E4}me.txt") != nil)
        #expect(String(decoding: try zip.data(named: "../outside.txt"), as: UTF8.self) == "a name, never a path\n")
    }

    /// Bytes before the archive, its offsets counting from its own start: zipfile's shift.
    @Test func anArchiveAfterOtherBytesMatchesZipfile() throws {
        let bytes = try BundleFixtures.committed("appended.bin"), alone = try BundleFixtures.committed("deflate.zip")
        let zip = try ZipArchive(bytes: bytes, name: "appended.bin")
        try Self.expectMatches(zip, try BundleFixtures.json("appended.json"))
        #expect(zip.prefixLength == bytes.count - alone.count)
    }

    /// 8 MiB of zeros in 8 KiB: inflated under the default limits, refused (declared size) under
    /// 1 MiB, and refused after 1 MiB when the archive lies about its size.
    @Test func aZipBombIsRefusedNotInflated() throws {
        let bomb = try BundleFixtures.committed("zeros.zip")
        let zeros = try ZipArchive(bytes: bomb, name: "zeros.zip").data(named: "zeros.bin")
        #expect(zeros.count == 8 << 20 && zeros.allSatisfy { $0 == 0 })
        var small = BundleLimits()
        small.maxEntryBytes = 1 << 20
        #expect {
            try ZipArchive(bytes: bomb, name: "zeros.zip", limits: small)
        } throws: { ($0 as? ModelError)?.message.contains("zeros.zip: entry 'zeros.bin': declares 8388608 bytes, over the limit") == true }
        // Declared as 1 MiB in the central directory: opens, and inflating stops past 1 MiB.
        var lying = bomb
        let central = try #require(BundleFixtures.centralEntries(lying).first)
        BundleFixtures.patch(&lying, at: central + 24, 1 << 20, width: 4)
        let zip = try ZipArchive(bytes: lying, name: "zeros.zip", limits: small)
        #expect {
            try zip.data(named: "zeros.bin")
        } throws: { ($0 as? ModelError)?.message == "zeros.zip: entry 'zeros.bin': inflates to more than its declared 1048576 bytes" }
    }

    /// Cut at every 7th byte and at each of the last 64: no end record, a comment or directory
    /// past the end, or entries past the directory — each an error naming the archive.
    @Test func truncatedArchivesAreErrors() throws {
        let bytes = try BundleFixtures.committed("deflate.zip")
        let cuts = Array(stride(from: 0, to: bytes.count, by: 7)) + Array((bytes.count - 64)..<bytes.count)
        for cut in cuts {
            #expect(throws: ModelError.self, "cut at \(cut)") { try ZipArchive(bytes: Array(bytes[..<cut]), name: "deflate.zip") }
        }
        // Bytes lost from the front: the directory's offset now lies past its end record.
        for cut in [1, 30, 2000] {
            #expect {
                try ZipArchive(bytes: Array(bytes[cut...]), name: "deflate.zip")
            } throws: { ($0 as? ModelError)?.message.hasPrefix("deflate.zip:") == true }
        }
    }

    /// The data of `stored.txt` altered, then its declared CRC-32: read errors naming it.
    @Test func aWrongCRCIsAnError() throws {
        var bytes = try BundleFixtures.committed("deflate.zip")
        let zip = try ZipArchive(bytes: bytes, name: "deflate.zip")
        let entry = try #require(zip.entry(named: "stored.txt"))
        bytes[entry.dataOffset + 3] ^= 0x20
        #expect {
            try ZipArchive(bytes: bytes, name: "deflate.zip").data(named: "stored.txt")
        } throws: { ($0 as? ModelError)?.message.hasPrefix("deflate.zip: entry 'stored.txt': CRC-32 ") == true }
        var crc = try BundleFixtures.committed("deflate.zip")
        let central = BundleFixtures.centralEntries(crc)[3]
        BundleFixtures.patch(&crc, at: central + 16, 0x1234_5678, width: 4)
        #expect {
            try ZipArchive(bytes: crc, name: "deflate.zip").data(named: "stored.txt")
        } throws: { ($0 as? ModelError)?.message.contains("differs from the declared 12345678") == true }
    }

    /// Offsets and sizes in the central directory and end record that point elsewhere.
    @Test(
        arguments: [
            (16, 0x7FFF_0000, "no local header"),  // the local header's offset, past the directory
            (16, 0, "the local header names 'labels.txt'"),  // another entry's local header
            (4, 0x0100_0000, "run past the central directory"),  // a compressed size past the directory
            (8, 0xFFFF_FFFE, "over the limit of 1073741824"),  // a declared size over BundleLimits.maxEntryBytes
            (8, 0xFFFF_FFFF, "ZIP64 entries are not supported"),
        ] as [(Int, UInt32, String)])
    func badOffsetsAndSizesAreErrorsNamingTheEntry(_ field: Int, _ value: UInt32, _ message: String) throws {
        var bytes = try BundleFixtures.committed("deflate.zip")
        // Central directory entry 1 (random.bin): +20 compressed size, +24 size, +42 local offset.
        let central = BundleFixtures.centralEntries(bytes)[1]
        let at = [4: central + 20, 8: central + 24, 16: central + 42][field]!
        BundleFixtures.patch(&bytes, at: at, value, width: 4)
        if field == 4 { BundleFixtures.patch(&bytes, at: central + 24, value, width: 4) }
        #expect {
            try ZipArchive(bytes: bytes, name: "deflate.zip")
        } throws: { error in
            let m = (error as? ModelError)?.message ?? ""
            return m.hasPrefix("deflate.zip: entry 'random.bin': ") && m.contains(message)
        }
    }

    /// The end record's directory offset, entry count and disk numbers.
    @Test func badEndRecordsAreErrors() throws {
        let bytes = try BundleFixtures.committed("deflate.zip")
        let end = try #require(BundleFixtures.last(0x0605_4b50, in: bytes))
        func opening(_ change: (inout [UInt8]) -> Void) -> String {
            var b = bytes
            change(&b)
            do {
                _ = try ZipArchive(bytes: b, name: "deflate.zip")
                return "opened"
            } catch { return (error as? ModelError)?.message ?? "\(error)" }
        }
        #expect(opening { BundleFixtures.patch(&$0, at: end + 16, 0x00FF_FFFF, width: 4) }.contains("runs past the end record"))
        #expect(opening { BundleFixtures.patch(&$0, at: end + 10, 9, width: 2) }.contains("multi-disk"))
        #expect(opening { BundleFixtures.patch(&$0, at: end + 4, 1, width: 2) }.contains("multi-disk"))
        #expect(opening { BundleFixtures.patch(&$0, at: end + 8, 0xFFFF, width: 2) }.contains("ZIP64"))
        #expect(opening { BundleFixtures.patch(&$0, at: end + 20, 0xFFFF, width: 2) }.contains("comment (65535 bytes) runs past the end"))
        // A directory that says it holds one more entry than it does.
        #expect(
            opening {
                BundleFixtures.patch(&$0, at: end + 8, 8, width: 2)
                BundleFixtures.patch(&$0, at: end + 10, 8, width: 2)
            }.contains("central directory entry 7 of 8 is missing or corrupt"))
        #expect(opening { _ in } == "opened")
    }

    /// Limits on entries, names and the total size, each named in the error.
    @Test func limitsAreNamed() throws {
        let bytes = try BundleFixtures.committed("deflate.zip")
        func message(_ change: (inout BundleLimits) -> Void) -> String {
            var limits = BundleLimits()
            change(&limits)
            do {
                _ = try ZipArchive(bytes: bytes, name: "deflate.zip", limits: limits)
                return "opened"
            } catch { return (error as? ModelError)?.message ?? "\(error)" }
        }
        #expect(message { $0.maxEntries = 6 } == "deflate.zip: 7 entries, over the limit of 6 (BundleLimits.maxEntries)")
        #expect(message { $0.maxNameLength = 12 }.hasPrefix("deflate.zip: entry 'folder/n\u{E4}me.txt': a name of 16 bytes"))
        #expect(message { $0.maxTotalBytes = 4000 }.contains("entry 'random.bin': the entries so far declare 4890 bytes"))
        #expect(message { $0.maxEntryBytes = 3000 } == "opened")
    }

    /// Unsupported methods and encryption are refused when the entry is read; the others still read.
    @Test func otherMethodsAndEncryptionAreErrorsWhenRead() throws {
        var bytes = try BundleFixtures.committed("deflate.zip")
        let centrals = BundleFixtures.centralEntries(bytes)
        BundleFixtures.patch(&bytes, at: centrals[0] + 10, 12, width: 2)  // labels.txt: bzip2
        BundleFixtures.patch(&bytes, at: centrals[1] + 8, 1, width: 2)  // random.bin: encrypted
        let zip = try ZipArchive(bytes: bytes, name: "deflate.zip")
        #expect {
            try zip.data(named: "labels.txt")
        } throws: {
            ($0 as? ModelError)?.message == "deflate.zip: entry 'labels.txt': compression method 12 is not supported (only 0, stored, and 8, deflate)"
        }
        #expect {
            try zip.data(named: "random.bin")
        } throws: { ($0 as? ModelError)?.message == "deflate.zip: entry 'random.bin': encrypted entries are not supported" }
        #expect(try zip.data(named: "stored.txt") == Array("stored, not deflated\n".utf8))
    }

    /// A deflate stream cut short, and one with a corrupt block.
    @Test func brokenDeflateStreamsAreErrors() throws {
        var bytes = try BundleFixtures.committed("deflate.zip")
        let central = BundleFixtures.centralEntries(bytes)[0]
        BundleFixtures.patch(&bytes, at: central + 20, 100, width: 4)  // labels.txt: 100 of its compressed bytes
        #expect {
            try ZipArchive(bytes: bytes, name: "deflate.zip").data(named: "labels.txt")
        } throws: { ($0 as? ModelError)?.message == "deflate.zip: entry 'labels.txt': its deflate stream is truncated" }
        var corrupt = try BundleFixtures.committed("deflate.zip")
        let entry = try #require(try ZipArchive(bytes: corrupt, name: "deflate.zip").entry(named: "labels.txt"))
        corrupt[entry.dataOffset] = 0xFF  // block type 3, reserved
        #expect {
            try ZipArchive(bytes: corrupt, name: "deflate.zip").data(named: "labels.txt")
        } throws: { ($0 as? ModelError)?.message.hasPrefix("deflate.zip: entry 'labels.txt': corrupt deflate data") == true }
    }

    /// Two entries of one name, and an entry whose data runs into the next one's header.
    @Test func duplicateAndOverlappingEntriesAreErrors() throws {
        var duplicate = try BundleFixtures.committed("deflate.zip")
        let centrals = BundleFixtures.centralEntries(duplicate)
        let zip = try ZipArchive(bytes: duplicate, name: "deflate.zip")
        // "stored.txt" and "random.bin" are both 10 bytes: rename stored.txt to random.bin.
        let stored = try #require(zip.entry(named: "stored.txt"))
        for (i, c) in "random.bin".utf8.enumerated() {
            duplicate[centrals[3] + 46 + i] = c
            duplicate[stored.headerOffset + 30 + i] = c
        }
        #expect {
            try ZipArchive(bytes: duplicate, name: "deflate.zip")
        } throws: { ($0 as? ModelError)?.message == "deflate.zip: entry 'random.bin': two entries have this name" }

        // stored.txt (21 bytes) declared 60 long: its data would run into the next local header.
        var overlapping = try BundleFixtures.committed("deflate.zip")
        BundleFixtures.patch(&overlapping, at: centrals[3] + 20, 60, width: 4)
        BundleFixtures.patch(&overlapping, at: centrals[3] + 24, 60, width: 4)
        #expect {
            try ZipArchive(bytes: overlapping, name: "deflate.zip")
        } throws: { ($0 as? ModelError)?.message == "deflate.zip: entries 'stored.txt' and 'folder/' overlap" }
    }

    /// An entry of one archive read through another: an error, not bytes from elsewhere.
    @Test func anEntryOfAnotherArchiveIsAnError() throws {
        let appended = try ZipArchive(bytes: try BundleFixtures.committed("appended.bin"), name: "appended.bin")
        let alone = try ZipArchive(bytes: try BundleFixtures.committed("deflate.zip"), name: "deflate.zip")
        let entry = try #require(appended.entry(named: "random.bin"))
        #expect {
            try alone.data(of: entry)
        } throws: { ($0 as? ModelError)?.message == "deflate.zip: entry 'random.bin': not an entry of this archive" }
    }

    /// A name without the UTF-8 flag is code page 437, as zipfile decodes it.
    @Test func namesWithoutTheUTF8FlagAreCodePage437() throws {
        var bytes = try BundleFixtures.committed("deflate.zip")
        let central = BundleFixtures.centralEntries(bytes)[5]  // folder/näme.txt
        let flags = UInt32(bytes[central + 8]) | UInt32(bytes[central + 9]) << 8
        BundleFixtures.patch(&bytes, at: central + 8, flags & ~0x0800, width: 2)
        // UTF-8 ä is C3 A4: ├ and ñ in code page 437.
        #expect(try ZipArchive(bytes: bytes, name: "deflate.zip").entries[5].name == "folder/n\u{251C}\u{F1}me.txt")
    }

    @Test(arguments: [[], Array("PK".utf8), [UInt8](repeating: 7, count: 100), Array("not a zip at all, just some text long enough".utf8)])
    func bytesThatAreNoArchiveAreErrors(_ bytes: [UInt8]) {
        #expect {
            try ZipArchive(bytes: bytes, name: "x.task")
        } throws: { ($0 as? ModelError)?.message.hasPrefix("x.task: not a ZIP archive") == true }
    }

    /// 3000 seeded random byte changes: each archive opens and reads, or is a `ModelError`
    /// naming it — never a crash.
    @Test func randomlyDamagedArchivesNeverCrash() throws {
        let original = try BundleFixtures.committed("deflate.zip")
        var rng = SplitMix64(seed: 44)
        var opened = 0, failed = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                let zip = try ZipArchive(bytes: bytes, name: "deflate.zip")
                opened += 1
                for entry in zip.entries {
                    do { _ = try zip.data(of: entry) } catch let e as ModelError { #expect(e.message.hasPrefix("deflate.zip: entry '")) }
                }
            } catch let e as ModelError {
                failed += 1
                #expect(e.message.hasPrefix("deflate.zip: "))
            }
        }
        #expect(opened > 0 && failed > 0)
    }
}
