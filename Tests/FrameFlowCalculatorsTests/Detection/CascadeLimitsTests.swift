import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Hostile cascade files (Tests/Fixtures/fuzz/cascade): every count, index and rectangle is
/// checked when loading, so detection never traps, loops or reads outside its buffers.
@Suite struct CascadeLimitsTests {
    static func path(_ name: String) -> String { RepositoryFiles.fixture("fuzz/cascade/" + name) }

    /// The error loading `name`, which must fail.
    static func loadError(_ name: String) -> CascadeError? {
        #expect(throws: CascadeError.self) { try CascadeClassifier(contentsOfFile: path(name)) }
    }

    /// A child index of Int32.min: negating it to check it trapped.
    @Test func childIndexInt32Min() {
        let e = Self.loadError("child-index-int32-min.xml")
        #expect(e?.description.contains("child index -2147483648 is out of range") == true, "\(String(describing: e))")
        #expect(e?.file == Self.path("child-index-int32-min.xml") && e?.line == 9)
    }

    /// A node that is its own child: detection walked the tree forever.
    @Test(arguments: ["tree-cycle.xml", "old-format-node-cycle.xml"])
    func treeCycles(name: String) {
        let e = Self.loadError(name)
        #expect(e?.description.contains("child") == true || e?.description.contains("node") == true, "\(String(describing: e))")
        #expect((e?.line ?? 0) > 1, "\(String(describing: e))")
    }

    /// LBP codes go up to 255, so a node needs 8 subset words: with fewer, the stump path read
    /// past the subsets.
    @Test func lbpWithFewerThan256Categories() {
        let e = Self.loadError("lbp-few-categories.xml")
        #expect(e?.description.contains("maxCatCount 32") == true, "\(String(describing: e))")
    }

    @Test func negativeCategoryCount() {
        let e = Self.loadError("negative-category-count.xml")
        #expect(e?.description.contains("maxCatCount -5") == true, "\(String(describing: e))")
    }

    /// Old format: a rectangle beyond the window passed (x + width ≤ window width + height) and
    /// was read past the integral image on the last rows.
    @Test func oldFormatRectangleOutsideTheWindow() {
        let e = Self.loadError("old-format-rect-outside.xml")
        #expect(e?.description.contains("outside the 4×4 window") == true, "\(String(describing: e))")
        #expect(e?.line == 7, "\(String(describing: e))")
    }

    /// Elements nested 5 000 deep: each element kept its whole path (memory grew with the
    /// square of the depth: 200 000 levels in 1.2 MB took over 2 GB) and releasing the tree
    /// recursed through every level. Now parsing stops at `ResourceLimits.maxNestingDepth`.
    @Test func deepNestingStopsAtTheLimit() {
        let e = Self.loadError("deep-nesting.xml")
        #expect(
            e?.description.contains("nested more than \(ResourceLimits().maxNestingDepth) deep") == true, "\(String(describing: e).prefix(300))"
        )
        #expect(e?.line == 5, "\(String(describing: e).prefix(300))")
    }

    /// Every committed finding either fails to load or loads and detects on a 48×48 pattern
    /// (what fuzz-cascade does with each input).
    @Test func everyCommittedFindingFailsOrDetects() throws {
        let gray = try ImageFrame.testPattern48()
        for f in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.fixture("fuzz/cascade")).sorted() {
            guard let c = try? CascadeClassifier(contentsOfFile: Self.path(f)) else { continue }
            _ = try HaarCascadeDetector(cascade: c).detect(gray, parameters: .init(scaleFactor: 1.5, minNeighbors: 0))
        }
    }

    /// Values out of range in an otherwise valid cascade: each an error naming the element.
    @Test(arguments: [
        ("<width>4</width>", "<width>100000</width>", "window size"),
        ("<height>4</height>", "<height>-4</height>", "window size"),
        ("<width>4</width>", "<width>99999999999999999999999</width>", "not an integer"),
        ("<stageNum>1</stageNum>", "<stageNum>4000000000000</stageNum>", "stageNum says"),
        ("<maxCatCount>0</maxCatCount>", "<maxCatCount>100000</maxCatCount>", "maxCatCount"),
        ("0 -1 0 0.5", "0 -1 -1 0.5", "node indexes"),
        ("0 -1 0 0.5", "0 -1 2147483647 0.5", "trees use feature"),
        ("0 -1 0 0.5", "0 -3 0 0.5", "child index -3"),
        ("0 -1 0 0.5", "5 -1 0 0.5", "child index 5"),
        ("0 -1 0 0.5", "0 -1 0 1e999", "not a finite number"),
        ("0 0 4 2 -1.", "-1 0 4 2 -1.", "outside the 4×4 window"),
        ("0 0 4 2 -1.", "0 0 4 -2 -1.", "outside the 4×4 window"),
        ("0 0 4 2 -1.", "2147483647 0 2147483647 2 -1.", "outside the 4×4 window"),
        ("0 0 4 2 -1.", "0 0 4 2 nan", "finite weight"),
    ])
    func outOfRangeValues(find: String, replace: String, message: String) {
        let xml = CascadeClassifierTests.valid.replacingOccurrences(of: find, with: replace)
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: Data(xml.utf8), file: "bad.xml") }
        #expect(e?.description.contains(message) == true, "\(String(describing: e))")
        #expect((e?.line ?? 0) > 0, "\(String(describing: e))")
    }
}

extension ImageFrame {
    /// 48×48 gray8: a bright square with a dark bar over noise, so windows pass the variance check.
    static func testPattern48() throws -> ImageFrame {
        try TestImages.make(width: 48, height: 48, format: .gray8) { x, y, _ in
            let noise = UInt8(truncatingIfNeeded: (x &* 7919 &+ y &* 104_729) >> 3) & 15
            let inside = (12..<36).contains(x) && (12..<36).contains(y)
            return (inside ? ((20..<28).contains(y) ? 40 : 200) : 90) + noise
        }
    }
}
