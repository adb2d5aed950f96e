import Testing

import FrameFlow

/// "Did you mean" answers: the nearest name by edit distance, when it is close enough —
/// checked against a plain edit distance over every candidate (the fast one skips candidates
/// whose length alone rules them out, and counts bytes).
@Suite struct NearestNameTests {
    /// Levenshtein distance, the textbook way.
    static func reference(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var d = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
        for i in a.indices.map({ $0 + 1 }) {
            for j in b.indices.map({ $0 + 1 }) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
        }
        return d[a.count][b.count]
    }

    static func referenceNearest(_ word: String, _ candidates: [String]) -> String? {
        guard let best = candidates.map({ ($0, reference(word, $0)) }).min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(3, word.count / 3) ? best.0 : nil
    }

    static let names = [
        "GateCalculator", "ClipDetectionVectorSizeCalculator", "ImagePropertiesCalculator", "DetectionsToRectsCalculator",
        "LandmarksToDetectionCalculator", "SobelEdgesCalculator", "PassThroughCalculator", "max_in_flight", "max_in_queue", "a", "",
    ]

    @Test(arguments: [
        "GaetaClculator", "ilCpDetectionVectorSizeCalculator", "mIgaePropertiesCalculator", "BetectionsToRectsCalculator",
        "LandmarksToFrameAnnotationCalculator", "SobelEdgeCalculator", "max_inflight", "Lift2DFrameAnnotationTo3DCalculator", "", "x",
        "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
    ])
    func agreesWithTheTextbookDistance(word: String) {
        #expect(nearestName(to: word, in: Self.names) == Self.referenceNearest(word, Self.names), "\(word)")
    }

    @Test func suggestions() {
        #expect(nearestName(to: "SobelEdgeCalculator", in: Self.names) == "SobelEdgesCalculator")
        #expect(nearestName(to: "Lift2DFrameAnnotationTo3DCalculator", in: Self.names) == nil)
        #expect(nearestName(to: "anything", in: []) == nil)
    }
}
