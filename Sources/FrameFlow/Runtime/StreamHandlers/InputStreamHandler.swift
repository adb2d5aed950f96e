/// Decides when a node's inputs make a step, as MediaPipe's input stream handlers do: which
/// timestamp the node can process now, which inputs the step takes, whether a moved bound
/// alone runs it, and which queued packets the policy drops. One type per policy;
/// `InputPolicy` in a graph file or contract names one.
///
/// Called by the scheduler with the graph's lock held, for every examination of a node: keep
/// it allocation-free.
protocol InputStreamHandler: Sendable {
    /// The timestamp the node can process now, or nil when it must wait.
    func readyTimestamp(_ node: NodeRuntime) -> Timestamp?
    /// The inputs a step at `timestamp` takes packets from (the others arrive empty); nil
    /// for all of them.
    func inputsToTake(at timestamp: Timestamp, _ node: NodeRuntime) -> [Int]?
    /// Whether the node runs with no packet because an input's bound moved.
    func runsOnBoundChange(_ node: NodeRuntime) -> Bool
    /// The input timestamp of such a step.
    func boundChangeTimestamp(_ node: NodeRuntime) -> Timestamp
    /// Whether steps of one node may run at once (each timestamp is settled on its own).
    var allowsConcurrentSteps: Bool { get }
    /// Whether `trim` can drop anything (checked before calling it for each packet).
    var trimsQueues: Bool { get }
    /// Drops the queued packets the policy does not keep, counting them in `drops`.
    func trim(_ node: NodeRuntime)
}

extension InputStreamHandler {
    func inputsToTake(at timestamp: Timestamp, _ node: NodeRuntime) -> [Int]? { nil }
    func runsOnBoundChange(_ node: NodeRuntime) -> Bool { false }
    func boundChangeTimestamp(_ node: NodeRuntime) -> Timestamp { .unset }
    var allowsConcurrentSteps: Bool { false }
    var trimsQueues: Bool { false }
    func trim(_ node: NodeRuntime) {}
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

// The handlers read the node's queues in place (through the node, not a copy of its array:
// passing the array retained and released its buffer on every examination).
extension NodeRuntime {
    /// The smallest timestamp at the head of any queue, nil when every queue is empty.
    var earliestHead: Timestamp? {
        var head = Timestamp.done
        var any = false
        for i in inputs.indices {
            if let t = inputs[i].packets.firstTimestamp {
                any = true
                if t < head { head = t }
            }
        }
        return any ? head : nil
    }

    /// The default policy's ready timestamp: the earliest head, once every other forward input
    /// has a packet there or a bound past it. One pass: the earliest head against the lowest
    /// bound of the empty forward inputs.
    var synchronizedTimestamp: Timestamp? {
        var head = Timestamp.done
        var any = false
        var emptyBound = Timestamp.done
        for i in inputs.indices {
            if let t = inputs[i].packets.firstTimestamp {
                any = true
                if t < head { head = t }
            } else if !inputs[i].isBackEdge, inputs[i].bound < emptyBound {
                emptyBound = inputs[i].bound
            }
        }
        return any && emptyBound > head ? head : nil
    }

    /// The same over the queues at `positions` only (a sync set).
    func synchronizedTimestamp(_ positions: [Int]) -> Timestamp? {
        var head = Timestamp.done
        var any = false
        for i in positions {
            if let t = inputs[i].packets.firstTimestamp {
                any = true
                if t < head { head = t }
            }
        }
        guard any else { return nil }
        for i in positions where inputs[i].packets.isEmpty && !inputs[i].isBackEdge {
            if inputs[i].bound <= head { return nil }
        }
        return head
    }

    /// The largest timestamp every forward input has settled (its bound minus one).
    var settledTimestamp: Timestamp {
        var bound = Timestamp.done
        for i in inputs.indices where !inputs[i].isBackEdge { bound = Swift.min(bound, inputs[i].frontier) }
        return bound.isRangeValue && bound > .min ? Timestamp(bound.microseconds - 1) : .unset
    }
}
