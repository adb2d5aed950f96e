import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

/// Retention over ten minutes of stream (the street clip's packets replayed 20 times with
/// shifted times), on a synthetic clock where one stream second is ten minutes, so that the
/// age limit (two days) is reached too; nothing waits on the wall clock.
@Suite("RetentionPolicy")
struct RetentionPolicyTests {
    /// The synthetic clock: set by the test, read by the recorder.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var value = Date(timeIntervalSince1970: 1_700_000_000)
        func set(_ d: Date) { lock.withLock { value = d } }
        func now() -> Date { lock.withLock { value } }
    }

    static func managedBytes(_ folder: String) throws -> Int64 {
        try RetentionPolicy.entries(in: folder).reduce(0) { $0 + $1.bytes }
    }

    @Test("ten accelerated minutes: the folder stays under its limit, nothing too old stays, an open event's clip is never removed")
    func tenAcceleratedMinutes() throws {
        let street = try ClipRecorderTests.street()
        let source = try MediaSource(street)
        let info = try source.encodedStreamInfo()
        var packets: [EncodedPacket] = []
        source.packetTap = { packets.append($0) }
        while try source.read() != nil {}
        let loopTicks = Int64(30 / info.timeBase.seconds(1))
        let fileBytes = try #require(FileManager.default.attributesOfItem(atPath: street)[.size] as? Int)

        let folder = ClipRecorderTests.folder("retention")
        let clock = Clock()
        let start = clock.now()
        var options = ClipRecorder.Options()
        options.preRollSeconds = 5
        options.postRollSeconds = 5
        options.continuous = true
        options.segmentSeconds = 20
        let limit = Double(fileBytes * 4)  // about two minutes of this stream
        options.retention = try RetentionPolicy(maxDays: 2, maxBytes: limit)
        let recorder = try ClipRecorder(folder: folder, stream: info, options: options, clock: { clock.now() })

        // Short events every minute, and one long event open from 100 s to 160 s.
        var events: [(at: Double, event: ObjectEvent)] = [
            (100, ClipRecorderTests.event("long", .new, start: 100, frame: 100)),
            (160, ClipRecorderTests.event("long", .end, start: 100, frame: 160, end: 160)),
        ]
        for k in 0..<10 {
            let t = Double(k * 60 + 30)
            events.append((t, ClipRecorderTests.event("e\(k)", .new, start: t - 0.5, frame: t)))
            events.append((t + 6, ClipRecorderTests.event("e\(k)", .end, start: t - 0.5, frame: t + 6, end: t + 6)))
        }
        events.sort { $0.at < $1.at }
        var maxSeen: Int64 = 0
        var longClipSeenWhileOpen = 0
        for loop in 0..<20 {
            for var p in packets {
                p.pts = p.pts.map { $0 + Int64(loop) * loopTicks }
                p.dts = p.dts.map { $0 + Int64(loop) * loopTicks }
                clock.set(start.addingTimeInterval(p.seconds * 600))
                try recorder.append(p)
                while let next = events.first, next.at <= p.seconds {
                    try recorder.handle([next.event])
                    events.removeFirst()
                }
                guard p.isKeyframe else { continue }
                // Retention ran for this keyframe: under the limit, and the long event's
                // clip (a hidden temporary while open) is there.
                let bytes = try Self.managedBytes(folder)
                maxSeen = max(maxSeen, bytes)
                #expect(Double(bytes) <= limit, "\(bytes) bytes at \(p.seconds) s")
                if recorder.openEventIDs.contains("long") {
                    let names = try FileManager.default.contentsOfDirectory(atPath: folder)
                    #expect(names.contains { $0.hasPrefix(".long.mp4.") }, "the open event's clip is missing at \(p.seconds) s")
                    longClipSeenWhileOpen += 1
                    #expect(!recorder.removed.contains("long.mp4"))
                }
            }
        }
        try recorder.streamEnded()
        #expect(events.isEmpty)
        #expect(longClipSeenWhileOpen >= 30)
        // The long event's clip was finished when it ended (then aged out like any other).
        #expect(recorder.finishedClips["long"] != nil)
        #expect(recorder.finishedSegments.count >= 28)
        #expect(recorder.removed.count >= 20, "\(recorder.removed.count) removed")
        // What is left: under the size limit, and none older than two days on the clock.
        #expect(Double(try Self.managedBytes(folder)) <= limit)
        let cutoff = clock.now().addingTimeInterval(-2 * 86400)
        for e in try RetentionPolicy.entries(in: folder) {
            #expect(e.modified >= cutoff, "\(e.name) is older than two days")
            #expect(!e.name.hasPrefix("."), "\(e.name) was left half-written")
        }
        // Every finished file that is left plays to its end.
        for e in try RetentionPolicy.entries(in: folder).suffix(3) {
            let path = (folder as NSString).appendingPathComponent(e.name)
            let err = try MediaFixtures.runReadingStderr("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
            #expect(err.process.terminationStatus == 0 && err.stderr.isEmpty, "\(e.name): \(err.stderr)")
        }
        #expect(maxSeen > Int64(limit / 2), "the test never came near its limit (\(maxSeen) bytes)")
    }

    @Test("oldest first by the recorder's clock; protected and hidden files stay, their bytes count")
    func oldestFirstAndProtected() throws {
        let folder = ClipRecorderTests.folder("policy")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // a (oldest) … e (newest), 1000 bytes each; b is protected, .tmp.mp4 is being written.
        for (i, name) in ["a.mp4", "b.mp4", "c.jpg", ".tmp.mp4", "d.mp4", "e.mp4"].enumerated() {
            let path = (folder as NSString).appendingPathComponent(name)
            _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 1000))
            try FileManager.default.setAttributes([.modificationDate: base.addingTimeInterval(Double(i) * 3600)], ofItemAtPath: path)
        }
        _ = FileManager.default.createFile(atPath: (folder as NSString).appendingPathComponent("notes.txt"), contents: Data(count: 5000))
        let policy = try RetentionPolicy(maxBytes: 3000)
        let removed = try policy.enforce(in: folder, now: base) { $0.hasPrefix("b.") }
        #expect(removed == ["a.mp4", "c.jpg", "d.mp4"])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == [".tmp.mp4", "b.mp4", "e.mp4", "notes.txt"])
        // By age: older than a day at base + 1 day + 4.5 h leaves only e (5 h).
        let byAge = try RetentionPolicy(maxDays: 1).enforce(in: folder, now: base.addingTimeInterval(86400 + 4.5 * 3600))
        #expect(byAge == ["b.mp4"])
    }
}
