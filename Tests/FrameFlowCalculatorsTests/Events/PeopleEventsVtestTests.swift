import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Foundation
import Testing

/// The events half of Graphs/people_events_hog.pbtxt (its nodes from ObjectFilterCalculator on,
/// options as shipped) on real street video: opencv-doc's vtest.avi, with the HOG detections of
/// every frame (scanned at 1.5× as the graph's detector does) cached by scripts/fixtures/make_vtest_event_fixtures.py (equal to
/// HOGPeopleDetectorCalculator's; HOG itself is too slow for a debug test run).
enum VtestEvents {
    struct Output: Sendable {
        var events: [(frame: Int, event: ObjectEvent)]
        var lineCounts: [(frame: Int, counts: [LineCount])]
        var counts: [ObjectCounts]
        var frames: Int
    }

    /// The shipped graph's events nodes, fed by `detections` and `size` streams.
    static func graphText() throws -> String {
        let text = try String(contentsOfFile: RepositoryFiles.path("Graphs/people_events_hog.pbtxt"), encoding: .utf8)
        let keep = ["ObjectFilterCalculator", "ObjectTrackerCalculator", "ZoneCalculator", "LineCounterCalculator", "EventBuilderCalculator"]
        let nodes = text.components(separatedBy: "\nnode {").dropFirst().map { "node {" + $0 }
            .filter { n in keep.contains { n.contains("calculator: \"\($0)\"") } }
            .map { $0.components(separatedBy: "\n}")[0] + "\n}" }
        guard nodes.count == keep.count else { throw GraphError(.syntax, "people_events_hog.pbtxt: \(nodes.count) of its events nodes found") }
        return "input_stream: \"detections\"\ninput_stream: \"size\"\n" + nodes.joined(separator: "\n")
    }

    static let output: Result<Output, any Error> = Result {
        struct Fixture: Decodable {
            struct Frame: Decodable {
                var frame: Int
                var boxes: [[Double]]
            }
            var width: Int
            var height: Int
            var frames: [Frame]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("events/vtest_hog.json")))
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        let graph = try Graph(GraphConfig(parsing: try graphText(), file: "people_events_hog.pbtxt"), registry: .standard)
        let events = try PacketCollector(graph, "events")
        let lineCounts = try PacketCollector(graph, "line_counts")
        let counts = try PacketCollector(graph, "counts")
        try graph.start()
        let size = ImageSize(width: fixture.width, height: fixture.height)
        for f in fixture.frames {
            let t = Timestamp(Int64(f.frame) * 100_000)  // 10 fps
            let dets = f.boxes.map { b in
                Detection(pixelBox: .init(xmin: Int(b[0]), ymin: Int(b[1]), width: Int(b[2]), height: Int(b[3])), score: b[4], label: "person")
            }
            _ = try graph.send(dets, to: "detections", at: t)
            _ = try graph.send(size, to: "size", at: t)
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        func frame(_ p: Packet) -> Int { Int(p.timestamp.microseconds / 100_000) }
        return Output(
            events: try events.packets.flatMap { p in try p.get([ObjectEvent].self).map { (frame(p), $0) } },
            lineCounts: try lineCounts.packets.map { (frame($0), try $0.get([LineCount].self)) },
            counts: try counts.packets.map { try $0.get(ObjectCounts.self) }, frames: fixture.frames.count)
    }
}

@Suite struct PeopleEventsVtestTests {
    struct Labels: Decodable {
        struct Window: Decodable {
            var first_frame: Int
            var last_frame: Int
        }
        struct Crossing: Decodable {
            var frames: [Int]
            var direction: String
        }
        var window: Window
        var crossings: [Crossing]
    }

