import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

/// A fleet camera running the shipped Graphs/people_events_hog.pbtxt on real street video
/// (opencv-doc's vtest.avi, 12 s re-encoded once to H.264 with B-frames, paced at its 10 fps as a
/// camera is) with `record { }`, `snapshots { }` and its events written as JSON Lines: every
/// event has one `new` and one `end` (the source ending closes the open ones), every published
/// event says it has a clip and the clip is there, plays, and spans the pre-roll before the
/// first detection; events with `has_snapshot` have their three JPEGs, the size of the frame.
/// The HOG detector takes seconds a frame in a debug build: the release pass runs this.
@Suite("FleetEventsEndToEnd")
struct FleetEventsEndToEndTests {
    static let optimized: Bool = {
        #if DEBUG
            false
        #else
            true
        #endif
    }()

    static let vtest = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
    static let model = RepositoryFiles.built("hog/hog_people_default.xml")

    /// Runs `executable` with `args`; its standard output as text.
    static func tool(_ executable: String, _ args: [String]) throws -> String {
        String(decoding: try runCommand([executable] + args), as: UTF8.self)
    }

    @Test(.enabled(if: optimized, "HOG in a debug build takes seconds a frame: the release pass (make test) runs this"))
    func eventsClipsAndSnapshotsOnStreetVideo() throws {
        try #require(FileManager.default.fileExists(atPath: Self.vtest), "apt-get install opencv-doc")
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/setup.sh test")
        let folder = try temporaryFolder("frameflow-fleet-events")
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = folder.path
        let clip = dir + "/street.mp4"
        _ = try Self.tool(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", Self.vtest, "-t", "12", "-vf", "scale=384:288", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset",
                "veryfast", "-bf", "2", "-x264-params", "keyint=20:min-keyint=20:scenecut=0", clip,
            ])
        // A time base of the camera's own (event times are 1000 s + stream seconds): the
        // recording must count clip times from it.
        let text = """
            camera {
              name: "street"
              source: "\(clip)"
              graph: "\(RepositoryFiles.path("Graphs/people_events_hog.pbtxt"))"
              resource_root: "\(RepositoryFiles.root.path)"
              realtime: true
              side_packet { name: "time_base" value: "1000" }
              record { folder: "\(dir)/clips" events_stream: "events" pre_roll_seconds: 2 post_roll_seconds: 1 }
              snapshots { folder: "\(dir)/snapshots" stream: "snapshots" events_stream: "events" }
              output { stream: "events" to: "\(dir)/events.jsonl" }
            }
            """
        let config = try FleetConfig(text: text, file: "street.fleet")
        var options = FleetRunner.Options()
        options.healthInterval = 1
        let fleet = RunningFleet(FleetRunner(config: config, registry: .standard, options: options) { _ in })
        defer { fleet.stop() }
        // The clip ends after 12 s; the camera then reconnects (a second run, its own output file).
        #expect(eventually(within: 90) { fleet.now("street").reconnects >= 1 })
        let final = fleet.stop()
        #expect(final.first?.lastError.map { !$0.contains("recording") } ?? true, "\(final)")

        let lines = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        var kinds: [String: [String]] = [:]
        var ends: [String: [String: Any]] = [:]
        // A line per packet: {"stream": "events", "timestamp_us": …, "events": [Frigate's messages]}.
        let messages = try lines.flatMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["events"] as? [[String: Any]])
        }
        for object in messages {
            let type = try #require(object["type"] as? String)
            let before = try #require(object["before"] as? [String: Any]), after = try #require(object["after"] as? [String: Any])
            let id = try #require(after["id"] as? String)
            // The fleet names the events by the camera.
            #expect(before["id"] as? String == id && after["camera"] as? String == "street" && id.contains("-street-"))
            kinds[id, default: []].append(type)
            // Recording is on: every event has its clip from its first message on.
            #expect(after["has_clip"] as? Bool == true, "\(type) \(id)")
            if type == "end" { ends[id] = after }
        }
        #expect(kinds.count >= 3, "events: \(kinds.count)")
        for (id, k) in kinds {
            #expect(k.first == "new" && k.last == "end" && k.filter { $0 == "new" }.count == 1 && k.filter { $0 == "end" }.count == 1, "\(id): \(k)")
        }
        var snapshots = 0
        for (id, end) in ends {
            let start = try #require(end["start_time"] as? Double), stop = try #require(end["end_time"] as? Double)
            #expect(start >= 1000 && stop >= start)
            let path = "\(dir)/clips/\(id).mp4"
            try #require(FileManager.default.fileExists(atPath: path), "\(id): no clip")
            // The clip plays, and spans the pre-roll (as much of it as the stream had) before the
            // first detection and the event; at most a GOP (2 s) more before, and after the last
            // detection at most the tracker's lost-track wait (10 frames at 10 fps, plus the
            // event builder's second packet) and the post-roll.
            #expect(try ffprobeFrameCount(path) > 0)
            let duration = try #require(
                Double(try Self.tool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]).trimmed))
            let wanted = min(2, start - 1000) + (stop - start)
            #expect(duration >= wanted - 0.15 && duration <= wanted + 2 + 1.2 + 1 + 0.3, "\(id): \(duration) s, wanted ≥ \(wanted)")
            if end["has_snapshot"] as? Bool == true {
                snapshots += 1
                for suffix in ["", "-crop", "-annotated"] {
                    #expect(FileManager.default.fileExists(atPath: "\(dir)/snapshots/\(id)\(suffix).jpg"), "\(id)\(suffix).jpg")
                }
                let size = try Self.tool(
                    "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", "\(dir)/snapshots/\(id).jpg"])
                #expect(size.trimmed == "384,288")
            }
        }
        #expect(snapshots >= 1)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
