import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// OpenCV's answers on vtest.avi: frames, the model file and descriptors made by
/// scripts/fixtures/make_hog_fixtures.py (run by scripts/setup.sh test) in .build/fixtures/hog,
/// detections committed in Tests/Fixtures/hog/expected.json by the same script.
enum HOGFixtures {
    static let dir = RepositoryFiles.path(".build/fixtures/hog")
    static func path(_ name: String) -> String { dir + "/" + name }
    static let model = path("hog_people_default.xml")

    /// Whether this is an optimized build: debug-built kernels take seconds per frame, so the
    /// debug pass checks a few frames and make test's release pass all of them.
    static let optimized: Bool = {
        #if DEBUG
            return false
        #else
            return true
        #endif
    }()

    struct Setting: Decodable {
        var image: String
        var params: [String: Param]
        var detections: [String: [[Double]]]
    }
    enum Param: Decodable {
        case number(Double), pair([Int])
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let v = try? c.decode([Int].self) { self = .pair(v) } else { self = .number(try c.decode(Double.self)) }
        }
        var number: Double { if case .number(let v) = self { v } else { .nan } }
        var pair: HOGDescriptor.Size { if case .pair(let v) = self { .init(v[0], v[1]) } else { .init(-1, -1) } }
    }
    struct Expected: Decodable {
        var frames: [String: [String: String]]
        var settings: [String: Setting]
    }

    static func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("hog/expected.json"))))
    }

    /// 64-bit FNV-1a, as the fixture script hashes the frame files.
    static func fnv1a(_ data: Data) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return String(format: "%016llx", h)
    }

    /// A frame file, checked against the hash the expected answers were made with.
    static func frame(_ name: String, gray: Bool, _ expected: Expected) throws -> ImageFrame {
        let file = path(name + (gray ? ".pgm" : ".ppm"))
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Missing(description: "\(file) is missing: run scripts/setup.sh test (make test does)")
        }
        let want = expected.frames[name]?[gray ? "pgm" : "ppm"]
        guard fnv1a(data) == want else {
            throw Missing(description: "\(file) is not the frame OpenCV's answers were made on (hash \(fnv1a(data)), want \(want ?? "none"))")
        }
        return try TestImages.readPNM(file)
    }

    struct Missing: Error, CustomStringConvertible { var description: String }
}

@Suite struct HOGDescriptorTests {
    /// OpenCV's default people detector as its own `save` wrote it.
    @Test func readsOpenCVsDefaultPeopleDetector() throws {
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        #expect(hog.windowSize == .init(64, 128) && hog.blockSize == .init(16, 16) && hog.blockStride == .init(8, 8))
        #expect(hog.cellSize == .init(8, 8) && hog.bins == 9 && hog.windowSigma == 4 && hog.l2HysThreshold == 0.2)
        #expect(hog.gammaCorrection && !hog.signedGradient && hog.levels == 64)
        #expect(hog.descriptorSize == 3780 && hog.svm.count == 3780)
        // The file's first and last values (the bias).
        #expect(hog.svm[0] == Float("0.0535938591")! && hog.bias == Float("-6.66579151")!)
    }

