import FrameFlow
import FrameFlowMedia
import Foundation

/// A camera's clips and snapshots across its runs: the `ClipRecorder` fed by the source's
/// packet tap and the graph's events, and the `SnapshotWriter` fed by the graph's snapshots
/// and events. Snapshots are matched to events by track id, the last `-` part of an event id
/// (`"<start_time>-<camera>-<track id>"`, as `ObjectEvent.State.id` documents it).
///
/// Events published by the camera's outputs carry `has_clip` (the recorder holds a clip for the
/// event) and `has_snapshot` (a snapshot of it was written): `flagged(_:)` sets them, after
/// `events(_:)` has handled the same packet (the observer runs before the outputs' sinks).
///
/// `@unchecked Sendable`: the reading thread (packets) and graph workers (events, snapshots)
/// call in; every field is used under `lock`. Failures never stop the camera: the first since
/// the last `takeError()` is kept for its health report.
final class CameraRecording: @unchecked Sendable {
    private let lock = NSLock()
    private let record: RecordSettings?
    private var recorder: ClipRecorder?
    private let snapshotWriter: SnapshotWriter?
    /// The latest best snapshot of each track, and the snapshot time written per event.
    private var latest: [Int: ObjectSnapshot] = [:]
    private var written: [String: Timestamp] = [:]
    /// Per open event: (has clip, has snapshot) as last handled, and as last published.
    private var flags: [String: (clip: Bool, snapshot: Bool)] = [:]
    private var published: [String: (clip: Bool, snapshot: Bool)] = [:]
    /// Events that ended in the last packet: forgotten at the next one (published by then).
    private var ended: [String] = []
    private var error: String?
    /// The current run's time base: event times minus it are on the packets' clock.
    private var timeBase = 0.0

    /// Checks the folders now (a folder that cannot be written fails the camera at once).
    init(camera: CameraConfig) throws {
        record = camera.record
        if let r = camera.record {
            try r.options.validate()
            try FileManager.default.createDirectory(atPath: r.folder, withIntermediateDirectories: true)
            guard access(r.folder, W_OK | X_OK) == 0 else { throw MediaError(.cannotWrite, r.folder, "the recordings folder is not writable") }
        }
        snapshotWriter = try camera.snapshots.map { try SnapshotWriter(folder: $0.folder) }
    }

    /// A new source of the camera opened: the recorder continues with its stream.
    func sourceOpened(_ source: MediaSource) throws {
        guard let record else { return }
        let info = try source.encodedStreamInfo()
        try lock.withLock {
            if let recorder {
                try recorder.streamEnded(next: info)
            } else {
                recorder = try ClipRecorder(folder: record.folder, stream: info, options: record.options)
            }
        }
        source.packetTap = { [weak self] p in self?.packet(p) }
    }

    private func packet(_ p: EncodedPacket) {
        lock.withLock {
            do { try recorder?.append(p) } catch { self.error = self.error ?? "\(error)" }
        }
    }

    /// A run starts whose events' times are `timeBase` + the stream's seconds.
    func runStarted(timeBase: Double) {
        lock.withLock { self.timeBase = timeBase }
    }

    /// The graph's snapshots.
    func snapshots(_ list: [ObjectSnapshot]) {
        lock.withLock { for s in list { latest[s.trackID] = s } }
    }

    /// The graph's events: clips open and close, and each event's snapshot is written when
    /// its track has a newer one.
    func events(_ events: [ObjectEvent]) {
        lock.withLock {
            let onStreamClock =
                timeBase == 0
                ? events
                : events.map { e in
                    var e = e
                    for state in [\ObjectEvent.before, \ObjectEvent.after] {
                        e[keyPath: state].startTime -= timeBase
                        e[keyPath: state].frameTime -= timeBase
                        e[keyPath: state].endTime = e[keyPath: state].endTime.map { $0 - timeBase }
                    }
                    return e
                }
            do { try recorder?.handle(onStreamClock) } catch { self.error = self.error ?? "\(error)" }
            for id in ended {
                flags[id] = nil
                published[id] = nil
            }
            ended = []
            for e in events {
                let id = e.after.id
                var snapshot = flags[id]?.snapshot ?? false
                if let snapshotWriter, let track = id.split(separator: "-").last.flatMap({ Int($0) }) {
                    if let s = latest[track], written[id] != s.timestamp {
                        do {
                            try snapshotWriter.write(s, eventID: id)
                            written[id] = s.timestamp
                            snapshot = true
                        } catch { self.error = self.error ?? "\(error)" }
                    }
                    if e.type == .end {
                        written[id] = nil
                        latest[track] = nil
                    }
                }
                flags[id] = (recorder?.hasClip(id) ?? false, snapshot)
                if e.type == .end { ended.append(id) }
            }
        }
    }

    /// `events` with `has_clip` and `has_snapshot` set: `before` as last published, `after` as
    /// `events(_:)` found them for this packet.
    func flagged(_ events: [ObjectEvent]) -> [ObjectEvent] {
        lock.withLock {
            events.map { e in
                var e = e
                let id = e.after.id
                let before = published[id] ?? (false, false)
                let after = flags[id] ?? before
                (e.before.hasClip, e.before.hasSnapshot) = before
                (e.after.hasClip, e.after.hasSnapshot) = after
                published[id] = after
                return e
            }
        }
    }

    /// The run ended (the source failed, stalled or ended, or the fleet stops): open clips are
    /// closed at the last packet read.
    func runEnded() {
        lock.withLock {
            do { try recorder?.streamEnded() } catch { self.error = self.error ?? "\(error)" }
        }
    }

    /// The first failure since the last call, if any.
    func takeError() -> String? {
        lock.withLock {
            defer { error = nil }
            return error
        }
    }
}
