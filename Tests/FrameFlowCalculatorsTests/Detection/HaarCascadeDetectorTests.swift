import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Fixtures from scripts/fixtures/make_haar_fixtures.py (run by scripts/setup.sh test).
enum HaarFixtures {
    static let dir = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/fixtures/haar")
    static func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    static let cascadeDirs = ["/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades"]

    static func expected() throws -> [String: [String: [String: [[Int]]]]] {
        let url = dir.appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url) else {
            throw FixtureMissing(description: "\(url.path) is missing: run scripts/setup.sh test (make test does)")
        }
        return try JSONDecoder().decode([String: [String: [String: [[Int]]]]].self, from: data)
    }

    static func cascade(_ name: String) throws -> CascadeClassifier {
        let path = name.hasPrefix("lbp") ? "/usr/share/opencv4/lbpcascades/\(name)" : "/usr/share/opencv4/haarcascades/\(name)"
        return try CascadeClassifier(contentsOfFile: path)
    }

    struct FixtureMissing: Error, CustomStringConvertible { var description: String }
}

func iou(_ a: [Int], _ b: HaarCascadeDetector.Hit) -> Double {
    Rect(x: Double(a[0]), y: Double(a[1]), width: Double(a[2]), height: Double(a[3]))
        .iou(Rect(x: Double(b.x), y: Double(b.y), width: Double(b.width), height: Double(b.height)))
}

@Suite struct HaarCascadeDetectorTests {
    static let params: [String: HaarCascadeDetector.Parameters] = [
        "1.1,2,30": .init(scaleFactor: 1.1, minNeighbors: 2, minSize: (30, 30)),
        "1.2,3": .init(scaleFactor: 1.2, minNeighbors: 3),
    ]

    /// Every OpenCV box matched by one of ours with IoU ≥ 0.9, and no extra boxes: on the
    /// astronaut, the 100 faces and 100 non-faces of lfw_subset, and carphone frames.
    @Test(arguments: ["haarcascade_frontalface_alt.xml", "haarcascade_frontalface_default.xml", "lbpcascade_frontalface_improved.xml"])
    func matchesOpenCV(cascadeName: String) throws {
        let expected = try HaarFixtures.expected()
        let detector = HaarCascadeDetector(cascade: try HaarFixtures.cascade(cascadeName))
        var images = 0, boxes = 0
        var problems: [String] = []
        for (pname, p) in Self.params.sorted(by: { $0.key < $1.key }) {
            let byImage = try #require(expected[cascadeName]?[pname])
            for (image, want) in byImage.sorted(by: { $0.key < $1.key }) {
                let gray = try TestImages.readPNM(HaarFixtures.path(image + ".pgm"))
                let got = try detector.detect(gray, parameters: p)
                images += 1
                boxes += want.count
                for w in want where !got.contains(where: { iou(w, $0) >= 0.9 }) {
                    problems.append("\(pname) \(image): OpenCV box \(w) not found in \(got.map { [$0.x, $0.y, $0.width, $0.height] })")
                }
                if got.count > want.count {
                    problems.append("\(pname) \(image): \(got.count) boxes, OpenCV has \(want.count): \(got.map { [$0.x, $0.y, $0.width, $0.height] }) vs \(want)")
                }
            }
        }
        #expect(images == 2 * 213)
        #expect(boxes > 100)
        #expect(problems.isEmpty, "\(problems.count) mismatches, first: \(problems.prefix(8).joined(separator: "\n"))")
    }

    @Test func integralImagesMatchOpenCV() throws {
        let data = try Data(contentsOf: HaarFixtures.dir.appendingPathComponent("integral.json"))
        struct Ref: Decodable { var image: [[UInt8]]; var sum: [[Int32]]; var sqsum: [[Int64]]; var tilted: [[Int32]] }
        let ref = try JSONDecoder().decode(Ref.self, from: data)
        let h = ref.image.count, w = ref.image[0].count
        let img = try TestImages.make(width: w, height: h, format: .gray8) { x, y, _ in ref.image[y][x] }
        let levels = HaarCascadeDetector.integrals(of: img)
        #expect(levels.sum == ref.sum.flatMap { $0 })
        #expect(levels.sqsum == ref.sqsum.flatMap { $0 }.map { Int32(truncatingIfNeeded: $0) })
        #expect(levels.tilted == ref.tilted.flatMap { $0 })
    }
}
