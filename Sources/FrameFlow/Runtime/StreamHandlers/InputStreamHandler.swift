/// Decides when a node's inputs make a step, as MediaPipe's input stream handlers do: which
/// timestamp the node can process now, and whether a moved bound alone runs it. One type per
/// policy; `InputPolicy` in a graph file or contract names one.
///
/// Called by the scheduler with the graph's lock held, for every examination of a node: keep
/// it allocation-free.
protocol InputStreamHandler: Sendable {
    /// The timestamp the node can process now, or nil when it must wait.
    func readyTimestamp(_ inputs: [InputQueue]) -> Timestamp?
    /// Whether the node runs with no packet because an input's bound moved.
    func runsOnBoundChange(_ inputs: [InputQueue]) -> Bool
    /// Whether steps of one node may run at once (each timestamp is settled on its own).
    var allowsConcurrentSteps: Bool { get }
}

extension InputPolicy {
    /// The handler that implements this policy.
    var handler: any InputStreamHandler {
        switch self {
        case .default: DefaultInputStreamHandler()
        case .immediate: ImmediateInputStreamHandler()
        }
    }
}

extension [InputQueue] {
    /// The smallest timestamp at the head of any queue, nil when every queue is empty.
    var earliestHead: Timestamp? {
        var earliest: Timestamp?
        for i in indices {
            if let t = self[i].packets.firstTimestamp, earliest.map({ t < $0 }) ?? true { earliest = t }
        }
        return earliest
    }
}
