import Foundation
import FrameFlow
import FrameFlowTesting
import Testing

@testable import FrameFlowML

/// NonMaxSuppressionCalculator on hand-computed cases that follow MediaPipe's
/// non_max_suppression_calculator.cc, including its quirks (JACCARD normalises by the
/// enclosing box, MODIFIED_JACCARD by the second box, WEIGHTED ignores max_num_detections and
/// stops when a round claims nothing).
@Suite struct NonMaxSuppressionCalculatorTests {
    // JACCARD(A, D) = 72 / 132 = 0.545, IoU(A, D) = 72 / 128 = 0.5625, IoU(A, B) = 90 / 110.
    static let a = Detection(relativeBox: Rect(x: 0, y: 0, width: 10, height: 10), score: 0.9, labelID: 0, keypoints: [Point(x: 5, y: 5)])
    static let b = Detection(relativeBox: Rect(x: 1, y: 0, width: 10, height: 10), score: 0.6, labelID: 0, keypoints: [Point(x: 8, y: 5)])
    static let c = Detection(
        relativeBox: Rect(x: 50, y: 50, width: 10, height: 10), score: 0.8, labelID: 1, keypoints: [Point(x: 55, y: 55)])
    static let d = Detection(relativeBox: Rect(x: 2, y: 1, width: 10, height: 10), score: 0.7, labelID: 1, keypoints: [Point(x: 7, y: 6)])
    static let dets = [a, b, c, d]

    static func options(
        _ threshold: Double, _ overlap: NonMaxSuppressionCalculator.Options.OverlapType,
        _ algorithm: NonMaxSuppressionCalculator.Options.Algorithm = .default
    ) -> NonMaxSuppressionCalculator.Options {
        var o = NonMaxSuppressionCalculator.Options()
        o.minSuppressionThreshold = threshold
        o.overlapType = overlap
        o.algorithm = algorithm
        return o
    }

    @Test func overlapMeasures() {
        let r1 = Self.a.box, r2 = Self.d.box
        #expect(abs(NonMaxSuppressionCalculator.overlap(.jaccard, r1, r2) - 72.0 / 132) < 1e-6)
        #expect(abs(NonMaxSuppressionCalculator.overlap(.intersectionOverUnion, r1, r2) - 72.0 / 128) < 1e-6)
        let small = Rect(x: 0, y: 0, width: 4, height: 4)
        #expect(NonMaxSuppressionCalculator.overlap(.modifiedJaccard, r1, small) == 1)
        #expect(abs(NonMaxSuppressionCalculator.overlap(.modifiedJaccard, small, r1) - 0.16) < 1e-6)
        #expect(NonMaxSuppressionCalculator.overlap(.intersectionOverUnion, r1, Self.c.box) == 0)
    }

