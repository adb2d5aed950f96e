import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Foundation
import Testing

@Suite struct EventBuilderCalculatorTests {
    struct Frame {
        var tracks: [TrackedObject]
        var zones: [ZonePresence] = []
    }

    func run(_ frames: [Frame], options: String = "camera: \"street\" time_base: 1000") throws -> (
        events: [(Int64, ObjectEvent)], counts: [ObjectCounts]
    ) {
        let runner = try CalculatorRunner(
            node: """
                calculator: "EventBuilderCalculator" input_stream: "TRACKS:t" input_stream: "ZONES:z"
                output_stream: "EVENTS:e" output_stream: "COUNTS:c"
                options { [frameflow.EventBuilderCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        for (f, frame) in frames.enumerated() {
            runner.add(frame.tracks, tag: "TRACKS", at: Timestamp(Int64(f) * 100_000))
            runner.add(frame.zones, tag: "ZONES", at: Timestamp(Int64(f) * 100_000))
        }
        try runner.run()
        let events = try runner.outputs("EVENTS").flatMap { p in try p.get([ObjectEvent].self).map { (p.timestamp.microseconds, $0) } }
        return (events, try runner.outputs("COUNTS").map { try $0.get(ObjectCounts.self) })
    }

    func person(_ id: Int, frame: Int, score: Double = 0.6, top: Double? = nil, stationary: Bool = false, state: TrackedObject.State = .tracked)
        -> TrackedObject
    {
        var t = EventTracks.standing(id: id, x: 100, y: 200, frame: frame, state: state, score: score)
        t.topScore = top ?? score
        t.firstSeen = Int64(id) * 100_000
        t.isStationary = stationary
        return t
    }

    /// The lifecycle, written out frame by frame.
    @Test func lifecycle() throws {
        var frames: [Frame] = []
        // Frames 0–5: track 1 (enters "door" at 3, top score 0.6 → 0.7 at 4 → 0.72 at 5).
        // Frames 1–9: track 2 (stationary at 6), absent at frame 4 only (a dropped track the
        // tracker found again), lost at 8.
        for f in 0..<10 {
            var tracks: [TrackedObject] = []
            var zones: [ZonePresence] = []
            if f <= 5 {
                let top = f >= 5 ? 0.72 : (f >= 4 ? 0.7 : 0.6)
                tracks.append(person(1, frame: f + 1, score: top, top: top))
                zones.append(ZonePresence(trackID: 1, currentZones: f >= 3 ? ["door"] : [], enteredZones: f >= 3 ? ["door"] : []))
            }
            if f >= 1 && f != 4 {
                tracks.append(person(2, frame: f == 8 ? 8 : f + 1, stationary: f >= 6, state: f == 8 ? .lost : .tracked))
                zones.append(ZonePresence(trackID: 2))
            }
            frames.append(Frame(tracks: tracks, zones: zones))
        }
        let (events, counts) = try run(frames)
        let summary = events.map { "\($0.0 / 100_000):\($0.1.type.rawValue):\($0.1.after.id)" }
        #expect(
            summary == [
                "0:new:1000.100000-street-1", "1:new:1000.200000-street-2", "3:update:1000.100000-street-1", "4:update:1000.100000-street-1",
                "6:update:1000.200000-street-2", "7:end:1000.100000-street-1", "9:end:1000.200000-street-2",
            ], "\(summary)")
        // The close's end comes 1 µs after the last packet.
        #expect(events.last?.0 == 900_001)
        // Zone entry: before without, after with.
        let entry = events[2].1
        #expect(entry.before.currentZones == [] && entry.after.currentZones == ["door"] && entry.after.enteredZones == ["door"])
        #expect(events[3].1.before.topScore == 0.6 && events[3].1.after.topScore == 0.7)
        #expect(events[4].1.after.stationary && !events[4].1.after.active && !events[4].1.before.stationary)
        // End: end_time = last seen (track 1 last matched at frame 5 → lastSeen 6 × 0.1 s).
        let end1 = events[5].1
        #expect(abs((end1.after.endTime ?? 0) - 1000.6) < 1e-9 && abs(end1.after.frameTime - 1000.7) < 1e-9 && end1.before.endTime == nil)
        #expect(end1.after.camera == "street" && end1.after.label == "person" && abs(end1.after.startTime - 1000.1) < 1e-9)
        // Counts: when they change, with every label kept.
        #expect(counts.first?.objects == ["person": 1, "all": 1])
        #expect(counts.map { $0.objects["all"]! } == [1, 2, 2, 1, 2, 1, 0])
        #expect(counts.dropFirst(1).first?.zones == [:])
        #expect(counts.contains { $0.zones["door"] == ["person": 1, "all": 1] })
        #expect(counts.last?.zones["door"] == ["person": 0, "all": 0])
    }

    /// Random track lifetimes with random gaps (a track gone two packets and back is a new
    /// event): every event has exactly one new, first, and one end, last.
    @Test func everyEventHasOneNewAndOneEnd() throws {
        var rng = SystemRandomNumberGenerator()
        var frames: [Frame] = []
        let spans = (1...30).map { _ -> (Int, Int) in
            let s = Int.random(in: 0..<80, using: &rng)
            return (s, s + Int.random(in: 0..<40, using: &rng))
        }
        for f in 0..<100 {
            let tracks = spans.enumerated().compactMap { id, span -> TrackedObject? in
                guard (span.0...span.1).contains(f), Int.random(in: 0..<10, using: &rng) > 0 else { return nil }
                return person(id + 1, frame: f + 1, score: Double.random(in: 0.3...1, using: &rng), stationary: Bool.random(using: &rng))
            }
            frames.append(Frame(tracks: tracks))
        }
        let (events, _) = try run(frames)
        var byID: [String: [ObjectEvent.Kind]] = [:]
        for (_, e) in events { byID[e.after.id, default: []].append(e.type) }
        #expect(!byID.isEmpty)
        for (id, kinds) in byID {
            #expect(kinds.first == .new && kinds.last == .end, "\(id): \(kinds)")
            #expect(kinds.filter { $0 == .new }.count == 1 && kinds.filter { $0 == .end }.count == 1, "\(id): \(kinds)")
        }
    }

    @Test func badOptions() throws {
        for (options, words) in [
            ("camera: \"\"", "camera"), ("time_base: -1", "time_base"), ("time_base: nan", "time_base"), ("time_base: 1e308", "time_base"),
            ("min_score_gain: 2", "min_score_gain"),
        ] {
            let error = GraphBuildErrors.firstOptionError(
                "input_stream: \"t\" node { calculator: \"EventBuilderCalculator\" input_stream: \"TRACKS:t\" output_stream: \"EVENTS:e\" "
                    + "options { [frameflow.EventBuilderCalculatorOptions.ext] { \(options) } } }", registry: .standard)
            #expect(error?.description.contains(words) == true, "\(options): \(String(describing: error))")
        }
    }

    /// The JSON is Frigate's: the keys of its `frigate/events` payload.
    @Test func jsonHasFrigatesKeys() throws {
        let (events, _) = try run([Frame(tracks: [person(1, frame: 1)])])
        let object = events[0].1.jsonObject
        #expect(object["type"] as? String == "new")
        let after = try #require(object["after"] as? [String: Any])
        for key in [
            "id", "camera", "frame_time", "snapshot_time", "label", "sub_label", "top_score", "false_positive", "start_time", "end_time",
            "score", "box", "area", "ratio", "region", "current_zones", "entered_zones", "has_snapshot", "has_clip", "stationary", "active",
            "motionless_count", "position_changes",
        ] {
            #expect(after.keys.contains(key), "\(key)")
        }
    }
}
