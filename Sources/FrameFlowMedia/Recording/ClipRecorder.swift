import Foundation
import FrameFlow

/// Cuts event clips (and, optionally, continuous segments) from a camera's own encoded
/// stream, without re-encoding, into one folder.
///
/// Feed it every packet the source reads (`MediaSource.packetTap` → `append(_:)`) and the
/// events of the camera's graph (`handle(_:)`). It keeps the last `bufferSeconds` of packets
/// in a `PacketRingBuffer`; an event's clip `<event id>.mp4` starts at the last keyframe at or
/// before (first detection − `preRollSeconds`) and ends with the first packet decoded after
/// (end + `postRollSeconds`). Overlapping events each get their own file from the same
/// packets. Every file is written under a hidden temporary name and renamed when complete;
/// `streamEnded()` (a reconnect, the end of the input, shutdown) closes every open file at
/// the last packet read, so nothing is left half-written. With `continuous`, the stream is also
/// written in segments of `segmentSeconds`, each starting at a keyframe. After each file and at
/// each keyframe the `retention` policy runs, never removing an open event's files.
///
/// Event times (`start_time`, `end_time`) must be on the packets' clock (the source's
/// timestamps in seconds), as `EventBuilderCalculator` stamps them from the frames.
///
/// ```swift
/// let source = try MediaSource("camera.mp4")
/// let recorder = try ClipRecorder(folder: "clips", stream: source.encodedStreamInfo())
/// source.packetTap = { try? recorder.append($0) }
/// // … for each [ObjectEvent] of the graph: try recorder.handle(events)
/// try recorder.streamEnded()
/// ```
///
/// Not thread-safe: call from one thread (or under one lock).
public final class ClipRecorder {
    /// What to record and keep.
    public struct Options: Sendable {
        /// Seconds of stream kept before an event's first detection (0 to 300).
        public var preRollSeconds = 5.0
        /// Seconds kept after an event ends (0 to 300).
        public var postRollSeconds = 5.0
        /// Seconds of packets the ring buffer keeps (at least the pre-roll; nil: pre-roll + 10,
        /// so that an event announced up to 10 s after its first detection still gets its
        /// pre-roll).
        public var bufferSeconds: Double?
        /// Bytes the ring buffer may hold (1 MiB to 4 GiB).
        public var bufferBytes = 64 << 20
        /// Whether to record everything, in segments.
        public var continuous = false
        /// Length of a continuous segment in seconds (1 to 3600); a segment ends at the first
        /// keyframe after it.
        public var segmentSeconds = 60.0
        /// What the folder keeps; nil keeps everything.
        public var retention: RetentionPolicy?
        public init() {}

        /// Throws for a value out of its range, naming it.
        public func validate() throws {
            func inRange(_ v: Double, _ name: String, _ lo: Double, _ hi: Double) throws {
                guard v.isFinite, v >= lo, v <= hi else {
                    throw MediaError(.invalidArgument, "record", "\(name) must be a number from \(lo) to \(hi), not \(v)")
                }
            }
            try inRange(preRollSeconds, "pre_roll_seconds", 0, 300)
            try inRange(postRollSeconds, "post_roll_seconds", 0, 300)
            try inRange(segmentSeconds, "segment_seconds", 1, 3600)
            if let b = bufferSeconds { try inRange(b, "buffer_seconds", preRollSeconds, 3600) }
            guard bufferBytes >= 1 << 20, bufferBytes <= 4 << 30 else {
                throw MediaError(.invalidArgument, "record", "buffer_bytes must be from 1 MiB to 4 GiB, not \(bufferBytes)")
            }
        }
    }

    /// A file being written.
    private final class OpenFile {
        let writer: PacketFileWriter
        /// Stream time (seconds) after which the file ends; nil while its event is open.
        var stopAfter: Double?
        init(_ writer: PacketFileWriter) { self.writer = writer }
    }

    /// The folder files go to.
    public let folder: String
    public let options: Options
    private var stream: EncodedStreamInfo
    private var ring: PacketRingBuffer
    private var clips: [String: OpenFile] = [:]
    private var segment: OpenFile?
    private var segmentStart = 0.0
    private var segmentCount = 0
    private let clock: @Sendable () -> Date
    /// The events whose clip is finished, with the clip's path.
    public private(set) var finishedClips: [String: String] = [:]
    /// Continuous segments finished, oldest first.
    public private(set) var finishedSegments: [String] = []
    /// Files the retention policy removed so far.
    public private(set) var removed: [String] = []