    @Test func defaultKeepsTheBestUnsuppressed() {
        // 0.545 ≤ 0.55 < 0.5625: JACCARD keeps D, IoU suppresses it.
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: Self.options(0.55, .jaccard)).map(\.score) == [0.9, 0.8, 0.7])
        #expect(
            NonMaxSuppressionCalculator.suppress(Self.dets, options: Self.options(0.55, .intersectionOverUnion)).map(\.score) == [0.9, 0.8])
        // MODIFIED_JACCARD divides by the candidate's area: E inside A is fully covered.
        let e = Detection(relativeBox: Rect(x: 0, y: 0, width: 4, height: 4), score: 0.5, labelID: 0)
        #expect(NonMaxSuppressionCalculator.suppress([Self.a, e], options: Self.options(0.55, .modifiedJaccard)).count == 1)
        #expect(NonMaxSuppressionCalculator.suppress([Self.a, e], options: Self.options(0.55, .intersectionOverUnion)).count == 2)
        var limited = Self.options(0.55, .jaccard)
        limited.maxNumDetections = 2
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: limited).map(\.score) == [0.9, 0.8])
        var scored = Self.options(0.55, .jaccard)
        scored.minScoreThreshold = 0.75
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: scored).map(\.score) == [0.9, 0.8])
        var perClass = Self.options(0.3, .intersectionOverUnion)
        perClass.perClass = true
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: perClass).map(\.score) == [0.9, 0.8, 0.7])
    }

    @Test func weightedAveragesTheClusterKeepingTheBestScore() throws {
        var o = Self.options(0.3, .intersectionOverUnion, .weighted)
        o.maxNumDetections = 1  // MediaPipe's weighted NMS does not apply it
        let out = NonMaxSuppressionCalculator.suppress(Self.dets, options: o)
        #expect(out.count == 2)
        let first = try #require(out.first)
        // Cluster {A 0.9 @ x 0, D 0.7 @ x 2, B 0.6 @ x 1}: corners and keypoints weighted by score.
        let total = 0.9 + 0.7 + 0.6
        #expect(abs(first.box.x - (0.7 * 2 + 0.6 * 1) / total) < 1e-6)
        #expect(abs(first.box.y - 0.7 / total) < 1e-6)
        #expect(abs(first.box.maxX - (0.9 * 10 + 0.7 * 12 + 0.6 * 11) / total) < 1e-5)
        #expect(abs(first.keypoints[0].x - (0.9 * 5 + 0.7 * 7 + 0.6 * 8) / total) < 1e-5)
        #expect(abs(first.keypoints[0].y - (0.9 * 5 + 0.7 * 6 + 0.6 * 5) / total) < 1e-5)
        #expect(first.score == 0.9 && first.labelIDs == [0])
        #expect(out[1] == Self.c)
        // The default threshold 1: a detection overlaps itself by exactly 1, so the first
        // round claims nothing, outputs the best detection unchanged and ends.
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: Self.options(1, .jaccard, .weighted)) == [Self.a])
    }

    @Test func bestLabelOnlyAndUnlabelled() {
        var multi = Self.c
        multi.scores = [0.3, 0.95]
        multi.labelIDs = [4, 7]
        let unlabelled = Detection(labels: [], labelIDs: [], scores: [0.99], locationData: Self.a.locationData)
        let out = NonMaxSuppressionCalculator.suppress([multi, unlabelled, Self.a], options: Self.options(0.3, .jaccard))
        #expect(out.map(\.scores) == [[0.95], [0.9]] && out[0].labelIDs == [7])
    }

    @Test func streamsAndEmptyOutput() throws {
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "a"
                    input_stream: "b"
                    output_stream: "out"
                    node {
                      calculator: "NonMaxSuppressionCalculator"
                      input_stream: "a"
                      input_stream: "b"
                      output_stream: "out"
                      options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
                        num_detection_streams: 2 min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION
                        algorithm: WEIGHTED return_empty_detections: true } }
                    }
                    """), registry: MLFixtures.registry)
        let out = try PacketCollector(graph, "out")
        try graph.start()
        try graph.send([Self.a, Self.b], to: "a", at: Timestamp(0))
        try graph.send([Self.c], to: "b", at: Timestamp(0))
        try graph.send([Detection](), to: "a", at: Timestamp(1))
        try graph.send([Detection](), to: "b", at: Timestamp(1))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try out.packets.map { try $0.get([Detection].self) }
        #expect(got.map { $0.count } == [2, 0])
        var bad = NonMaxSuppressionCalculator.Options()
        bad.maxNumDetections = 0
        #expect { try bad.validate() } throws: { "\($0)".contains("max_num_detections") }
        bad = .init()
        bad.numDetectionStreams = 0
        #expect { try bad.validate() } throws: { "\($0)".contains("num_detection_streams") }
    }

    struct Fixture: Decodable {
        struct Det: Decodable {
            var box: [Double]
            var score: Double
            var label_id: Int
            var keypoints: [[Double]]
        }
        struct Case: Decodable {
            var overlap_type: String
            var algorithm: String
            var min_suppression_threshold: Double
            var min_score_threshold: Double
            var max_num_detections: Int
            var output: [Det]
        }
        var detections: [Det]
        var cases: [Case]
    }

    /// Clustered random detections against a numpy re-implementation of MediaPipe's NMS
    /// (scripts/fixtures/make_nms_fixtures.py): every overlap type, both algorithms, with and
    /// without score and count limits.
    @Test func matchesTheNumpyReference() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: MLFixtures.path("Tests/Fixtures/nms/cases.json")))
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        func detection(_ d: Fixture.Det) -> Detection {
            Detection(
                relativeBox: Rect(x: d.box[0], y: d.box[1], width: d.box[2], height: d.box[3]), score: d.score, labelID: d.label_id,
                keypoints: d.keypoints.map { Point(x: $0[0], y: $0[1]) })
        }
        let input = fixture.detections.map(detection)
        #expect(fixture.cases.count == 12)
        for c in fixture.cases {
            var o = NonMaxSuppressionCalculator.Options()
            o.overlapType = try #require(.init(rawValue: c.overlap_type))
            o.algorithm = try #require(.init(rawValue: c.algorithm))
            o.minSuppressionThreshold = c.min_suppression_threshold
            o.minScoreThreshold = c.min_score_threshold
            o.maxNumDetections = c.max_num_detections
            let got = NonMaxSuppressionCalculator.suppress(input, options: o)
            let name = "\(c.overlap_type) \(c.algorithm) \(c.min_suppression_threshold)"
            #expect(got.count == c.output.count, "\(name)")
            for (g, w) in zip(got, c.output.map(detection)) {
                #expect(g.score == w.score && g.labelIDs == w.labelIDs, "\(name)")
                let gb = g.box, wb = w.box
                #expect(
                    abs(gb.x - wb.x) < 1e-6 && abs(gb.y - wb.y) < 1e-6 && abs(gb.width - wb.width) < 1e-6
                        && abs(gb.height - wb.height) < 1e-6, "\(name): \(gb) vs \(wb)")
                for (p, q) in zip(g.keypoints, w.keypoints) { #expect(abs(p.x - q.x) < 1e-6 && abs(p.y - q.y) < 1e-6, "\(name)") }
            }
        }
    }
}

extension NonMaxSuppressionCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let type = "mediapipe.NonMaxSuppressionCalculatorOptions", ports = "input_stream: \"detections\"\noutput_stream: \"kept\""
        expectRefused("NonMaxSuppressionCalculator", type, "min_score_threshold: 1e300", field: "min_score_threshold", ports: ports)
        expectRefused("NonMaxSuppressionCalculator", type, "min_suppression_threshold: -1e300", field: "min_suppression_threshold", ports: ports)
        expectRefused("NonMaxSuppressionCalculator", type, "max_num_detections: 9223372036854775807", field: "max_num_detections", ports: ports)
    }
}
