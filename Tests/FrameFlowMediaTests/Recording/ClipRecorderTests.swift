import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

/// Event clips cut from real street video (opencv-doc's vtest.avi, re-encoded once by the ffmpeg
/// tool to H.264 with B-frames and a keyframe every 2 s), checked with ffprobe/ffmpeg: the clip
/// decodes, its packets are a run of the source's packets byte for byte (framemd5 with
/// `-c copy`), its codec parameters are the source's, and it spans the pre- and post-roll.
@Suite("ClipRecorder")
struct ClipRecorderTests {
    /// 30 s of vtest.avi at 10 fps, 384×288, H.264 (2 B-frames, GOP 20).
    static func street() throws -> String {
        let vtest = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
        guard FileManager.default.fileExists(atPath: vtest) else {
            throw MediaFixtures.FixtureError(description: "\(vtest) is missing: apt-get install opencv-doc")
        }
        return try MediaFixtures.make(
            "street.mp4",
            [
                "-i", vtest, "-t", "30", "-vf", "scale=384:288", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-bf", "2",
                "-x264-params", "keyint=20:min-keyint=20:scenecut=0",
            ])
    }

    /// A fresh empty folder.
    static func folder(_ name: String) -> String {
        let d = MediaFixtures.path("\(name)-\(UInt32.random(in: 0...UInt32.max))")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// One packet of `ffmpeg -f framemd5 -c copy`: times in seconds, size and MD5 of the bytes.
    struct PacketHash: Equatable {
        var pts: Double
        var size: Int
        var md5: String
    }

    static func packetHashes(_ path: String) throws -> [PacketHash] {
        let text = String(
            decoding: try runCommand(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"]),
            as: UTF8.self)
        var tb = 1.0
        var result: [PacketHash] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#tb 0:") {
                let r = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: "/")
                tb = Double(r[0])! / Double(r[1])!
                continue
            }
            if line.hasPrefix("#") { continue }
            let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count == 6, let pts = Double(f[2]), let size = Int(f[4]) else { continue }
            result.append(PacketHash(pts: pts * tb, size: size, md5: f[5]))
        }
        return result
    }

    /// The stream fields that must not change when packets are copied.
    static func codecParameters(_ path: String) throws -> String {
        String(
            decoding: try runCommand([
                "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,profile,level,width,height,pix_fmt,has_b_frames,extradata_size", "-of", "default=nw=1", path,
            ]), as: UTF8.self)
    }

    /// Where `clip`'s packets sit in `source`'s: the index of the first, after checking that all
    /// of them follow in order with the same bytes.
    static func matchRun(_ clip: [PacketHash], in source: [PacketHash]) -> Int? {
        guard let first = clip.first else { return nil }
        for start in source.indices where source[start].md5 == first.md5 && source[start].size == first.size {
            guard start + clip.count <= source.count else { continue }
            if zip(clip, source[start...]).allSatisfy({ $0.md5 == $1.md5 && $0.size == $1.size }) { return start }
        }
        return nil
    }

    /// Collects errors the packet tap hits (the tap cannot throw).
    final class Errors: @unchecked Sendable {
        var list: [Error] = []
    }

    static func event(_ id: String, _ type: ObjectEvent.Kind, start: Double, frame: Double, end: Double? = nil) -> ObjectEvent {
        let s = ObjectEvent.State(
            id: id, camera: "street", frameTime: frame, label: "person", topScore: 0.9, startTime: start, endTime: end, score: 0.9,
            box: [10, 20, 60, 140], area: 50 * 120, ratio: 50.0 / 120, region: [0, 0, 384, 288])
        return ObjectEvent(type: type, before: s, after: s)
    }

    /// Runs `street.mp4` through a source with the recorder on its tap, sending `events` when
    /// the decoded frames reach each one's time; returns the recorder after `streamEnded()`.
    static func record(
        _ events: [(at: Double, event: ObjectEvent)], folder: String, options: ClipRecorder.Options
    ) throws -> ClipRecorder {
        let source = try MediaSource(try street())
        let recorder = try ClipRecorder(folder: folder, stream: try source.encodedStreamInfo(), options: options)
        let errors = Errors()
        source.packetTap = { p in
            do { try recorder.append(p) } catch { errors.list.append(error) }
        }
        var pending = events.sorted { $0.at < $1.at }
        while let frame = try source.read() {
            while let next = pending.first, next.at <= frame.timestamp.seconds {
                try recorder.handle([next.event])
                pending.removeFirst()
            }
        }
        try recorder.streamEnded()
        #expect(errors.list.isEmpty, "\(errors.list)")
        return recorder
    }

    @Test("each event's clip has the pre-roll, the post-roll and the source's packet bytes, and plays")
    func clipsAreCopiesOfTheSourceWithPreAndPostRoll() throws {
        let folder = Self.folder("clips")
        var options = ClipRecorder.Options()
        options.preRollSeconds = 5
        options.postRollSeconds = 3
        // A is confirmed 0.7 s after its first detection; B overlaps A.
        let events: [(at: Double, event: ObjectEvent)] = [
            (10.0, Self.event("a", .new, start: 9.3, frame: 10.0)),
            (12.0, Self.event("b", .new, start: 12.0, frame: 12.0)),
            (12.5, Self.event("a", .update, start: 9.3, frame: 12.5)),
            (14.0, Self.event("a", .end, start: 9.3, frame: 14.0, end: 14.0)),
            (21.0, Self.event("b", .end, start: 12.0, frame: 21.0, end: 20.0)),
        ]
        let recorder = try Self.record(events, folder: folder, options: options)
        let source = try Self.packetHashes(try Self.street())
        let sourceParameters = try Self.codecParameters(try Self.street())
        #expect(sourceParameters.contains("codec_name=h264") && sourceParameters.contains("has_b_frames=2"))
        for (id, start, end) in [("a", 9.3, 14.0), ("b", 12.0, 20.0)] {
            let path = try #require(recorder.finishedClips[id])
            #expect(path == (folder as NSString).appendingPathComponent("\(id).mp4"))
            let clip = try Self.packetHashes(path)
            let at = try #require(Self.matchRun(clip, in: source), "\(id): the clip's packets are not a run of the source's")
            let times = source[at..<(at + clip.count)].map(\.pts)
            // Starts at or before first detection − pre-roll (aligned back to a keyframe, so
            // by less than one GOP of 2 s more), ends after end + post-roll (within a frame).
            #expect(times.min()! <= start - 5 + 1e-6, "\(id) starts at \(times.min()!)")
            #expect(times.min()! > start - 5 - 2.0 - 1e-6, "\(id) starts at \(times.min()!)")
            #expect(times.max()! >= end + 3 - 0.1 - 1e-6, "\(id) ends at \(times.max()!)")
            #expect(times.max()! < end + 3 + 0.5, "\(id) ends at \(times.max()!)")
            #expect(try Self.codecParameters(path) == sourceParameters)
            // It plays: every packet decodes, without a decoder error.
            #expect(try MediaFixtures.probe(path).frames == clip.count)
            let err = try MediaFixtures.runReadingStderr("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
            #expect(err.process.terminationStatus == 0 && err.stderr.isEmpty, "\(err.stderr)")
        }
        // Nothing half-written is left.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["a.mp4", "b.mp4"])
    }

    @Test("a reconnect mid-event closes the clip at the last packet, playable, and ends the event")
    func reconnectMidEventClosesTheClip() throws {
        let folder = Self.folder("reconnect")
        var options = ClipRecorder.Options()
        options.preRollSeconds = 2
        let first = try MediaSource(try Self.street())
        let recorder = try ClipRecorder(folder: folder, stream: try first.encodedStreamInfo(), options: options)
        let errors = Errors()
        var lastPacket = 0.0
        first.packetTap = { p in
            lastPacket = max(lastPacket, p.seconds)
            do { try recorder.append(p) } catch { errors.list.append(error) }
        }
        var sent = false
        while let frame = try first.read(), frame.timestamp.seconds < 12 {
            if frame.timestamp.seconds >= 8 && !sent {
                try recorder.handle([Self.event("r", .new, start: 8, frame: 8)])
                sent = true
            }
        }
        #expect(recorder.openEventIDs == ["r"])
        // The camera drops: the source is gone; a new one opens.
        let second = try MediaSource(try Self.street())
        let ended = try recorder.streamEnded(next: try second.encodedStreamInfo())
        #expect(ended == ["r"])
        #expect(recorder.openEventIDs.isEmpty)
        second.packetTap = { p in
            do { try recorder.append(p) } catch { errors.list.append(error) }
        }
        // The event builder may still name the event after the reconnect: no second clip.
        try recorder.handle([Self.event("r", .update, start: 8, frame: 1)])
        for _ in 0..<30 { _ = try second.read() }
        #expect(recorder.openEventIDs.isEmpty)
        try recorder.streamEnded()
        #expect(errors.list.isEmpty, "\(errors.list)")

        let path = try #require(recorder.finishedClips["r"])
        let clip = try Self.packetHashes(path)
        let source = try Self.packetHashes(try Self.street())
        let at = try #require(Self.matchRun(clip, in: source))
        let times = source[at..<(at + clip.count)].map(\.pts)
        #expect(times.min()! <= 6 + 1e-6)
        // It ends at the last packet read before the drop (the demuxer reads a little ahead of
        // the frames decoded).
        #expect(abs(times.max()! - lastPacket) < 0.35, "ends at \(times.max()!), last packet \(lastPacket)")
        #expect(try MediaFixtures.probe(path).frames == clip.count)
        let err = try MediaFixtures.runReadingStderr("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        #expect(err.process.terminationStatus == 0 && err.stderr.isEmpty, "\(err.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["r.mp4"])
    }

    @Test("broken settings and folders are errors naming the value or the folder")
    func brokenSettingsAreErrors() throws {
        let info = try MediaSource(try Self.street()).encodedStreamInfo()
        let base = Self.folder("broken")
        let file = (base as NSString).appendingPathComponent("a-file")
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        for folder in [file, (file as NSString).appendingPathComponent("clips")] {
            let e = #expect(throws: MediaError.self) { try ClipRecorder(folder: folder, stream: info) }
            #expect(e?.kind == .cannotWrite && e?.source == folder, "\(String(describing: e))")
        }
        for bad in [Double.nan, -1, 0, .infinity, 1e308] {
            let e = #expect(throws: MediaError.self) { try RetentionPolicy(maxBytes: bad) }
            #expect(e?.message.contains("max_bytes") == true)
            let d = #expect(throws: MediaError.self) { try RetentionPolicy(maxDays: bad) }
            #expect(d?.message.contains("retain_days") == true)
        }
        for bad in [Double.nan, -1, .infinity, 1e308] {
            var o = ClipRecorder.Options()
            o.preRollSeconds = bad
            let e = #expect(throws: MediaError.self) { try ClipRecorder(folder: base, stream: info, options: o) }
            #expect(e?.message.contains("pre_roll_seconds") == true)
            o = ClipRecorder.Options()
            o.segmentSeconds = bad
            let s = #expect(throws: MediaError.self) { try ClipRecorder(folder: base, stream: info, options: o) }
            #expect(s?.message.contains("segment_seconds") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["a-file"])
    }
}
