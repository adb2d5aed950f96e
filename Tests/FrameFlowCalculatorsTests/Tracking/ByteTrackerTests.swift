import FrameFlowCalculators
import Testing

@Suite struct ByteTrackerTests {
    /// On the same detections FrameFlow's tracker gives the same detections the same ids as
    /// supervision's ByteTrack (up to renaming), with the same boxes: real HOG detections of people
    /// walking (10 fps) and a generated scene with crossings and occlusions, with default and
    /// stricter settings (longer confirmation, shorter buffer).
    @Test(arguments: ["walk_default", "walk_strict", "scene", "scene_short_buffer"])
    func agreesWithSupervisionByteTrack(name: String) throws {
        let fixtures = TrackerFixtures.shared
        let c = fixtures.testCase(name)
        let frames = try #require(fixtures.sources[c.source])
        let tracker = ByteTracker(c.parameters)
        var agreement = Agreement()
        var boxesChecked = 0
        for (f, frame) in frames.enumerated() {
            let out = tracker.update(TrackerFixtures.inputs(frame))
            let ours = Dictionary(uniqueKeysWithValues: out.map { ($0.detection, $0.track.id) })
            agreement.add(frame: f + 1, reference: Dictionary(uniqueKeysWithValues: c.ids[f].map { ($0[0], $0[1]) }), ours: ours)
            // The output box is the detection's (the reference returns its input boxes).
            for a in out {
                let d = frame[a.detection], b = a.track.box
                #expect(abs(b.x1 - d[0]) <= 1e-3 && abs(b.y1 - d[1]) <= 1e-3 && abs(b.x2 - d[2]) <= 1e-3 && abs(b.y2 - d[3]) <= 1e-3)
                boxesChecked += 1
            }
        }
        print("ObjectTracker vs supervision ByteTrack, \(name): \(agreement), \(boxesChecked) boxes within 1e-3")
        #expect(agreement.total > 400)
        #expect(agreement.fraction >= 0.95, "\(agreement)")
        #expect(agreement.fraction == 1, "\(agreement)")
    }

    /// MOTA, IDF1 and id switches on the generated scene: FrameFlow's Swift scoring reproduces
    /// motmetrics' numbers for the reference's tracks, and FrameFlow's tracks score at least as well.
    @Test func motMetricsAtLeastTheReferences() throws {
        let fixtures = TrackerFixtures.shared
        let c = fixtures.testCase("scene")
        let frames = try #require(fixtures.sources["scene"])
        let truth = fixtures.sceneTruth.map { $0.map { MOTMetrics.Object(id: Int($0[0]), box: Array($0[1...])) } }
        func xywh(_ d: [Double]) -> [Double] { [d[0], d[1], d[2] - d[0], d[3] - d[1]] }
        let referenceTracks = zip(frames, c.ids).map { frame, ids in ids.map { MOTMetrics.Object(id: $0[1], box: xywh(frame[$0[0]])) } }
        let tracker = ByteTracker(c.parameters)
        let ourTracks = frames.map { frame in
            tracker.update(TrackerFixtures.inputs(frame)).map { MOTMetrics.Object(id: $0.track.id, box: xywh(frame[$0.detection])) }
        }
        let reference = MOTMetrics(truth: truth, hypotheses: referenceTracks)
        let ours = MOTMetrics(truth: truth, hypotheses: ourTracks)
        let m = fixtures.sceneMetrics
        print(
            "MOT on the generated scene (\(frames.count) frames): supervision ByteTrack (motmetrics) MOTA \(m["mota"]!), IDF1 \(m["idf1"]!), switches \(m["num_switches"]!)"
        )
        print("  supervision ByteTrack (FrameFlow's scoring): \(reference)")
        print("  FrameFlow ObjectTracker: \(ours)")
        #expect(Double(reference.objects) == m["num_objects"] && Double(reference.predictions) == m["num_predictions"])
        #expect(Double(reference.misses) == m["num_misses"] && Double(reference.falsePositives) == m["num_false_positives"])
        #expect(Double(reference.switches) == m["num_switches"] && Double(reference.idtp) == m["idtp"])
        #expect(abs(reference.mota - m["mota"]!) < 1e-12 && abs(reference.idf1 - m["idf1"]!) < 1e-12)
        #expect(ours.mota >= reference.mota && ours.idf1 >= reference.idf1 && ours.switches <= reference.switches)
        #expect(ours.mota > 0.8 && ours.idf1 > 0.8, "the scene is tracked at all")
    }

