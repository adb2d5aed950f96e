import Foundation
import FrameFlow
import FrameFlowTasks
import FrameFlowTestSupport
import Testing

/// `GestureRecognizerOptions.customGesturesClassifierOptions` against MediaPipe's
/// GestureRecognizer with the same `ClassifierOptions` (allowlist, denylist, score threshold,
/// max results) on the hand photos: the same gesture names per hand, scores within 0.01
/// (Tests/Fixtures/mediapipe/tasks/gesture_classifier_options.json, from
/// scripts/fixtures/make_gesture_classifier_options_fixtures.py).
@Suite struct ClassifierOptionsTests {
    struct Fixture: Decodable {
        struct Options: Decodable {
            var category_allowlist: [String]?
            var category_denylist: [String]?
            var score_threshold: Float?
            var max_results: Int?
        }
        struct Case: Decodable {
            var options: Options
            /// Per photo, per hand, [name, score] pairs.
            var photos: [String: [[[Entry]]]]
        }
        enum Entry: Decodable {
            case name(String), score(Double)
            init(from decoder: any Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let s = try? c.decode(String.self) { self = .name(s) } else { self = .score(try c.decode(Double.self)) }
            }
        }
        var cases: [Case]
    }

    @Test func customGesturesFollowTheOptionsAsMediaPipe() throws {
        let model = try TaskFixtures.model("gesture_recognizer.task")
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/gesture_classifier_options.json")))
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        #expect(fixture.cases.count == 5)
        for c in fixture.cases {
            var options = GestureRecognizerOptions()
            options.baseOptions.modelAssetPath = model
            options.numHands = 2
            options.customGesturesClassifierOptions.categoryAllowlist = c.options.category_allowlist ?? []
            options.customGesturesClassifierOptions.categoryDenylist = c.options.category_denylist ?? []
            options.customGesturesClassifierOptions.scoreThreshold = c.options.score_threshold
            options.customGesturesClassifierOptions.maxResults = c.options.max_results ?? -1
            let recognizer = try GestureRecognizer(options: options)
            for (photo, hands) in c.photos.sorted(by: { $0.key < $1.key }) {
                let image = try #require(try RepositoryFiles.frames("Tests/Fixtures/mediapipe/photos/\(photo).png", count: 1).first)
                let got = try recognizer.recognize(image: image).gestures
                try #require(got.count == hands.count, "\(c.options) \(photo): \(got.count) hands, MediaPipe \(hands.count)")
                for (ours, theirs) in zip(got, hands) {
                    let names = theirs.compactMap { if case .name(let n) = $0.first { n } else { nil } }
                    let scores = theirs.compactMap { if case .score(let s) = $0.last { s } else { nil } }
                    #expect(ours.map(\.categoryName) == names, "\(c.options) \(photo): \(ours.map(\.categoryName)) vs \(names)")
                    for (o, s) in zip(ours, scores) {
                        #expect(abs(Double(o.score) - s) <= 0.01, "\(c.options) \(photo): score \(o.score) vs \(s)")
                    }
                }
            }
        }
    }

    @Test func badClassifierOptionsNameTheOption() throws {
        let model = try TaskFixtures.model("gesture_recognizer.task")
        func options(_ change: (inout ClassifierOptions) -> Void) -> GestureRecognizerOptions {
            var o = GestureRecognizerOptions()
            o.baseOptions.modelAssetPath = model
            change(&o.cannedGesturesClassifierOptions)
            return o
        }
        for bad in [0, -2, Int.min, Int.max] {
            #expect(throws: TaskError.self) { try GestureRecognizer(options: options { $0.maxResults = bad }) }
        }
        for bad: Float in [.nan, .infinity, -.infinity] {
            #expect(throws: TaskError.invalidOption(name: "cannedGesturesClassifierOptions.scoreThreshold", reason: "\(bad) is not a finite score")) {
                try GestureRecognizer(options: options { $0.scoreThreshold = bad })
            }
        }
        #expect(throws: TaskError.self) {
            try GestureRecognizer(
                options: options {
                    $0.categoryAllowlist = ["equal"]; $0.categoryDenylist = ["divide"]
                })
        }
    }
}
