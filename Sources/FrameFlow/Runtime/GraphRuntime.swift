/// One run of a graph: nodes, streams, the ready list and the worker pool.
///
/// Concurrency: every scheduling field (queues, bounds, statuses, counters) is guarded by
/// `lock`. A node's calculator and context are touched only by the worker that moved the
/// node to `.running`, which makes execution per node serial (a node with `concurrency` > 1
/// runs each step with a context of its own, and applies the steps' outputs in order).
/// Hence `@unchecked Sendable`, and `@exclusivity(unchecked)` on the fields: the lock
/// already serializes them.
final class GraphRuntime: WorkSource, @unchecked Sendable {
    let lock: ConditionLock
    let pool: WorkerPool
    @exclusivity(unchecked) var nodes: [NodeRuntime] = []
    @exclusivity(unchecked) var streams: [StreamRuntime] = []
    @exclusivity(unchecked) var streamIndex: [String: Int] = [:]
    @exclusivity(unchecked) var graphInputs: Set<Int> = []
    @exclusivity(unchecked) var closedInputs: Set<Int> = []
    @exclusivity(unchecked) var ready: [NodeRuntime] = []
    @exclusivity(unchecked) var running = 0
    @exclusivity(unchecked) var aborting = false
    @exclusivity(unchecked) var done = false
    @exclusivity(unchecked) var failure: GraphError?
    @exclusivity(unchecked) var closedCount = 0
    /// Threads waiting in `send` (queue full), `waitUntilIdle`, `waitUntilDone`.
    @exclusivity(unchecked) var sendWaiters = 0
    @exclusivity(unchecked) var idleWaiters = 0
    @exclusivity(unchecked) var doneWaiters = 0
    @exclusivity(unchecked) var dirty: [NodeRuntime] = []
    @exclusivity(unchecked) var inFlight: [Timestamp] = []
    @exclusivity(unchecked) var maxFramesInFlight = 0
    @exclusivity(unchecked) var frontierNodes: [NodeRuntime] = []
    @exclusivity(unchecked) var rejectedAtInput = 0
    @exclusivity(unchecked) var sentPackets = 0
    @exclusivity(unchecked) var sidePackets: [String: Packet] = [:]
    @exclusivity(unchecked) var trace: TraceRecorder?

    init(threads: Int) {
        let lock = ConditionLock()
        self.lock = lock
        pool = WorkerPool(threads: threads, name: "frameflow.graph", lock: lock)
        // The workers already run and read `source` under the lock (ThreadSanitizer caught
        // the unlocked store).
        lock.withLock { pool.source = self }
    }

    /// Wakes as many sleeping workers as there are ready nodes; lock held.
    private func wakeWorkers() {
        guard !ready.isEmpty else { return }
        pool.workHint.add(1, ordering: .releasing)
        for _ in 0..<Swift.min(ready.count, pool.sleeping) { lock.signal() }
    }

    deinit { pool.shutdown() }

    // MARK: Scheduling (all under lock)

    /// Whether a consumer queue with the block policy is full: the node must wait.
    /// `fullBlockingOutputs` counts them as queues fill and drain, so this is O(1).
    private func isThrottled(_ node: NodeRuntime) -> Bool {
        !node.throttleOverride && node.fullBlockingOutputs > 0
    }

    private func canRun(_ node: NodeRuntime) -> Bool {
        if node.wantsClose { return true }
        // After a failure, output sinks still deliver what reached them before it.
        if aborting { return node.isSink && node.readyTimestamp() != nil }
        if node.isSource { return !node.sourceDone && !isThrottled(node) }
        guard node.readyTimestamp() != nil || node.hasBoundChange else { return false }
        return !isThrottled(node)
    }