    /// `hog.compute` at five windows (corners, middle, odd positions) of two frames, grey and
    /// colour: the same floats (the operations are OpenCV's, in its order).
    @Test func descriptorsEqualOpenCVs() throws {
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        struct Ref: Decodable { var locations: [[Int]]; var descriptors: [[Float]] }
        let data = try Data(contentsOf: URL(fileURLWithPath: HOGFixtures.path("descriptors.json")))
        let refs = try JSONDecoder().decode([String: Ref].self, from: data)
        let expected = try HOGFixtures.expected()
        #expect(refs.count == 4)
        for (key, ref) in refs.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "/")
            let image = try HOGFixtures.frame(String(parts[0]), gray: parts[1] == "gray", expected)
            let got = try hog.compute(image, locations: ref.locations.map { (x: $0[0], y: $0[1]) })
            var worst: Float = 0
            for (g, r) in zip(got, ref.descriptors) {
                #expect(g.count == r.count)
                for (a, b) in zip(g, r) { worst = max(worst, abs(a - b)) }
            }
            #expect(worst <= 1e-6, "\(key): max difference \(worst)")
        }
    }

    /// `detectMultiScale` on every 30th frame of vtest.avi (27 frames; 3 in a debug build) with
    /// OpenCV's defaults on colour, a finer setting (scale 1.1, stride 4, padding 8, hit
    /// threshold 0.3), and the ungrouped hits of the grey frames: the same boxes, and weights
    /// equal to 1e-9.
    @Test(arguments: ["default", "fine", "gray_raw"])
    func detectionsEqualOpenCVs(setting: String) throws {
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        let expected = try HOGFixtures.expected()
        let s = try #require(expected.settings[setting])
        let p = HOGDescriptor.Parameters(
            hitThreshold: s.params["hitThreshold"]!.number, windowStride: s.params["winStride"]!.pair, padding: s.params["padding"]!.pair,
            scale: s.params["scale"]!.number, groupThreshold: Int(s.params["groupThreshold"]!.number))
        var names = s.detections.keys.sorted()
        #expect(names.count >= 20)
        if !HOGFixtures.optimized { names = [names[0], names[names.count / 2], names[names.count - 1]] }
        var problems: [String] = []
        var boxes = 0
        for name in names {
            let image = try HOGFixtures.frame(name, gray: s.image == "gray", expected)
            let got = try hog.detectMultiScale(image, parameters: p).map {
                [Double($0.x), Double($0.y), Double($0.width), Double($0.height), $0.weight]
            }
            let want = s.detections[name]!
            boxes += want.count
            let g = got.sorted { $0.lexicographicallyPrecedes($1) }
            if g.map({ $0.prefix(4).map { Int($0) } }) != want.map({ $0.prefix(4).map { Int($0) } }) {
                problems.append("\(name): boxes \(g.map { $0.prefix(4).map { Int($0) } }) vs OpenCV's \(want.map { $0.prefix(4).map { Int($0) } })")
                continue
            }
            for (a, b) in zip(g, want) where abs(a[4] - b[4]) > 1e-9 {
                problems.append("\(name): weight \(a[4]) vs OpenCV's \(b[4]) at \(a.prefix(4))")
            }
        }
        #expect(boxes >= names.count, "the frames have people")
        #expect(problems.isEmpty, "\(problems.count) differences: \(problems.prefix(6).joined(separator: "\n"))")
    }

    /// `upscale` 1.5 as Graphs/people_events_hog.pbtxt runs it: the boxes and weights OpenCV
    /// finds on the frame scaled by cv2.resize (INTER_LINEAR_EXACT) to 1152×864, edges mapped back
    /// (Tests/Fixtures/events/vtest_hog.json, scripts/fixtures/make_vtest_event_fixtures.py).
    @Test func upscaledDetectionsEqualOpenCVsOnTheScaledFrame() throws {
        struct Events: Decodable {
            struct Frame: Decodable {
                var frame: Int
                var boxes: [[Double]]
            }
            var frames: [Frame]
        }
        let events = try JSONDecoder().decode(
            Events.self, from: Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("events/vtest_hog.json"))))
        let byFrame = Dictionary(events.frames.map { ($0.frame, $0.boxes) }, uniquingKeysWith: { a, _ in a })
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        let expected = try HOGFixtures.expected()
        var names = expected.frames.keys.filter { $0.hasPrefix("vtest_") }.sorted()
        #expect(names.count >= 20)
        if !HOGFixtures.optimized { names = [names[names.count / 2]] }
        var problems: [String] = []
        var boxes = 0
        for name in names {
            let k = try #require(Int(name.dropFirst("vtest_".count)))
            let want = try #require(byFrame[k], "frame \(k) is not in vtest_hog.json").sorted { $0.lexicographicallyPrecedes($1) }
            let image = try HOGFixtures.frame(name, gray: false, expected)
            let got = try hog.detectMultiScale(image, parameters: .init(upscale: 1.5)).map {
                [Double($0.x), Double($0.y), Double($0.width), Double($0.height), $0.weight]
            }.sorted { $0.lexicographicallyPrecedes($1) }
            boxes += want.count
            if got.map({ $0.prefix(4) }) != want.map({ $0.prefix(4) }) {
                problems.append("\(name): \(got.map { $0.prefix(4).map { Int($0) } }) vs OpenCV's \(want.map { $0.prefix(4).map { Int($0) } })")
            } else if zip(got, want).contains(where: { abs($0[4] - $1[4]) > 1e-6 }) {
                problems.append("\(name): weights \(got.map { $0[4] }) vs OpenCV's \(want.map { $0[4] })")
            }
        }
        #expect(boxes >= names.count, "the frames have people")
        #expect(problems.isEmpty, "\(problems.count) differences: \(problems.prefix(6).joined(separator: "\n"))")
    }

    /// Scales as OpenCV's loop makes them: 1.05ⁿ while the rounded image still holds the window.
    @Test func pyramidScales() throws {
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        let s = hog.scales(width: 768, height: 576, parameters: .init())
        // 576 / 1.05ⁿ ≥ 128 (rounded) up to n = 30; 768 / 1.05ⁿ ≥ 64 holds longer.
        #expect(s.count == 31 && s.first == 1 && abs(s.last! - pow(1.05, 30)) < 1e-9)
        #expect(hog.scales(width: 768, height: 576, parameters: .init(scale: 1)) == [1])
        #expect(hog.scales(width: 40, height: 40, parameters: .init()) == [1])
        let limited = hog.scales(width: 768, height: 576, parameters: .init(minSize: .init(0, 200), maxSize: .init(0, 300)))
        #expect(limited.allSatisfy { 128 * $0 >= 199.5 && 128 * $0 <= 300.5 } && !limited.isEmpty)
        // An image smaller than the window: no detections, no crash.
        #expect(try hog.detectMultiScale(try TestImages.random(width: 40, height: 30, format: .gray8, seed: 1), parameters: .init()).isEmpty)
    }
}
