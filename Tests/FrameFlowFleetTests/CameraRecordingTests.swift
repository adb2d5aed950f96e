import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

/// The glue a fleet camera uses: the packet tap set on each source it opens, events and
/// snapshots from its graph, and the end of each run (a reconnect) closing open clips.
@Suite("CameraRecording")
struct CameraRecordingTests {
    static func event(_ id: String, _ type: ObjectEvent.Kind, start: Double, frame: Double, end: Double? = nil) -> ObjectEvent {
        let s = ObjectEvent.State(
            id: id, camera: "door", frameTime: frame, label: "person", topScore: 0.8, startTime: start, endTime: end, score: 0.8,
            box: [20, 20, 60, 100], area: 3200, ratio: 0.5, region: [0, 0, 176, 144])
        return ObjectEvent(type: type, before: s, after: s)
    }

    @Test("a run that ends mid-event closes the clip; the next run records its own; snapshots follow their track")
    func runsAndReconnects() throws {
        let clip = RepositoryFiles.built("carphone_pristine.mp4")
        try #require(FileManager.default.fileExists(atPath: clip), "run scripts/setup.sh test")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "frameflow-recording-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        var camera = CameraConfig(name: "door", source: clip, graph: "g.pbtxt")
        var record = RecordSettings(folder: folder)
        record.options.preRollSeconds = 0.5
        camera.record = record
        camera.snapshots = SnapshotSettings(folder: folder)
        let recording = try CameraRecording(camera: camera)

        // Run 1: an event opens at 1 s and the source drops at 2 s.
        let first = try MediaSource(clip)
        try recording.sourceOpened(first)
        var opened = false
        while let f = try first.read(), f.timestamp.seconds < 2 {
            if f.timestamp.seconds >= 1 && !opened {
                opened = true
                let frame = f.image
                recording.snapshots([
                    ObjectSnapshot(
                        trackID: 4, label: "person", score: 0.8, box: Rect(x: 20, y: 20, width: 40, height: 80), timestamp: f.timestamp,
                        image: frame, crop: frame, cropRect: Rect(x: 0, y: 0, width: 176, height: 144), annotated: frame)
                ])
                let new = [Self.event("1.0-door-4", .new, start: 1, frame: 1)]
                recording.events(new)
                // What the outputs publish: the clip is open and the snapshot written.
                let flagged = recording.flagged(new)[0]
                #expect(flagged.after.hasClip && flagged.after.hasSnapshot && !flagged.before.hasClip && !flagged.before.hasSnapshot)
            }
        }
        recording.runEnded()
        // Run 2: the same event id again (no second clip) and a new event that ends.
        let second = try MediaSource(clip)
        try recording.sourceOpened(second)
        recording.events([Self.event("1.0-door-4", .end, start: 1, frame: 0.5, end: 0.5)])
        var sent = false
        while let f = try second.read() {
            if f.timestamp.seconds >= 1.5 && !sent {
                let events = [
                    Self.event("2.5-door-7", .new, start: 1.5, frame: 1.5), Self.event("2.5-door-7", .end, start: 1.5, frame: 1.5, end: 2),
                ]
                recording.events(events)
                // A clip and no snapshot (none came for track 7); `before` of the end repeats the new's `after`.
                let flagged = recording.flagged(events)
                #expect(flagged.map(\.after.hasClip) == [true, true] && flagged.map(\.after.hasSnapshot) == [false, false])
                #expect(flagged[1].before.hasClip && !flagged[0].before.hasClip)
                sent = true
            }
        }
        recording.runEnded()
        #expect(recording.takeError() == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["1.0-door-4-annotated.jpg", "1.0-door-4-crop.jpg", "1.0-door-4.jpg", "1.0-door-4.mp4", "2.5-door-7.mp4"])
        for name in ["1.0-door-4.mp4", "2.5-door-7.mp4"] {
            let path = (folder as NSString).appendingPathComponent(name)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            p.arguments = ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            // Both start at the clip's only keyframe (0 s): the first ends at the drop, the second
            // 5 s after its end (the whole 4 s clip).
            let frames = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            #expect(p.terminationStatus == 0 && frames > 0, "\(name): \(text)")
            if name.hasPrefix("1.0") { #expect(frames > 50 && frames < 120, "\(frames)") } else { #expect(frames == 120) }
        }
    }

    @Test("a record folder that cannot be made fails the camera with the folder's name")
    func unwritableFolder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-recording-file-\(getpid())").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { unlink(file) }
        var camera = CameraConfig(name: "door", source: "x.mp4", graph: "g.pbtxt")
        camera.record = RecordSettings(folder: (file as NSString).appendingPathComponent("clips"))
        #expect(throws: (any Error).self) { try CameraRecording(camera: camera) }
        camera.record = nil
        camera.snapshots = SnapshotSettings(folder: file)
        let e = #expect(throws: MediaError.self) { try CameraRecording(camera: camera) }
        #expect(e?.source == file)
    }
}