    /// Re-examines a node: close it, queue it, or advance its output bounds.
    private func examine(_ node: NodeRuntime) {
        if node.status == .running && node.isConcurrent {
            // Steps in flight: queue one more timestamp if there is room (never a close, an
            // options change or a throttled node: those wait until the steps are done).
            if node.steps.count < node.maxConcurrency && !aborting && !node.wantsClose && node.pendingOptions == nil
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

    private func drainDirty() {
        while let n = dirty.popLast() {
            n.isDirty = false
            examine(n)
        }
    }

    private func markDirty(_ n: NodeRuntime) {
        guard !n.isDirty else { return }
        n.isDirty = true
        dirty.append(n)
    }

    /// Delivers a packet to every consumer of stream `s`.
    private func deliver(stream s: Int, _ packet: Packet) {
        streams[s].lastTimestamp = packet.timestamp
        streams[s].bound = packet.timestamp.next
        streams[s].packets += 1
        let producer = streams[s].producer
        for k in streams[s].consumers.indices {
            let c = streams[s].consumers[k].node, qi = streams[s].consumers[k].input
            guard c.status != .closed else { continue }
            let wasFull = c.inputs[qi].isFull
            c.inputs[qi].push(packet)
            if !wasFull && c.inputs[qi].policy == .block && c.inputs[qi].isFull, let producer {
                producer.fullBlockingOutputs += 1
            }
            markDirty(c)
        }
    }

    private func advance(stream s: Int, to b: Timestamp) {
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

    private func updateFrontier() {
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

    private func checkDone() {
        if closedCount == nodes.count && !done {
            done = true
            inFlight.removeAll()
            lock.broadcastOther()
            pool.shutdownLocked()
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
        lock.broadcastOther()
        wakeWorkers()
        checkDone()
    }

    // MARK: Running nodes

    private enum Step { case process(Timestamp), bounds, source, close }

    /// Takes the most downstream ready node and runs one step of it. Called by a worker
    /// with the lock held; returns with it held.
    func runOneLocked() -> Bool {
        guard !ready.isEmpty else { return false }
        var best = 0
        for i in 1..<ready.count where ready[i].rank > ready[best].rank { best = i }
        let node = ready.remove(at: best)
        node.status = .running
        if node.runningSteps > 0 && (node.pendingOptions != nil || aborting) {
            // Queued beside running steps, then options arrived or the run failed: options
            // are applied, and a close runs, only once the steps in flight are done (their
            // commit re-examines the node).
            return true
        }
        running += 1
        node.runningSteps += 1

        let step: Step
        // A concurrent node's process step gets a context of its own.
        let ctx = node.isConcurrent && !node.wantsClose ? node.takeContext() : node.context
        if node.wantsClose {
            step = .close
            ctx.inputTimestamp = .done
            for i in ctx.inputPackets.indices { ctx.inputPackets[i] = Packet(emptyAt: .done) }
        } else if node.isSource {
            step = .source
        } else if let ts = node.readyTimestamp() {
            step = .process(ts)
            ctx.inputTimestamp = ts
            for i in node.inputs.indices {
                if let h = node.inputs[i].packets.firstTimestamp, h == ts {
                    let wasFull = node.inputs[i].isFull
                    ctx.inputPackets[i] = node.inputs[i].packets.removeFirst()
                    // Only a full queue can have throttled its producer.
                    if wasFull && !node.inputs[i].isFull, let producer = streams[node.inputs[i].stream].producer {
                        if node.inputs[i].policy == .block { producer.fullBlockingOutputs -= 1 }
                        markDirty(producer)
                    }
                    // Senders blocked on this queue: wake them once it is half empty.
                    if sendWaiters > 0 && node.inputs[i].packets.count <= node.inputs[i].capacity / 2 { lock.broadcastOther() }
                } else {
                    ctx.inputPackets[i] = Packet(emptyAt: ts)
                }
            }
        } else if node.hasBoundChange {
            step = .bounds
            ctx.inputTimestamp = .unset
            for i in ctx.inputPackets.indices { ctx.inputPackets[i] = Packet(emptyAt: .unset) }
        } else {
            node.status = node.steps.isEmpty ? .idle : .running
            if node.isConcurrent { node.spareContexts.append(ctx) }
            running -= 1
            node.runningSteps -= 1
            markDirty(node)
            drainDirty()
            return true
        }
        for i in node.inputs.indices {
            ctx.inputBounds[i] = node.inputs[i].bound
            node.inputs[i].boundMoved = false
        }
        let options = node.pendingOptions
        node.pendingOptions = nil
        // Until this step commits, `examine` queues no step beside it (it runs alone:
        // options wait above for the steps in flight).
        if options != nil { node.optionsInFlight = true }
        if node.isConcurrent, case .process(let ts) = step {
            node.steps.append(ConcurrentStep(context: ctx, timestamp: ts))
            // Room for another timestamp: queue it now, for the next free worker.
            markDirty(node)
            drainDirty()
            if !ready.isEmpty { pool.hintWorkLocked() }
        }
        // Timing every step costs two clock reads; without a trace, every 8th step is timed
        // (decided under the lock: a concurrent node's other steps count `calls` as they end).
        let timed = trace != nil || node.calls & 7 == 0
        lock.unlock()

        let start = timed ? monotonicNanoseconds() : 0
        var thrown: (any Error)?
        do {
            if let options { try Self.apply(options, to: node.calculator) }
            switch step {
            case .process, .bounds, .source: try node.calculator.process(ctx)
            case .close: try node.calculator.close(ctx)
            }
        } catch {
            thrown = error
        }
        let end = timed ? monotonicNanoseconds() : 0
        lock.lock()
        commit(node, ctx, step: step, error: thrown, start: start, end: end, timed: timed)
        return true
    }

    static func apply(_ options: any CalculatorOptions, to calculator: any Calculator) throws {
        func open<C: Calculator>(_ c: C) throws {
            guard let o = options as? C.Options else {
                throw GraphError(.invalidOption, "options of type \(type(of: options)) given, \(C.name) takes \(C.Options.self)")
            }
            try c.update(options: o)
        }
        try open(calculator)
    }

    /// Applies a finished step's outputs; lock held. A concurrent node's step waits until
    /// the steps dispatched before it have been applied.
    private func commit(_ node: NodeRuntime, _ ctx: CalculatorContext, step: Step, error: (any Error)?, start: UInt64, end: UInt64, timed: Bool) {
        running -= 1
        node.runningSteps -= 1
        // A step that applied options ran alone: it is this one.
        if node.runningSteps == 0 { node.optionsInFlight = false }
        if node.isConcurrent, case .process = step {
            if let mine = node.steps.first(where: { $0.context === ctx }) {
                (mine.finished, mine.error, mine.start, mine.end, mine.timed) = (true, error, start, end, timed)
            }
            while let first = node.steps.first, first.finished {
                node.steps.removeFirst()
                apply(node, first.context, step: .process(first.timestamp), error: first.error, start: first.start, end: first.end, timed: first.timed)
                node.spareContexts.append(first.context)
            }
            if node.status == .running && node.steps.isEmpty { node.status = .idle }
            markDirty(node)
        } else {
            apply(node, ctx, step: step, error: error, start: start, end: end, timed: timed)
            if case .close = step {
                node.status = .closed
                closedCount += 1
                for (p, s) in node.outputStreams.enumerated() {
                    node.outputBounds[p] = .done
                    advance(stream: s, to: .done)
                }
            } else {
                node.status = .idle
                markDirty(node)
            }
        }
        drainDirty()
        if node.isSink || frontierNodes.isEmpty { updateFrontier() }
        if ready.isEmpty && running == 0 && !aborting { relieveDeadlock() }
        // This worker takes the next ready node itself; wake another only when the rest is
        // worth a wake-up (tiny steps run faster on one thread than on two contending ones).
        if ready.count > 1 && pool.sleeping > 0 && worthAnotherWorker() { pool.hintWorkLocked() }
        if ((idleWaiters > 0 || sendWaiters > 0) && ready.isEmpty && running == 0) || (sendWaiters > 0 && aborting) {
            lock.broadcastOther()
        }
        checkDone()
    }

    /// A step's statistics, error and outputs; lock held.
    private func apply(_ node: NodeRuntime, _ ctx: CalculatorContext, step: Step, error: (any Error)?, start: UInt64, end: UInt64, timed: Bool) {
        node.calls += 1
        if timed {
            let took = end &- start
            node.busyNanos &+= trace != nil ? took : took &* 8  // sampled: stands for 8 steps
            node.averageNanos = node.calls == 1 ? took : (node.averageNanos &* 3 &+ took) / 4
            trace?.record(node: node.index, start: start, end: end, timestamp: ctx.inputTimestamp)
        }

        if let error {
            let what: String
            switch step {
            case .process(let ts): what = "process at \(ts)"
            case .source, .bounds: what = "process"
            case .close: what = "close"
            }
            fail(GraphError(.calculatorFailed, "\(what) failed: \(error)", node: node.name, location: node.location, underlying: error))
        } else if !aborting {
            for (port, packet) in ctx.emitted {
                let s = node.outputStreams[port]
                let ts = packet.timestamp
                guard ts.isAllowedInStream else {
                    fail(GraphError(.invalidTimestamp, "output packet has timestamp \(ts), which no packet may carry", node: node.name, stream: streams[s].name))
                    break
                }
                guard ts >= node.outputBounds[port] else {
                    let last = streams[s].lastTimestamp
                    fail(GraphError(
                        .timestampOrder,
                        "output timestamps must increase: \(ts) after \(last == .unset ? "bound \(node.outputBounds[port])" : "\(last)")",
                        node: node.name, stream: streams[s].name))
                    break
                }
                node.outputBounds[port] = ts.next
                deliver(stream: s, packet)
            }
            if !aborting, case .process(let ts) = step, let offset = node.contract.timestampOffset {
                let b = Timestamp(ts.microseconds &+ offset).next
                for (p, s) in node.outputStreams.enumerated() where b > node.outputBounds[p] {
                    node.outputBounds[p] = b
                    advance(stream: s, to: b)
                }
            }
            for (p, b) in ctx.boundUpdates where b > node.outputBounds[p] {
                node.outputBounds[p] = b
                advance(stream: node.outputStreams[p], to: b)
            }
            if case .source = step, ctx.sourceFinished { node.sourceDone = true }
        }
        ctx.emitted.removeAll(keepingCapacity: true)
        ctx.boundUpdates.removeAll(keepingCapacity: true)
    }

    /// Whether the ready nodes other than the one this worker takes next hold enough work
    /// (or unmeasured work) to pay for waking a second worker.
    private func worthAnotherWorker() -> Bool {
        var best = 0
        for i in 1..<ready.count where ready[i].rank > ready[best].rank { best = i }
        var work: UInt64 = 0
        for (i, n) in ready.enumerated() where i != best {
            if n.calls < 9 { return true }
            work &+= n.averageNanos
            if work > 20_000 { return true }
        }
        return false
    }

    /// Nothing runs, yet a node waits on a full queue: let it overfill the queue once, as
    /// MediaPipe grows a queue to resolve such a deadlock.
    private func relieveDeadlock() {
        for n in nodes where n.status == .idle && n.opened {
            if !n.throttleOverride && (n.isSource ? !n.sourceDone : n.readyTimestamp() != nil) && isThrottled(n) {
                n.throttleOverride = true
                examine(n)
                n.throttleOverride = false
                if !ready.isEmpty { return }
            }
        }
    }

    // MARK: Graph inputs

    /// Sends a packet into graph input stream `s`. Returns false when `maxFramesInFlight`
    /// rejects it.
    func send(_ packet: Packet, stream s: Int) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let st = streams[s]  // a copy: name, bound and consumers for the checks below
        if let failure, aborting { throw failure }
        guard !closedInputs.contains(s) else {
            throw GraphError(.closed, "input stream is closed", stream: st.name)
        }
        guard packet.timestamp.isAllowedInStream else {
            throw GraphError(.invalidTimestamp, "timestamp \(packet.timestamp) may not be sent", stream: st.name)
        }
        guard packet.timestamp >= streams[s].bound else {
            throw GraphError(
                .timestampOrder,
                "timestamps must strictly increase: got \(packet.timestamp) after \(streams[s].lastTimestamp)",
                stream: st.name)
        }
        if maxFramesInFlight > 0 {
            updateFrontier()
            if inFlight.count >= maxFramesInFlight {
                rejectedAtInput += 1
                return false
            }
        }
        // Back-pressure: wait while a blocking consumer queue is full and the graph is
        // making progress.
        while !aborting && (running > 0 || !ready.isEmpty)
            && st.consumers.contains(where: { $0.node.status != .closed && $0.node.inputs[$0.input].policy == .block && $0.node.inputs[$0.input].isFull })
        {
            sendWaiters += 1
            lock.waitOther()
            sendWaiters -= 1
        }
        if let failure, aborting { throw failure }
        sentPackets += 1
        deliver(stream: s, packet)
        if maxFramesInFlight > 0 {
            inFlight.append(packet.timestamp)
            if inFlight.count > 1 && inFlight[inFlight.count - 2] > packet.timestamp { inFlight.sort() }
        }
        drainDirty()
        // This thread is not a worker: wake one for each ready node.
        wakeWorkers()
        return true
    }

    /// Closes graph input stream `s`: its consumers see its bound reach `done`.
    func closeInput(_ s: Int) {
        lock.withLock {
            guard !closedInputs.contains(s) else { return }
            closedInputs.insert(s)
            advance(stream: s, to: .done)
            drainDirty()
            wakeWorkers()
            checkDone()
        }
    }

    /// Moves the bound of graph input `s` to `t` without a packet.
    func setBound(_ s: Int, to t: Timestamp) {
        lock.withLock {
            advance(stream: s, to: t)
            drainDirty()
            wakeWorkers()
        }
    }

    // MARK: Waiting

    func waitUntilIdle() throws {
        lock.lock()
        defer { lock.unlock() }
        while !done && (running > 0 || !ready.isEmpty) {
            idleWaiters += 1
            lock.waitOther()
            idleWaiters -= 1
        }
        if let failure { throw failure }
    }

    func waitUntilDone() throws {
        lock.lock()
        defer { lock.unlock() }
        while !done {
            doneWaiters += 1
            lock.waitOther()
            doneWaiters -= 1
        }
        if let failure { throw failure }
    }

    /// Waits until done or `seconds` pass; returns whether the run is done.
    func waitUntilDone(seconds: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while !done {
            let now = monotonicNanoseconds()
            if now >= deadline { return false }
            doneWaiters += 1
            _ = lock.waitOther(seconds: Double(deadline - now) / 1e9)
            doneWaiters -= 1
        }
        return true
    }

    func cancel() {
        lock.withLock {
            guard !done else { return }
            if failure == nil { failure = GraphError(.cancelled, "the graph was cancelled") }
            abort(keepingOutputs: false)
        }
    }

    // MARK: Start

    /// Opens every node (side-packet producers first) and schedules the sources.
    func open(sidePackets given: [String: any Sendable], order: [Int], sideInputs: [[StreamRef]], sideOutputs: [[StreamRef]]) throws {
        for (k, v) in given { sidePackets[k] = Packet(v, at: .unset) }
        var remaining = order
        var progressed = true
        while !remaining.isEmpty && progressed {
            progressed = false
            var next: [Int] = []
            for i in remaining {
                let node = nodes[i]
                let needs = sideInputs[i]
                let producedLater = needs.contains { ref in
                    sidePackets[ref.name] == nil && remaining.contains { j in j != i && sideOutputs[j].contains { $0.name == ref.name } }
                }
                if producedLater {
                    next.append(i)
                    continue
                }
                for (k, ref) in needs.enumerated() {
                    guard let p = sidePackets[ref.name] else {
                        let optional = node.contract.inputSidePackets.first { $0.tag == ref.tag }?.isOptional ?? false
                        if optional { continue }
                        closeOpened()
                        throw GraphError(.missingSidePacket, "input side packet was not given to start()", node: node.name, stream: ref.name, location: ref.location)
                    }
                    node.context.sideInputs[k] = p
                }
                do {
                    node.context.inputTimestamp = .unstarted
                    try node.calculator.open(node.context)
                } catch {
                    closeOpened()
                    throw GraphError(.calculatorFailed, "open failed: \(error)", node: node.name, location: node.location, underlying: error)
                }
                node.opened = true
                for (pos, value) in node.context.sideOutputs {
                    sidePackets[sideOutputs[i][pos].name] = value
                }
                node.context.sideOutputs.removeAll()
                progressed = true
            }
            remaining = next
        }
        if !remaining.isEmpty {
            closeOpened()
            let n = nodes[remaining[0]]
            throw GraphError(.missingSidePacket, "input side packets form a cycle or are never produced", node: n.name)
        }
        lock.withLock {
            for n in nodes { markDirty(n) }
            drainDirty()
            wakeWorkers()
        }
    }

    private func closeOpened() {
        for n in nodes where n.opened {
            n.context.inputTimestamp = .done
            try? n.calculator.close(n.context)
            n.opened = false
        }
        pool.shutdown()
    }
}

extension InputQueue {
    /// Appends by the queue's policy; counts dropped packets.
    mutating func push(_ p: Packet) {
        if packets.count >= capacity {
            switch policy {
            case .block: break  // the producer was throttled before; a soft bound.
            case .dropOldest:
                packets.removeFirst()
                drops += 1
            case .keepLatest:
                drops += packets.count
                packets.removeAll()
            }
        }
        packets.append(p)
        if packets.count > maxDepth { maxDepth = packets.count }
        bound = p.timestamp.next
    }
}
