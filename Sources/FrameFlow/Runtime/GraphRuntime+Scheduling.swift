/// The scheduler's bookkeeping, all with the lock held: which nodes can run, delivering
/// packets and bounds to consumers, the in-flight frontier, failure and completion.
extension GraphRuntime {

    /// Whether a consumer queue with the block policy is full: the node must wait.
    /// `fullBlockingOutputs` counts them as queues fill and drain, so this is O(1).
    func isThrottled(_ node: NodeRuntime) -> Bool {
        !node.throttleOverride && node.fullBlockingOutputs > 0
    }

    func canRun(_ node: NodeRuntime) -> Bool {
        if node.wantsClose { return true }
        // After a failure, output sinks still deliver what reached them before it.
        if aborting { return node.isSink && node.readyTimestamp() != nil }
        if node.isSource { return !node.sourceDone && !isThrottled(node) }
        guard node.readyTimestamp() != nil || node.hasBoundChange else { return false }
        return !isThrottled(node)
    }

    /// Re-examines a node: close it, queue it, or advance its output bounds.
    func examine(_ node: NodeRuntime) {
        if node.status == .running && node.isConcurrent {
            // Steps in flight: queue one more timestamp if there is room (never a close, an
            // options change or a throttled node: those wait until the steps are done).
            if node.steps.count < node.maxConcurrency && !aborting && !node.wantsClose && !node.hasPendingOptions
                && !node.optionsInFlight && node.readyTimestamp() != nil && !isThrottled(node)
            {
                node.status = .queued
                ready.append(node)
            }
            return
        }
        guard node.status == .idle, node.opened else { return }
        if !node.wantsClose && node.inputsFinished && (aborting || node.readyTimestamp() == nil) {
            node.wantsClose = true
        }
        if canRun(node) {
            node.status = .queued
            ready.append(node)
            return
        }
        // Not runnable now: a node with a timestamp offset passes its input bound on, so
        // nothing downstream waits for a packet this node will not send.
        if let offset = node.contract.timestampOffset, !node.isSource, !aborting {
            let f = node.inputFrontier
            guard f.isRangeValue else { return }
            let b = Timestamp(f.microseconds &+ offset)
            for (p, s) in node.outputStreams.enumerated() where b > node.outputBounds[p] {
                node.outputBounds[p] = b
                advance(stream: s, to: b)
            }
        }
    }

    func drainDirty() {
        while let n = dirty.popLast() {
            n.isDirty = false
            examine(n)
        }
    }

    func markDirty(_ n: NodeRuntime) {
        guard !n.isDirty else { return }
        n.isDirty = true
        dirty.append(n)
    }

    /// Counts a packet at `ts` on stream `s` and moves its bound past it.
    @inline(__always)
    func recordPacket(stream s: Int, at ts: Timestamp) {
        streams[s].lastTimestamp = ts
        streams[s].bound = ts.next
        streams[s].packets += 1
    }

    /// Delivers a packet to every consumer of stream `s`.
    func deliver(stream s: Int, _ packet: Packet) {
        recordPacket(stream: s, at: packet.timestamp)
        for k in streams[s].consumers.indices {
            let c = streams[s].consumers[k].node, qi = streams[s].consumers[k].input
            guard c.status != .closed else { continue }
            let wasFull = c.inputs[qi].isFull
            c.inputs[qi].push(packet)
            // The producer is read only here, when a queue fills: a local copy of it was a
            // retain and a release per packet.
            if !wasFull && c.inputs[qi].policy == .block && c.inputs[qi].isFull, let producer = streams[s].producer {
                producer.fullBlockingOutputs += 1
            }
            if c.trimsQueues { trimQueues(of: c) }
            markDirty(c)
        }
    }

    func advance(stream s: Int, to b: Timestamp) {
        guard b > streams[s].bound else { return }
        streams[s].bound = b
        for k in streams[s].consumers.indices {
            let c = streams[s].consumers[k].node, qi = streams[s].consumers[k].input
            guard c.status != .closed else { continue }
            if b > c.inputs[qi].bound {
                c.inputs[qi].bound = b
                c.inputs[qi].boundMoved = true
                markDirty(c)
            }
        }
    }

