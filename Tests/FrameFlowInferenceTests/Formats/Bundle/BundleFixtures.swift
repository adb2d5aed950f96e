import Foundation
import FrameFlowTestSupport
import Testing

/// What the bundle tests share: the fixtures `scripts/fixtures/make_bundle_fixtures.py` wrote
/// (Tests/Fixtures/tasks/), the real bundles `scripts/setup.sh test` extracted
/// (.build/fixtures/tasks/), SHA-256 to compare entries with zipfile's, and byte patching.
enum BundleFixtures {
    /// Tests/Fixtures/tasks/`name`'s bytes.
    static func committed(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("tasks/" + name))))
    }

    /// Tests/Fixtures/tasks/`name` parsed as JSON.
    static func json(_ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(committed(name))) as? [String: Any])
    }

    /// .build/fixtures/tasks/`name`'s bytes, or nil (and a recorded issue) when setup has not run.
    static func real(_ name: String) -> [UInt8]? {
        let path = RepositoryFiles.built("tasks/" + name)
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("\(path) is missing: run scripts/setup.sh test (make test does)")
            return nil
        }
        return [UInt8](data)
    }

    /// The real bundles and the model, as the fixture script reads them.
    static let realFiles = [
        "face_landmarker.task", "gesture_recognizer.task", "hand_landmarker.task", "pose_landmarker_full.task", "selfie_segmenter.tflite",
    ]

    /// Little-endian `value` written at `at`.
    static func patch(_ bytes: inout [UInt8], at: Int, _ value: UInt32, width: Int) {
        for i in 0..<width { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// The little-endian 32-bit value at `at`.
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    /// The position of the last `signature` (a ZIP record's) in `bytes`.
    static func last(_ signature: UInt32, in bytes: [UInt8]) -> Int? {
        stride(from: bytes.count - 4, through: 0, by: -1).first { u32(bytes, $0) == signature }
    }

    /// Positions of the central directory entries of the archive ending `bytes`, in order.
    static func centralEntries(_ bytes: [UInt8]) -> [Int] {
        var at: [Int] = []
        var i = 0
        while i + 4 <= bytes.count {
            if u32(bytes, i) == 0x0201_4b50 { at.append(i) }
            i += 1
        }
        return at
    }

    /// SHA-256 (FIPS 180-4) of `bytes`, as lowercase hex: the fixtures' digest of each entry.
    static func sha256(_ bytes: [UInt8]) -> String {
        let k: [UInt32] = [
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01,
            0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc,
            0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147,
            0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116, 0x1e37_6c08,
            0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3, 0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208,
            0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
        ]
        var h: [UInt32] = [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19]
        var message = bytes
        message.append(0x80)
        message.append(contentsOf: repeatElement(0, count: (64 + 56 - message.count % 64) % 64))
        let bits = UInt64(bytes.count) * 8
        message.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) })
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        message.withUnsafeBufferPointer { m in
            for block in stride(from: 0, to: m.count, by: 64) {
                for t in 0..<16 {
                    let i = block + 4 * t
                    w[t] = UInt32(m[i]) << 24 | UInt32(m[i + 1]) << 16 | UInt32(m[i + 2]) << 8 | UInt32(m[i + 3])
                }
                for t in 16..<64 {
                    let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                    let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for t in 0..<64 {
                    let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[t] &+ w[t]
                    let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
            }
        }
        return h.map { v in
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }.joined()
    }
}

/// SHA-256 itself against FIPS 180-4's examples, so the fixture comparisons rest on it.
@Suite struct BundleFixturesTests {
    @Test func sha256MatchesTheStandardsExamples() {
        #expect(BundleFixtures.sha256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(BundleFixtures.sha256([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            BundleFixtures.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
