import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// FrameFlow against MediaPipe stream by stream on MediaPipe's classic solutions: the graph
/// `mp.solutions` runs (its compiled graph, expanded by MediaPipe, with the side packets and
/// options the solution sets in video mode), run on FrameFlow as written, every stream compared
/// frame by frame with MediaPipe's run of it on a short clip
/// (Tests/Fixtures/mediapipe/streams/<solution>_<clip>.zip, from
/// scripts/fixtures/record_mediapipe_streams.py classic).
struct ClassicStreamComparisonTests {
    /// A recording, and the landmark streams (normalized) of the solution's results.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var results: [String]
        var description: String { name }
    }

    static let pose = Case(name: "pose_walk_clip", results: ["pose_landmarks"])
    static let hands = Case(name: "hands_asl_hands", results: ["multi_hand_landmarks"])
    static let faceMesh = Case(name: "face_mesh_asl_face", results: ["multi_face_landmarks"])
    static let holistic = Case(
        name: "holistic_asl_hands", results: ["pose_landmarks", "face_landmarks", "left_hand_landmarks", "right_hand_landmarks"])

    /// Both runs of a case: FrameFlow's (recorded here) and MediaPipe's, the config and its depths.
    struct Runs {
        var ours: [String: [Int: [StreamComparison.Value]]]
        var reference: StreamComparison.Recording
        var config: GraphConfig
        var depth: [String: Int]
    }

    /// Runs the case's recording, or the one at `path`.
    static func run(_ c: Case, path: String? = nil) throws -> Runs {
        let (reference, config) = try StreamComparison.load(zip: path ?? RepositoryFiles.fixture("mediapipe/streams/\(c.name).zip"))
        let clip = try #require(reference.clip, "\(c.name): no clip")
        let images = try RepositoryFiles.frames(clip, count: reference.frames)
        try #require(images.count == reference.frames, "\(clip): \(images.count) frames, the recording has \(reference.frames)")
        // The same pixels as MediaPipe was given, or nothing below means anything.
        let sums = try #require(reference.rgb_sums)
        for (k, image) in images.enumerated() {
            try #require(TasksFixtures.rgbSums(image) == sums[k], "\(clip) frame \(k): other RGB bytes than MediaPipe was fed")
        }
        let ours = try StreamComparison.record(
            config, images: images, timestampsUs: try #require(reference.timestamps_us), streams: reference.streams,
            registry: MLFixtures.registry, environment: MLFixtures.mediaPipeEnvironment, imageStream: reference.input,
            sidePackets: (reference.side_packets ?? [:]).mapValues(\.value))
        return Runs(ours: ours, reference: reference, config: config, depth: StreamComparison.depths(config))
    }

    /// Mean distance in image pixels over the width between two landmark lists (x, y of each
    /// landmark's five numbers).
    static func meanDistance(_ a: [Double], _ b: [Double], width: Double, height: Double) -> Double {
        guard a.count == b.count, a.count >= 5 else { return .infinity }
        var sum = 0.0
        for i in stride(from: 0, to: a.count, by: 5) {
            sum += hypot((a[i] - b[i]) * width, (a[i + 1] - b[i + 1]) * height) / width
        }
        return sum / Double(a.count / 5)
    }

    /// The landmark lists of a result stream's packet.
    static func lists(_ v: StreamComparison.Value) -> [[Double]] {
        switch v {
        case .numbers(let n): return [n]
        case .vector(let l): return l
        }
    }

    /// Prints where the runs part at tolerances 1e-5 to 1e-2.
    static func printPartings(_ runs: Runs, _ name: String) {
        for tolerance in [1e-5, 1e-4, 1e-3, 1e-2] {
            let p = StreamComparison.firstParting(
                runs.ours, runs.reference, frames: runs.reference.frames, tolerance: tolerance, depth: runs.depth)
            print("\(name), \(runs.reference.frames) frames, tolerance \(tolerance): \(p.map { "\($0)" } ?? "no parting")")
        }
    }

    static func check(_ c: Case) throws {
        let runs = try Self.run(c)
        let (ours, reference, depth) = (runs.ours, runs.reference, runs.depth)
        Self.printPartings(runs, c.name)
        // Where the runs part first, they part at a model's output: every stream before it
        // (the detections' decoding, the regions, the crops' geometry, the trackers and
        // filters over earlier frames) equal to 1e-5.
        let models = StreamComparison.modelOutputs(runs.config, recorded: Set(reference.streams))
        if let first = StreamComparison.firstParting(ours, reference, frames: reference.frames, tolerance: 1e-5, depth: depth) {
            #expect(models.contains(first.stream), "\(c.name): the runs part first at \(first), which no model writes")
        }
        // And every calculator given inputs equal to MediaPipe's (on that frame and before)
        // makes MediaPipe's outputs: the detections' decoding, the regions, the loops' gates.
        let calculators = StreamComparison.calculatorPartings(
            ours, reference, config: runs.config, inputTolerance: 1e-6, outputTolerance: 1e-5)
        #expect(calculators.checked > 0, "\(c.name): no node had inputs equal to MediaPipe's")
        print(
            "\(c.name): \(calculators.checked) (node, frame) pairs with inputs equal to MediaPipe's,",
            "\(calculators.partings.count) with other outputs")
        for p in calculators.partings.prefix(10) {
            Issue.record("\(c.name): \(p)")
        }
        // The results: the same lists, within 1 % of the width on average, on at least 90 % of
        // the frames. Not on every frame: a gate (a pose's presence score near its threshold)
        // can flip on rounding that differs between kernel levels — the walking clip's frame
        // 27 does with AVX2 kernels and not with AVX-512 ones — and the tracking loop carries
        // the flip on (MediaPipe moves as far from itself when one byte changes; issue 45).
        let width = Double(try #require(reference.width)), height = Double(try #require(reference.height))
        var worst = 0.0
        var misses: [String] = []
        for s in c.results {
            try #require(reference.streams.contains(s), "\(c.name): \(s) is not recorded")
            for k in 0..<reference.frames {
                let theirs = (reference.values[s]?[String(k)] ?? []).flatMap(Self.lists)
                let mine = (ours[s]?[k] ?? []).flatMap(Self.lists)
                if mine.count != theirs.count {
                    misses.append("frame \(k), \(s): \(mine.count) lists, MediaPipe \(theirs.count)")
                    continue
                }
                let d = zip(mine, theirs).map { Self.meanDistance($0, $1, width: width, height: height) }.max() ?? 0
                worst = max(worst, d)
                if d > 0.01 { misses.append("frame \(k), \(s): \(d * 100) % of the width from MediaPipe's") }
            }
        }
        let checked = c.results.count * reference.frames
        print("\(c.name): results within 1 % of the width of MediaPipe's on \(checked - misses.count)/\(checked) frames; \(misses)")
        #expect(Double(misses.count) <= 0.1 * Double(checked), "\(c.name): \(misses.count) of \(checked) frames differ: \(misses)")
    }

    /// Any classic recording, for looking (FRAMEFLOW_CLASSIC_STREAMS=recording.zip from the
    /// script's `classic` mode; writes FrameFlow's run to FRAMEFLOW_STREAMS_OUT for the
    /// script's `parting` and `compare`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FRAMEFLOW_CLASSIC_STREAMS"] != nil))
    func anyRecording() throws {
        let env = ProcessInfo.processInfo.environment
        let path = env["FRAMEFLOW_CLASSIC_STREAMS"]!
        let runs = try Self.run(Case(name: path, results: []), path: path.hasPrefix("/") ? path : RepositoryFiles.path(path))
        if let out = env["FRAMEFLOW_STREAMS_OUT"] { try StreamComparison.write(runs.ours, to: out) }
        Self.printPartings(runs, path)
    }

    @Test func pose() throws { try Self.check(Self.pose) }
    @Test func hands() throws { try Self.check(Self.hands) }
    @Test func faceMesh() throws { try Self.check(Self.faceMesh) }
    @Test func holistic() throws { try Self.check(Self.holistic) }
}