    func updateFrontier() {
        guard maxFramesInFlight > 0, !inFlight.isEmpty else { return }
        var f = Timestamp.done
        for n in frontierNodes where n.status != .closed {
            f = Swift.min(f, n.inputFrontier)
            if n.isConcurrent {
                for step in n.steps where step.timestamp.isRangeValue { f = Swift.min(f, step.timestamp) }
            } else if n.status == .running, n.context.inputTimestamp.isRangeValue {
                f = Swift.min(f, n.context.inputTimestamp)
            }
        }
        var k = 0
        while k < inFlight.count && inFlight[k] < f { k += 1 }
        if k > 0 { inFlight.removeFirst(k) }
    }

    func checkDone() {
        if closedCount == nodes.count && !done {
            done = true
            inFlight.removeAll()
            lock.broadcastProgress()
            releasePoolLocked()
        }
    }

    func fail(_ error: GraphError) {
        if failure == nil { failure = error }
        abort(keepingOutputs: true)
    }

    /// Stops the run: drops queued packets (except, after a failure, those that already
    /// reached an output), closes every node that is open.
    func abort(keepingOutputs: Bool) {
        guard !aborting else { return }
        aborting = true
        for n in nodes { n.fullBlockingOutputs = 0 }
        for n in nodes {
            for i in n.inputs.indices {
                if !(keepingOutputs && n.isSink) { n.inputs[i].packets.removeAll() }
                n.inputs[i].bound = .done
            }
            if n.isSource { n.sourceDone = true }
            if n.status == .closed { continue }
            if !n.opened {
                n.status = .closed
                closedCount += 1
                continue
            }
            markDirty(n)
        }
        inFlight.removeAll()
        drainDirty()
        lock.broadcastProgress()
        wakeWorkers()
        checkDone()
    }

    /// Whether the ready nodes other than the one this worker takes next (`takingOne`; none
    /// when it runs a chained step) hold enough work (or unmeasured work) to pay for waking
    /// a second worker.
    func worthAnotherWorker(takingOne: Bool = true) -> Bool {
        var best = -1
        if takingOne {
            best = 0
            for i in 1..<ready.count where ready[i].rank > ready[best].rank { best = i }
        }
        var work: UInt64 = 0
        for (i, n) in ready.enumerated() where i != best {
            if n.calls < 9 { return true }
            work &+= n.averageNanos
            if work > 20_000 { return true }
        }
        return false
    }

    /// Steps shorter than this are left to the worker that runs the graph's other short steps:
    /// handing them to a second worker moves the graph's state between cores on every step,
    /// which costs more than such a step (a chain of pass-through nodes ran slower on two
    /// workers than on one).
    static let shortWork: UInt64 = 20_000
    /// What an unmeasured step counts as: long.
    static let unmeasuredStep: UInt64 = 1_000_000

    /// Whether a worker should leave the ready nodes to the one running steps now: the steps
    /// in flight and the ready nodes are all measured and short. Never while aborting.
    func leavesShortWork() -> Bool {
        guard !aborting, runningEstimate < Self.shortWork else { return false }
        var work: UInt64 = 0
        for n in ready {
            if n.calls < 9 || n.wantsClose || n.isConcurrent { return false }
            work &+= n.averageNanos
            if work >= Self.shortWork { return false }
        }
        return true
    }

    /// Nothing runs, yet a node waits on a full queue: let it overfill the queue once, as
    /// MediaPipe grows a queue to resolve such a deadlock.
    func relieveDeadlock() {
        for n in nodes where n.status == .idle && n.opened {
            if !n.throttleOverride && (n.isSource ? !n.sourceDone : n.readyTimestamp() != nil) && isThrottled(n) {
                n.throttleOverride = true
                examine(n)
                n.throttleOverride = false
                if !ready.isEmpty { return }
            }
        }
    }

    /// Lets the node's handler drop packets it does not keep; a blocking queue it empties
    /// below capacity releases its producer.
    func trimQueues(of node: NodeRuntime) {
        let full = node.inputs.map(\.isFull)
        node.handler.trim(node)
        for i in node.inputs.indices where full[i] && !node.inputs[i].isFull {
            guard let producer = streams[node.inputs[i].stream].producer else { continue }
            if node.inputs[i].policy == .block { producer.fullBlockingOutputs -= 1 }
            markDirty(producer)
        }
    }
}
