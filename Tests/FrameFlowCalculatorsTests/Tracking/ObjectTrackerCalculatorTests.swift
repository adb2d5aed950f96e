import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct ObjectTrackerCalculatorTests {
    /// Runs the walk_default case through a graph node: relative boxes with IMAGE_SIZE (320×240),
    /// 10 fps timestamps. `dropEmpty`: frames without detections send no packet at all (a missed
    /// frame), which must give the same tracks.
    func runWalk(dropEmpty: Bool, extra: String = "") throws -> (Agreement, [[Detection]]) {
        let fixtures = TrackerFixtures.shared
        let c = fixtures.testCase("walk_default")
        let frames = try #require(fixtures.sources["walk"])
        let runner = try CalculatorRunner(
            node: """
                calculator: "ObjectTrackerCalculator" input_stream: "DETECTIONS:in" input_stream: "IMAGE_SIZE:size"
                output_stream: "DETECTIONS:out" output_stream: "TRACKS:tracks"
                options { [frameflow.ObjectTrackerCalculatorOptions.ext] { frame_rate: 10 \(extra) } }
                """, registry: .standard)
        var sent: [Int64] = []
        for (f, frame) in frames.enumerated() where !(dropEmpty && frame.isEmpty) {
            let t = Timestamp(Int64(f) * 100_000)
            let dets = frame.map { d in
                Detection(
                    relativeBox: Rect(x: d[0] / 320, y: d[1] / 240, width: (d[2] - d[0]) / 320, height: (d[3] - d[1]) / 240), score: d[4],
                    label: "person")
            }
            runner.add(dets, tag: "DETECTIONS", at: t)
            runner.add(ImageSize(width: 320, height: 240), tag: "IMAGE_SIZE", at: t)
            sent.append(Int64(f) * 100_000)
        }
        try runner.run()
        let packets = runner.outputs("DETECTIONS")
        #expect(packets.map { $0.timestamp.microseconds } == sent)
        #expect(runner.outputs("TRACKS").count == sent.count)
        var agreement = Agreement()
        var outputs: [[Detection]] = []
        for p in packets {
            let f = Int(p.timestamp.microseconds / 100_000)
            let out = try p.get([Detection].self)
            outputs.append(out)
            // Map each output back to its input index by its box.
            var ours: [Int: Int] = [:]
            for d in out {
                guard let id = d.detectionID else { continue }
                let i = try #require(frames[f].firstIndex { abs($0[0] / 320 - d.box.x) < 1e-12 && abs($0[1] / 240 - d.box.y) < 1e-12 })
                ours[i] = id
                #expect(d.label == "person" && d.score == frames[f][i][4])
            }
            agreement.add(frame: f + 1, reference: Dictionary(uniqueKeysWithValues: c.ids[f].map { ($0[0], $0[1]) }), ours: ours)
        }
        return (agreement, outputs)
    }

    @Test func agreesWithByteTrackThroughAGraph() throws {
        let (agreement, _) = try runWalk(dropEmpty: false)
        print("ObjectTrackerCalculator (relative boxes + IMAGE_SIZE) vs supervision ByteTrack, walk: \(agreement)")
        #expect(agreement.total > 600 && agreement.fraction == 1, "\(agreement)")
    }

    /// A frame without a packet counts as a frame without detections (by its timestamp).
    @Test func missedFramesAreCountedFromTimestamps() throws {
        let frames = try #require(TrackerFixtures.shared.sources["walk"])
        #expect(frames.contains { $0.isEmpty }, "the clip has frames without detections")
        let (agreement, _) = try runWalk(dropEmpty: true)
        #expect(agreement.fraction == 1, "\(agreement)")
    }

    /// `emit_unconfirmed` passes every detection through; only tracked ones carry an id.
    @Test func emitUnconfirmedKeepsEveryDetection() throws {
        let frames = try #require(TrackerFixtures.shared.sources["walk"])
        let (_, outputs) = try runWalk(dropEmpty: false, extra: "emit_unconfirmed: true")
        #expect(outputs.map { $0.count } == frames.map { $0.count })
        #expect(outputs.joined().contains { $0.detectionID == nil } && outputs.joined().contains { $0.detectionID != nil })
    }

    /// TRACKS lists confirmed tracks with pixel boxes (relative × IMAGE_SIZE) and times in µs.
    @Test func tracksCarryTheirState() throws {
        let runner = try CalculatorRunner(
            ObjectTrackerCalculator.self, inputs: ["DETECTIONS:in"], outputs: ["DETECTIONS:out", "TRACKS:tracks"])
        for k in 0..<5 {
            runner.add(
                [Detection(pixelBox: .init(xmin: 100 + k, ymin: 50, width: 40, height: 90), score: 0.9)], tag: "DETECTIONS",
                at: Timestamp(Int64(k) * 33_333))
        }
        try runner.run()
        let tracks = try runner.outputs("TRACKS").last!.get([TrackedObject].self)
        #expect(tracks.count == 1)
        let t = try #require(tracks.first)
        #expect(t.id == 1 && t.state == .tracked && t.firstSeen == 0 && t.lastSeen == 4 * 33_333 && t.hits == 5)
        #expect(t.box == .init(x1: 104, y1: 50, x2: 144, y2: 140))
        #expect(abs(t.filteredBox.x1 - 104) < 2 && abs(t.filteredBox.y2 - 140) < 2)
        #expect(try runner.outputs("DETECTIONS").allSatisfy { try $0.get([Detection].self).map(\.detectionID) == [1] })
    }

    @Test func refusesBoxesThatAreNotNumbers() throws {
        let runner = try CalculatorRunner(ObjectTrackerCalculator.self, inputs: ["DETECTIONS:people"], outputs: ["DETECTIONS:out"])
        runner.add([Detection(relativeBox: Rect(x: .nan, y: 0.1, width: 0.2, height: 0.3), score: 0.9)], tag: "DETECTIONS", at: Timestamp(0))
        let message = thrownDescription { try runner.run() }
        #expect(message?.contains("people") == true && message?.contains("not a finite number") == true, "\(message ?? "")")
    }

    @Test func relativeBoxesNeedAnImageSizeFirst() throws {
        let runner = try CalculatorRunner(
            ObjectTrackerCalculator.self, inputs: ["DETECTIONS:people", "IMAGE_SIZE:size"], outputs: ["DETECTIONS:out"])
        runner.add([Detection(relativeBox: Rect(x: 0.1, y: 0.1, width: 0.2, height: 0.3), score: 0.9)], tag: "DETECTIONS", at: Timestamp(0))
        let message = thrownDescription { try runner.run() }
        #expect(message?.contains("IMAGE_SIZE") == true, "\(message ?? "")")
    }

    /// NaN, infinities, huge, zero and negative values are refused when the graph is built,
    /// naming the field.
    @Test(arguments: [
        ("track_activation_threshold: nan", "track_activation_threshold"), ("track_activation_threshold: inf", "track_activation_threshold"),
        ("track_activation_threshold: -0.1", "track_activation_threshold"), ("track_activation_threshold: 1e308", "track_activation_threshold"),
        ("minimum_matching_threshold: 1.5", "minimum_matching_threshold"), ("minimum_matching_threshold: -inf", "minimum_matching_threshold"),
        ("frame_rate: 0", "frame_rate"), ("frame_rate: -30", "frame_rate"), ("frame_rate: 1e308", "frame_rate"), ("frame_rate: nan", "frame_rate"),
        ("lost_track_buffer: -1", "lost_track_buffer"), ("lost_track_buffer: 100001", "lost_track_buffer"),
        ("frame_rate: 1001", "frame_rate"),
        ("minimum_consecutive_frames: 0", "minimum_consecutive_frames"), ("minimum_consecutive_frames: -3", "minimum_consecutive_frames"),
        ("stationary_threshold: -1", "stationary_threshold"), ("stationary_threshold: 1e308", "stationary_threshold"),
        ("stationary_threshold: inf", "stationary_threshold"), ("stationary_frames: 0", "stationary_frames"),
        ("history_length: 0", "history_length"), ("history_length: 1000000000", "history_length"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "ObjectTrackerCalculator" input_stream: "DETECTIONS:in" output_stream: "DETECTIONS:d"
            options { [frameflow.ObjectTrackerCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    @Test(arguments: [
        "track_activation_threshold: 0 minimum_matching_threshold: 0 frame_rate: 0.01 lost_track_buffer: 0 minimum_consecutive_frames: 1 stationary_threshold: 0 stationary_frames: 1 history_length: 1",
        "track_activation_threshold: 1 minimum_matching_threshold: 1 frame_rate: 1000 lost_track_buffer: 100000 minimum_consecutive_frames: 100000 stationary_threshold: 100 stationary_frames: 1000000 history_length: 100000",
    ])
    func edgesOfTheRangesRun(options: String) throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "ObjectTrackerCalculator" input_stream: "DETECTIONS:in" output_stream: "DETECTIONS:d"
                options { [frameflow.ObjectTrackerCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        for k in 0..<3 {
            runner.add(
                [Detection(pixelBox: .init(xmin: 10, ymin: 10, width: 20, height: 40), score: 0.9)], tag: "DETECTIONS", at: Timestamp(Int64(k) * 1000)
            )
        }
        try runner.run()
        #expect(runner.outputs("DETECTIONS").count == 3)
    }
}
