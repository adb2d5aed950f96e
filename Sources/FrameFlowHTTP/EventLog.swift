import FrameFlow
import Synchronization

/// The last `capacity` camera events of a fleet, oldest first, for `GET /api/events`: filled
/// by `FleetRunner.Options.onEvents` from the cameras' `events` streams.
public final class EventLog: Sendable {
    /// How many events it keeps (older ones are forgotten).
    public let capacity: Int
    private let ring = Mutex<(events: [ObjectEvent], next: Int)>(([], 0))

    /// An empty log keeping at most `capacity` (1 to 1000000) events.
    public init(capacity: Int = 1000) {
        self.capacity = min(max(1, capacity), 1_000_000)
    }

    /// Adds `events`, forgetting the oldest beyond `capacity`.
    public func append(_ events: [ObjectEvent]) {
        ring.withLock { r in
            for e in events {
                if r.events.count < capacity {
                    r.events.append(e)
                } else {
                    r.events[r.next] = e
                    r.next = (r.next + 1) % capacity
                }
            }
        }
    }

    /// The newest `limit` events (newest first) of `camera` and `label` (nil: any).
    public func recent(camera: String? = nil, label: String? = nil, limit: Int = 100) -> [ObjectEvent] {
        let all = ring.withLock { r in Array(r.events[r.next...] + r.events[..<r.next]) }
        var out: [ObjectEvent] = []
        for e in all.reversed() where out.count < limit {
            if let camera, e.after.camera != camera { continue }
            if let label, e.after.label != label { continue }
            out.append(e)
        }
        return out
    }
}
