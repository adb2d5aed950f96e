import FrameFlow
import FrameFlowMedia

/// An output of a camera's events stream that records clips or snapshots: each
/// `[ObjectEvent]` (or `ObjectEvent`) packet reaches `inner` with `has_clip` and `has_snapshot`
/// set by the camera's `CameraRecording`; other packets pass unchanged.
final class FlaggedEventsSink: PacketSink {
    private let inner: any PacketSink
    private let recording: CameraRecording

    init(_ inner: any PacketSink, recording: CameraRecording) {
        self.inner = inner
        self.recording = recording
    }

    func write(_ packet: Packet) throws {
        switch packet.payload {
        case let events as [ObjectEvent]: try inner.write(Packet(recording.flagged(events), at: packet.timestamp))
        case let event as ObjectEvent: try inner.write(Packet(recording.flagged([event])[0], at: packet.timestamp))
        default: try inner.write(packet)
        }
    }

    func prepare() throws { try inner.prepare() }
    func finish() throws { try inner.finish() }
    func discard() { inner.discard() }
}
