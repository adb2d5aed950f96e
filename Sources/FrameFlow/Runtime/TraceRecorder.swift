import Foundation

/// Records one event per calculator call, for a Chrome trace (open it in Perfetto).
final class TraceRecorder {
    struct Event {
        var node: Int
        var start: UInt64
        var end: UInt64
        var timestamp: Timestamp
    }
    private(set) var events: [Event] = []
    let origin = monotonicNanoseconds()
    let limit: Int

    init(limit: Int = 1_000_000) { self.limit = limit }

    func record(node: Int, start: UInt64, end: UInt64, timestamp: Timestamp) {
        guard events.count < limit else { return }
        events.append(Event(node: node, start: start, end: end, timestamp: timestamp))
    }

    /// Chrome trace JSON: one track (thread id) per node, named after it.
    func json(nodeNames: [String]) -> Data {
        var out: [[String: Any]] = []
        for (i, name) in nodeNames.enumerated() {
            out.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": i, "args": ["name": name]])
        }
        for e in events {
            let ts = Double(e.start &- origin) / 1000
            let dur = Double(e.end &- e.start) / 1000
            var args: [String: Any] = [:]
            if e.timestamp.isRangeValue { args["timestamp_us"] = e.timestamp.microseconds }
            out.append([
                "name": nodeNames[e.node], "ph": "X", "pid": 1, "tid": e.node, "ts": ts, "dur": dur, "args": args,
            ])
        }
        return (try? JSONSerialization.data(withJSONObject: ["traceEvents": out], options: [.sortedKeys])) ?? Data()
    }
}
