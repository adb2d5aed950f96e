/// Decides when a node's inputs make a step, as MediaPipe's input stream handlers do: which
/// timestamp the node can process now, which inputs the step takes, whether a moved bound
/// alone runs it, and which queued packets the policy drops. One type per policy;
/// `InputPolicy` in a graph file or contract names one.
///
/// Called by the scheduler with the graph's lock held, for every examination of a node: keep
/// it allocation-free.
protocol InputStreamHandler: Sendable {
    /// The timestamp the node can process now, or nil when it must wait.
    func readyTimestamp(_ inputs: [InputQueue]) -> Timestamp?
    /// The inputs a step at `timestamp` takes packets from (the others arrive empty); nil
    /// for all of them.
    func inputsToTake(at timestamp: Timestamp, _ inputs: [InputQueue]) -> [Int]?
    /// Whether the node runs with no packet because an input's bound moved.
    func runsOnBoundChange(_ inputs: [InputQueue]) -> Bool
    /// The input timestamp of such a step.
    func boundChangeTimestamp(_ inputs: [InputQueue]) -> Timestamp
    /// Whether steps of one node may run at once (each timestamp is settled on its own).
    var allowsConcurrentSteps: Bool { get }
    /// Whether `trim` can drop anything (checked before calling it for each packet).
    var trimsQueues: Bool { get }
    /// Drops the queued packets the policy does not keep, counting them in `drops`.
    func trim(_ inputs: inout [InputQueue])
}

extension InputStreamHandler {
    func inputsToTake(at timestamp: Timestamp, _ inputs: [InputQueue]) -> [Int]? { nil }
    func runsOnBoundChange(_ inputs: [InputQueue]) -> Bool { false }
    func boundChangeTimestamp(_ inputs: [InputQueue]) -> Timestamp { .unset }
    var allowsConcurrentSteps: Bool { false }
    var trimsQueues: Bool { false }
    func trim(_ inputs: inout [InputQueue]) {}
}

extension InputPolicy {
    /// The handler that implements this policy for a node with inputs `ports`.
    ///
    /// - Parameter processesTimestampBounds: the calculator asks to run when its inputs'
    ///   bounds settle a timestamp without packets (MediaPipe's `SetProcessTimestampBounds`).
    func handler(ports: [StreamRef], processesTimestampBounds: Bool) throws -> any InputStreamHandler {
        switch self {
        case .default: return DefaultInputStreamHandler(processesTimestampBounds: processesTimestampBounds)
        case .immediate: return ImmediateInputStreamHandler()
        case .syncSets(let sets): return try SyncSetInputStreamHandler(sets: sets, ports: ports)
        case .fixedSize(let trigger, let target, let fixedMin):
            return FixedSizeInputStreamHandler(triggerQueueSize: trigger, targetQueueSize: target, fixedMinSize: fixedMin)
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

    /// The default policy's ready timestamp over the queues at `positions` (all when nil):
    /// the earliest head, once every other forward input has a packet there or a bound past it.
    func synchronizedTimestamp(_ positions: [Int]? = nil) -> Timestamp? {
        var head: Timestamp?
        func visit(_ i: Int) {
            if let t = self[i].packets.firstTimestamp, head.map({ t < $0 }) ?? true { head = t }
        }
        if let positions { for i in positions { visit(i) } } else { for i in indices { visit(i) } }
        guard let head else { return nil }
        func blocks(_ i: Int) -> Bool { self[i].packets.isEmpty && !self[i].isBackEdge && self[i].bound <= head }
        if let positions {
            for i in positions where blocks(i) { return nil }
        } else {
            for i in indices where blocks(i) { return nil }
        }
        return head
    }

    /// The largest timestamp every forward input has settled (its bound minus one).
    var settledTimestamp: Timestamp {
        var bound = Timestamp.done
        for i in indices where !self[i].isBackEdge { bound = Swift.min(bound, self[i].frontier) }
        return bound.isRangeValue && bound > .min ? Timestamp(bound.microseconds - 1) : .unset
    }
}