    /// A recorder writing `stream`'s packets into `folder` (made if missing); throws when the
    /// folder cannot be written or an option is out of range. `clock` stamps finished files
    /// and drives retention (a synthetic clock in tests).
    public init(
        folder: String, stream: EncodedStreamInfo, options: Options = Options(), clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try options.validate()
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw MediaError(.cannotWrite, folder, "cannot make the recordings folder: \(error.localizedDescription)")
            }
        } else if !isDir.boolValue {
            throw MediaError(.cannotWrite, folder, "is a file, not a folder for recordings")
        }
        guard access(folder, W_OK | X_OK) == 0 else { throw MediaError(.cannotWrite, folder, "the recordings folder is not writable") }
        self.folder = folder
        self.options = options
        self.stream = stream
        self.clock = clock
        ring = PacketRingBuffer(maxSeconds: options.bufferSeconds ?? options.preRollSeconds + 10, maxBytes: options.bufferBytes)
    }

    /// The ids of the events whose clip is being written.
    public var openEventIDs: Set<String> { Set(clips.keys) }

    /// The file name of `eventID`'s files (a `/` or a leading `.` would leave the folder or hide
    /// the file), without extension.
    public static func fileStem(for eventID: String) -> String {
        var s = eventID.replacingOccurrences(of: "/", with: "_")
        if s.hasPrefix(".") { s = "_" + s.dropFirst() }
        return s.isEmpty ? "_" : s
    }

    /// Takes the next packet read: buffers it, appends it to every open file and ends the files
    /// whose stop time it passed. A file that fails is removed and its error thrown after the
    /// others got the packet.
    public func append(_ packet: EncodedPacket) throws {
        ring.append(packet)
        var firstError: Error?
        for (id, file) in clips {
            if let stop = file.stopAfter, packet.decodeSeconds > stop {
                do { try close(id, file) } catch { firstError = firstError ?? error }
                continue
            }
            do { try write(packet, to: file) } catch {
                file.writer.discard()
                clips[id] = nil
                firstError = firstError ?? error
            }
        }
        if options.continuous {
            do { try record(packet) } catch { firstError = firstError ?? error }
        }
        if packet.isKeyframe, options.retention != nil {
            do { try enforceRetention() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    /// Takes the events of the graph: `new` (or the first message of an event not seen before)
    /// opens its clip with the pre-roll from the ring buffer, `end` sets where it stops.
    public func handle(_ events: [ObjectEvent]) throws {
        for event in events {
            let id = event.after.id
            if clips[id] == nil && finishedClips[id] == nil {
                let path = (folder as NSString).appendingPathComponent(Self.fileStem(for: id) + ".mp4")
                let file = OpenFile(try PacketFileWriter(path: path, info: stream))
                clips[id] = file
                do {
                    for p in ring.packets(fromKeyframeAtOrBefore: event.after.startTime - options.preRollSeconds) {
                        try write(p, to: file)
                    }
                } catch {
                    file.writer.discard()
                    clips[id] = nil
                    throw error
                }
            }
            if event.type == .end, let file = clips[id] {
                file.stopAfter = (event.after.endTime ?? event.after.frameTime) + options.postRollSeconds
            }
        }
    }

    /// Whether `eventID` has a clip, finished or being written.
    public func hasClip(_ eventID: String) -> Bool { clips[eventID] != nil || finishedClips[eventID] != nil }

    /// Closes every open file at the last packet read (the camera disconnected, the input
    /// ended, or the program stops) and forgets the buffer; returns the ids of the events
    /// whose clip it closed. With `next`, packets that follow come from a new stream (a
    /// reconnect) with these codec parameters.
    @discardableResult
    public func streamEnded(next: EncodedStreamInfo? = nil) throws -> [String] {
        var firstError: Error?
        let ids = clips.keys.sorted()
        for id in ids {
            do { try close(id, clips[id]!) } catch { firstError = firstError ?? error }
        }
        if let s = segment {
            segment = nil
            do { try finishSegment(s) } catch { firstError = firstError ?? error }
        }
        ring.removeAll()
        if let next { stream = next }
        if options.retention != nil {
            do { try enforceRetention() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
        return ids
    }

    /// Runs the retention policy now (it also runs at each keyframe and after each file).
    public func enforceRetention() throws {
        guard let policy = options.retention else { return }
        let stems = clips.keys.map(Self.fileStem(for:))
        let gone = try policy.enforce(in: folder, now: clock()) { name in
            stems.contains { name == $0 + ".mp4" || name.hasPrefix($0 + ".") || name.hasPrefix($0 + "-") }
        }
        removed += gone
    }

    private func write(_ packet: EncodedPacket, to file: OpenFile) throws {
        if file.writer.packetCount == 0 && !packet.isKeyframe { return }  // a file starts at a keyframe
        try file.writer.write(packet)
    }

    private func close(_ id: String, _ file: OpenFile) throws {
        clips[id] = nil
        if file.writer.packetCount == 0 {
            file.writer.discard()  // no keyframe arrived while it was open: no clip
            return
        }
        try file.writer.finish()
        stamp(file.writer.path)
        finishedClips[id] = file.writer.path
    }

    private func record(_ packet: EncodedPacket) throws {
        if let s = segment, packet.isKeyframe, packet.seconds - segmentStart >= options.segmentSeconds {
            segment = nil
            try finishSegment(s)
        }
        if segment == nil {
            guard packet.isKeyframe else { return }
            segmentCount += 1
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyyMMdd-HHmmss"
            let name = "segment-\(f.string(from: clock()))-\(segmentCount).mp4"
            segment = OpenFile(try PacketFileWriter(path: (folder as NSString).appendingPathComponent(name), info: stream))
            segmentStart = packet.seconds
        }
        guard let s = segment else { return }
        do { try s.writer.write(packet) } catch {
            s.writer.discard()
            segment = nil
            throw error
        }
    }

    private func finishSegment(_ s: OpenFile) throws {
        try s.writer.finish()
        stamp(s.writer.path)
        finishedSegments.append(s.writer.path)
    }

    /// Sets a finished file's time to the recorder's clock, which retention reads.
    private func stamp(_ path: String) {
        try? FileManager.default.setAttributes([.modificationDate: clock()], ofItemAtPath: path)
    }

    deinit {
        for (_, f) in clips { f.writer.discard() }
        segment?.writer.discard()
    }
}
