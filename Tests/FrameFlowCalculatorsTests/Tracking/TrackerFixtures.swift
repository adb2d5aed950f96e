import Foundation
import FrameFlowCalculators
import FrameFlowTestSupport

/// Tests/Fixtures/tracking/bytetrack.json, from scripts/fixtures/make_tracker_fixtures.py:
/// supervision 0.27's ByteTrack on HOG people detections (walk_long.mp4) and on a generated
/// scene with ground truth, motmetrics' scores of that scene, and SciPy's assignments.
struct TrackerFixtures: Decodable {
    struct Case: Decodable {
        let name: String
        let source: String
        let params: [String: Double]
        /// Per frame: [detection index, tracker id].
        let ids: [[[Int]]]

        var parameters: ByteTracker.Parameters {
            var p = ByteTracker.Parameters()
            if let v = params["frame_rate"] { p.frameRate = v }
            if let v = params["track_activation_threshold"] { p.trackActivationThreshold = v }
            if let v = params["lost_track_buffer"] { p.lostTrackBuffer = Int(v) }
            if let v = params["minimum_matching_threshold"] { p.minimumMatchingThreshold = v }
            if let v = params["minimum_consecutive_frames"] { p.minimumConsecutiveFrames = Int(v) }
            return p
        }
    }

    struct Assignment: Decodable {
        let rows: Int
        let columns: Int
        let cost: [Double?]
        let pairs: [[Int]]
    }

    /// Per source, per frame: [x1, y1, x2, y2, score].
    let sources: [String: [[[Double]]]]
    let cases: [Case]
    let assignments: [Assignment]
    /// Per frame: [object id, x, y, w, h].
    let sceneTruth: [[[Double]]]
    let sceneMetrics: [String: Double]

    enum CodingKeys: String, CodingKey {
        case sources, cases, assignments, sceneTruth = "scene_truth", sceneMetrics = "scene_metrics"
    }

    static let shared: TrackerFixtures = {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("tracking/bytetrack.json")))
            return try JSONDecoder().decode(TrackerFixtures.self, from: data)
        } catch {
            fatalError("Tests/Fixtures/tracking/bytetrack.json: \(error)")
        }
    }()

    func testCase(_ name: String) -> Case { cases.first { $0.name == name }! }

    static func inputs(_ frame: [[Double]]) -> [ByteTracker.Input] {
        frame.map { ByteTracker.Input(x1: $0[0], y1: $0[1], x2: $0[2], y2: $0[3], score: $0[4]) }
    }
}

/// How many frame-objects (a detection in a frame, output by either tracker) two trackers agree
/// on: both output it, with ids equal up to one consistent renaming (a one-to-one map built as
/// ids are first seen).
struct Agreement: CustomStringConvertible {
    var total = 0, agreed = 0
    var firstDifference: String?
    private var forward: [Int: Int] = [:], backward: [Int: Int] = [:]

    /// Adds one frame: each list maps a detection index to an id.
    mutating func add(frame: Int, reference: [Int: Int], ours: [Int: Int]) {
        for k in Set(reference.keys).union(ours.keys).sorted() {
            total += 1
            if let r = reference[k], let o = ours[k], (forward[o] ?? r) == r, (backward[r] ?? o) == o {
                agreed += 1
                (forward[o], backward[r]) = (r, o)
            } else if firstDifference == nil {
                firstDifference =
                    "frame \(frame), detection \(k): reference id \(reference[k].map(String.init) ?? "none"), "
                    + "FrameFlow's \(ours[k].map(String.init) ?? "none")"
            }
        }
    }

    var fraction: Double { total == 0 ? 1 : Double(agreed) / Double(total) }
    var description: String { "\(agreed)/\(total) frame-objects agree" + (firstDifference.map { "; first difference: \($0)" } ?? "") }
}