    /// Every event has exactly one `new`, first, and one `end`, last (the clip's end closes the
    /// events still open), and time never goes back within an event.
    @Test func everyEventHasOneNewAndOneEnd() throws {
        let out = try VtestEvents.output.get()
        var byID: [String: [ObjectEvent]] = [:]
        for (_, e) in out.events { byID[e.after.id, default: []].append(e) }
        print("vtest events: \(byID.count) events, \(out.events.count) messages, \(out.counts.count) count changes")
        #expect(byID.count >= 10, "HOG + tracker should follow at least 10 people on vtest.avi")
        for (id, list) in byID {
            #expect(list.first?.type == .new && list.last?.type == .end, "\(id): \(list.map(\.type))")
            #expect(list.filter { $0.type == .new }.count == 1 && list.filter { $0.type == .end }.count == 1, "\(id)")
            #expect(zip(list, list.dropFirst()).allSatisfy { $0.after.frameTime <= $1.after.frameTime && $1.before == $0.after }, "\(id)")
            #expect(list.last?.after.endTime != nil && list.dropLast().allSatisfy { $0.after.endTime == nil }, "\(id)")
        }
        // Someone entered the zone left of the line (the walkway people cross).
        #expect(out.events.contains { $0.event.after.enteredZones == ["walkway_left"] })
        // The counts end at 0 once every event has ended.
        #expect(out.counts.last?.objects["all"] == 0 && out.counts.last?.zones["walkway_left"]?["all"] == 0)
    }

    /// The line's counts by direction within the hand-labelled window equal the labels
    /// (Tests/Fixtures/events/vtest_line_crossings.json, made by looking at the frames).
    @Test func lineCountsEqualTheHandLabels() throws {
        let out = try VtestEvents.output.get()
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("events/vtest_line_crossings.json")))
        let labels = try JSONDecoder().decode(Labels.self, from: data)
        func totals(upTo frame: Int) -> (Int, Int) {
            let c = out.lineCounts.last { $0.frame <= frame }?.counts.first { $0.line == "walkway" }
            return (c?.inCount ?? 0, c?.outCount ?? 0)
        }
        let before = totals(upTo: labels.window.first_frame - 1), after = totals(upTo: labels.window.last_frame)
        let counted = (inbound: after.0 - before.0, outbound: after.1 - before.1)
        let expected = (
            inbound: labels.crossings.filter { $0.direction == "in" }.count, outbound: labels.crossings.filter { $0.direction == "out" }.count
        )
        let changes = out.lineCounts.filter { (labels.window.first_frame...labels.window.last_frame).contains($0.frame) }
            .map { "\($0.frame): in \($0.counts[0].inCount) out \($0.counts[0].outCount)" }
        print(
            "vtest line 'walkway', frames \(labels.window.first_frame)-\(labels.window.last_frame): counted in \(counted.inbound) "
                + "out \(counted.outbound), labelled in \(expected.inbound) out \(expected.outbound); changes: \(changes)")
        #expect(counted.inbound == expected.inbound && counted.outbound == expected.outbound, "\(changes)")
        // Each counted crossing belongs to a labelled one of its direction: counted within the
        // labelled frames, or up to 4 frames after (min_frames: the new side must hold).
        var open = labels.crossings
        var previous = before
        for change in out.lineCounts where (labels.window.first_frame...labels.window.last_frame).contains(change.frame) {
            guard let c = change.counts.first(where: { $0.line == "walkway" }) else { continue }
            for (direction, delta) in [("in", c.inCount - previous.0), ("out", c.outCount - previous.1)] where delta > 0 {
                for _ in 0..<delta {
                    let i = open.firstIndex { $0.direction == direction && ($0.frames[0]...$0.frames[1] + 4).contains(change.frame) }
                    #expect(i != nil, "a crossing \(direction) counted at frame \(change.frame) matches no labelled one left: \(open)")
                    if let i { open.remove(at: i) }
                }
            }
            previous = (c.inCount, c.outCount)
        }
        #expect(open.isEmpty, "labelled crossings not counted: \(open.map(\.frames))")
    }
}

@Suite struct PeopleEventsGraphsTests {
    /// Both shipped events graphs build (options checked, ports typed, model found).
    @Test(arguments: ["Graphs/people_events_hog.pbtxt", "Graphs/people_events_hog_desktop_live.pbtxt"])
    func graphBuilds(file: String) throws {
        let errors = GraphBuildErrors.of(
            try String(contentsOfFile: RepositoryFiles.path(file), encoding: .utf8), file: file, registry: .standard,
            environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        #expect(errors.isEmpty, "\(errors)")
    }
}
