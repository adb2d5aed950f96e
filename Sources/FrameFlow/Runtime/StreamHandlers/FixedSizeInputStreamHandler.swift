/// MediaPipe's `FixedSizeInputStreamHandler`: the default policy, but once an input queue
/// reaches `triggerQueueSize` packets it is cut to its newest `targetQueueSize`, and every
/// input drops its packets older than the oldest kept one, so a slow node works on recent
/// timestamps. With `fixedMinSize`, queues are cut only once all of them reach the trigger,
/// to the oldest timestamp among each queue's newest `targetQueueSize`.
///
/// `@unchecked Sendable`: `keptTimestamp` is read and written with the graph's lock held.
final class FixedSizeInputStreamHandler: InputStreamHandler, @unchecked Sendable {
    let triggerQueueSize: Int
    let targetQueueSize: Int
    let fixedMinSize: Bool
    /// Packets before this are dropped from every input; it only grows.
    private var keptTimestamp = Timestamp.unset

    init(triggerQueueSize: Int, targetQueueSize: Int, fixedMinSize: Bool) {
        self.triggerQueueSize = triggerQueueSize
        self.targetQueueSize = targetQueueSize
        self.fixedMinSize = fixedMinSize
    }

    func readyTimestamp(_ node: NodeRuntime) -> Timestamp? { node.synchronizedTimestamp }

    var trimsQueues: Bool { true }

    func trim(_ node: NodeRuntime) {
        if fixedMinSize {
            var cut = Timestamp.done
            for q in node.inputs {
                guard q.packets.count >= triggerQueueSize else { return }
                cut = Swift.min(cut, q.packets.timestamp(fromNewest: targetQueueSize))
            }
            drop(node, before: cut)
        } else {
            for q in node.inputs where q.packets.count >= triggerQueueSize {
                keptTimestamp = Swift.max(keptTimestamp, q.packets.timestamp(fromNewest: targetQueueSize))
            }
            drop(node, before: keptTimestamp)
        }
    }

    private func drop(_ node: NodeRuntime, before t: Timestamp) {
        for i in node.inputs.indices {
            while let h = node.inputs[i].packets.firstTimestamp, h < t {
                node.inputs[i].packets.removeFirst()
                node.inputs[i].drops += 1
            }
        }
    }
}