    /// A box that stays put becomes stationary after `stationaryFrames` frames; moving more than
    /// the threshold (in box heights) restarts the count; history, top score and times follow.
    @Test func stationaryHistoryAndScores() {
        var p = ByteTracker.Parameters()
        p.stationaryFrames = 10
        p.stationaryThreshold = 0.1
        p.historyLength = 5
        let tracker = ByteTracker(p)
        func frame(_ x: Double, score: Double, time: Int64) -> TrackedObject? {
            tracker.update([.init(x1: x, y1: 100, x2: x + 50, y2: 200, score: score)], time: time).first?.track
        }
        var last: TrackedObject?
        // Standing still with a wobble of 5 px (0.05 box heights).
        for k in 0..<12 {
            last = frame(300 + Double(k % 2) * 5, score: k == 3 ? 0.95 : 0.8, time: Int64(k) * 1000)
            #expect(last?.isStationary == (k >= 10), "frame \(k): \(String(describing: last))")
        }
        #expect(last?.motionlessFrames == 11 && last?.topScore == 0.95 && last?.score == 0.8)
        #expect(last?.firstSeen == 0 && last?.lastSeen == 11_000 && last?.firstFrame == 1 && last?.lastFrame == 12 && last?.hits == 12)
        #expect(last?.history.count == 5 && last?.history.first?.frame == 8 && last?.history.last?.time == 11_000)
        // A 15 px step (0.15 box heights) is a move.
        last = frame(315, score: 0.8, time: 12_000)
        #expect(last?.isStationary == false && last?.motionlessFrames == 0)
    }

    /// A lost track is listed for int(frame_rate / 30 × lost_track_buffer) frames after its last
    /// detection and keeps its id when found within them; after that it is gone.
    @Test(arguments: [(30.0, 30), (10.0, 30), (25.0, 7)])
    func lostTracksLastTheBuffer(frameRate: Double, buffer: Int) {
        var p = ByteTracker.Parameters()
        p.frameRate = frameRate
        p.lostTrackBuffer = buffer
        let keep = Int(frameRate / 30 * Double(buffer))
        let box = ByteTracker.Input(x1: 10, y1: 10, x2: 60, y2: 110, score: 0.9)
        let tracker = ByteTracker(p)
        for _ in 0..<3 { _ = tracker.update([box]) }
        for k in 1...keep {
            _ = tracker.update([])
            #expect(tracker.tracks.map { $0.state } == [.lost], "\(k) frames after")
        }
        _ = tracker.update([])
        #expect(tracker.tracks.isEmpty)

        let again = ByteTracker(p)
        for _ in 0..<3 { _ = again.update([box]) }
        for _ in 0..<keep { _ = again.update([]) }
        #expect(again.update([box]).map { $0.track.id } == [1])
    }

    /// `skip(frames:)` is the same as that many frames without detections, also for gaps longer
    /// than any track lives.
    @Test(arguments: [1, 5, 40, 100_000])
    func skippingIsEmptyFrames(gap: Int) {
        let fixtures = TrackerFixtures.shared
        let frames = fixtures.sources["scene"]!
        let a = ByteTracker(), b = ByteTracker()
        for f in frames.prefix(30) {
            _ = a.update(TrackerFixtures.inputs(f))
            _ = b.update(TrackerFixtures.inputs(f))
        }
        a.skip(frames: gap, time: 0)
        for _ in 0..<min(gap, 200) { _ = b.update([]) }
        if gap > 200 { b.skip(frames: gap - 200, time: 0) }
        #expect(a.frame == b.frame)
        for f in frames.dropFirst(30).prefix(40) {
            let x = a.update(TrackerFixtures.inputs(f)).map { [$0.detection, $0.track.id] }
            let y = b.update(TrackerFixtures.inputs(f)).map { [$0.detection, $0.track.id] }
            #expect(x == y)
        }
    }
}

@Suite struct LinearAssignmentTests {
    /// The same pairs as SciPy's `linear_sum_assignment` on real, tied, constant and partly
    /// forbidden matrices, wide and tall.
    @Test func matchesSciPy() throws {
        let fixtures = TrackerFixtures.shared
        #expect(fixtures.assignments.count >= 40)
        for a in fixtures.assignments {
            let cost = a.cost.map { $0 ?? .infinity }
            let pairs = try #require(LinearAssignment.solve(cost, rows: a.rows, columns: a.columns))
            #expect(pairs.map { [$0.row, $0.column] } == a.pairs, "\(a.rows)×\(a.columns): \(cost)")
        }
    }

    /// The least total cost, checked by trying every permutation of a small matrix.
    @Test func isOptimal() {
        var seed: UInt64 = 12345
        func next() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        func permutations(_ n: Int) -> [[Int]] {
            n == 0
                ? [[]]
                : permutations(n - 1).flatMap { p in
                    (0...p.count).map { i in
                        var q = p; q.insert(n - 1, at: i); return q
                    }
                }
        }
        for _ in 0..<50 {
            let n = 5
            let cost = (0..<(n * n)).map { _ in (next() * 10).rounded() }
            let pairs = LinearAssignment.solve(cost, rows: n, columns: n)!
            let total = pairs.reduce(0) { $0 + cost[$1.row * n + $1.column] }
            let best = permutations(n).map { p in p.enumerated().reduce(0) { $0 + cost[$1.offset * n + $1.element] } }.min()!
            #expect(total == best)
        }
    }

    @Test func refusesNaNAndInfeasibleMatrices() {
        #expect(LinearAssignment.solve([0, .nan, 1, 2], rows: 2, columns: 2) == nil)
        #expect(LinearAssignment.solve([0, -.infinity, 1, 2], rows: 2, columns: 2) == nil)
        #expect(LinearAssignment.solve([.infinity, .infinity, 1, 2], rows: 2, columns: 2) == nil)
        #expect(LinearAssignment.solve([], rows: 0, columns: 3)?.isEmpty == true)
    }
}
