/// One step of one node, as a worker runs it: select the node, prepare its inputs (lock
/// held), execute the calculator (lock released), commit its outputs (lock held).
extension GraphRuntime {
    enum StepKind { case process(Timestamp), bounds, source, close }

    /// What `prepare` hands to `execute` and `commit`.
    struct PreparedStep {
        let node: NodeRuntime
        let context: CalculatorContext
        let kind: StepKind
        /// Whether the step first applies `node.optionsToApply` (`Graph.setOptions`): a Bool,
        /// not the options themselves, so that moving a step copies no existential.
        let appliesOptions: Bool
        /// Whether to read the clock around the step (statistics, trace).
        let timed: Bool
        /// What the step adds to `runningEstimate`.
        let estimate: UInt64
    }

    /// How a step ended.
    struct StepOutcome {
        var error: (any Error)?
        var start: UInt64 = 0
        var end: UInt64 = 0
    }

    /// Runs one step of the most downstream ready node. Called by a worker with the lock
    /// held; returns with it held. False when no node is ready. The four parts are inlined
    /// here: as calls, the step's node and context were retained and released once more per
    /// step (graph overhead per node and packet rose by a sixth).
    func runOneLocked(deferringShortWork: Bool) -> Bool {
        runStepsLocked(deferringShortWork: deferringShortWork, limit: Self.chainSteps) > 0
    }

    /// Most steps one `runOneLocked` runs as a chain (see `chainTarget`): bounds how long a
    /// worker stays on one graph of a shared pool, and how late it sees new band jobs.
    static let chainSteps = 16

    /// Runs one step, then the steps its outputs hand straight to idle consumers (a chain),
    /// at most `limit` in all; lock held. Returns how many ran (0: no node was ready).
    func runStepsLocked(deferringShortWork: Bool, limit: Int) -> Int {
        if deferringShortWork && running > 0 && leavesShortWork() { return 0 }
        guard let node = selectNode() else { return 0 }
        guard var step = prepare(node) else { return 1 }
        var steps = 1
        while true {
            lock.unlock()
            let outcome = execute(step)
            lock.lock()
            guard let next = commit(step, outcome, chaining: steps < limit) else { return steps }
            step = next
            steps &+= 1
        }
    }

    /// Takes the ready node of highest rank (most downstream: finishing frames before
    /// starting new ones keeps latency and queues short).
    @inline(__always)
    func selectNode() -> NodeRuntime? {
        guard !ready.isEmpty else { return nil }
        var best = 0
        for i in 1..<ready.count where ready[i].rank > ready[best].rank { best = i }
        let node = ready.remove(at: best)
        node.status = .running
        return node
    }

    /// Decides what the node does now and moves its input packets into a context; nil when
    /// there is nothing to do after all (the node is re-examined).
    @inline(__always)
    func prepare(_ node: NodeRuntime) -> PreparedStep? {
        if node.runningSteps > 0 && (node.hasPendingOptions || aborting) {
            // Queued beside running steps, then options arrived or the run failed: options
            // are applied, and a close runs, only once the steps in flight are done (their
            // commit re-examines the node).
            return nil
        }
        running += 1
        node.runningSteps += 1

        let kind: StepKind
        // A concurrent node's process step gets a context of its own.
        let ctx = node.isConcurrent && !node.wantsClose ? node.takeContext() : node.context
        if node.wantsClose {
            kind = .close
            ctx.inputTimestamp = .done
            for i in ctx.inputPackets.indices { ctx.inputPackets[i] = Packet(emptyAt: .done) }
        } else if node.isSource {
            kind = .source
        } else if let ts = node.readyTimestamp() {
            kind = .process(ts)
            node.lastStepTimestamp = ts
            takeInputs(of: node, at: ts, into: ctx)
        } else if node.hasBoundChange {
            kind = .bounds
            ctx.inputTimestamp = node.handler.boundChangeTimestamp(node)
            node.lastStepTimestamp = ctx.inputTimestamp
            for i in ctx.inputPackets.indices { ctx.inputPackets[i] = Packet(emptyAt: ctx.inputTimestamp) }
        } else {
            node.status = node.steps.isEmpty ? .idle : .running
            if node.isConcurrent { node.spareContexts.append(ctx) }
            running -= 1
            node.runningSteps -= 1
            markDirty(node)
            drainDirty()
            return nil
        }
        for i in node.inputs.indices {
            ctx.inputBounds[i] = node.inputs[i].frontier
            node.inputs[i].boundMoved = false
        }
        // Options are rare: test before touching the existential (a copy per step otherwise).
        let appliesOptions = node.hasPendingOptions
        if appliesOptions {
            node.optionsToApply = node.pendingOptions
            node.pendingOptions = nil
            // Until this step commits, `examine` queues no step beside it (it runs alone:
            // options wait above for the steps in flight).
            node.optionsInFlight = true
        }
        if node.isConcurrent, case .process(let ts) = kind {
            node.steps.append(ConcurrentStep(context: ctx, timestamp: ts))
            // Room for another timestamp: queue it now, for the next free worker.
            markDirty(node)
            drainDirty()
            if !ready.isEmpty { pool.hintWorkLocked() }
        }
        let (timed, estimate) = startTiming(node)
        return PreparedStep(node: node, context: ctx, kind: kind, appliesOptions: appliesOptions, timed: timed, estimate: estimate)
    }

    /// Whether a step of `node` starting now is timed, and what it adds to
    /// `runningEstimate` (added here); lock held. Timing every step costs two clock reads;
    /// without a trace, every 8th step is timed (decided under the lock: a concurrent node's
    /// other steps count `calls` as they end). A node that runs a model has every step
    /// timed, for its latency histogram.
    @inline(__always)
    private func startTiming(_ node: NodeRuntime) -> (timed: Bool, estimate: UInt64) {
        let timed = trace != nil || node.timesEveryStep || node.calls & 7 == 0
        let estimate = node.calls < 9 ? Self.unmeasuredStep : node.averageNanos
        runningEstimate &+= estimate
        return (timed, estimate)
    }

    /// Moves the packets at `ts` from the node's queues into `ctx` (empty packets for inputs
    /// without one), releasing producers and senders that waited on a full queue.
    @inline(__always)
    private func takeInputs(of node: NodeRuntime, at ts: Timestamp, into ctx: CalculatorContext) {
        ctx.inputTimestamp = ts
        // A plain default node takes every input: no call through the handler existential.
        let taken = node.isPlainDefault ? nil : node.handler.inputsToTake(at: ts, node)
        for i in node.inputs.indices {
            if let h = node.inputs[i].packets.firstTimestamp, h == ts, taken?.contains(i) ?? true {
                let wasFull = node.inputs[i].isFull
                ctx.inputPackets[i] = node.inputs[i].packets.removeFirst()
                // Only a full queue can have throttled its producer.
                if wasFull && !node.inputs[i].isFull, let producer = streams[node.inputs[i].stream].producer {
                    if node.inputs[i].policy == .block { producer.fullBlockingOutputs -= 1 }
                    markDirty(producer)
                }
                // Senders blocked on this queue: wake them once it is half empty.
                if sendWaiters > 0 && node.inputs[i].packets.count <= node.inputs[i].capacity / 2 { lock.broadcastProgress() }
            } else {
                ctx.inputPackets[i] = Packet(emptyAt: ts)
            }
        }
    }

    /// Runs the calculator, without the lock.
    @inline(__always)
    func execute(_ step: PreparedStep) -> StepOutcome {
        var outcome = StepOutcome()
        if step.timed { outcome.start = monotonicNanoseconds() }
        do {
            // Set under the lock by `prepare`; no other step of the node runs beside this one.
            if step.appliesOptions, let options = step.node.optionsToApply { try Self.apply(options, to: step.node.calculator) }
            switch step.kind {
            case .process, .bounds, .source: try step.node.calculator.process(step.context)
            case .close: try step.node.calculator.close(step.context)
            }
        } catch {
            outcome.error = error
        }
        if step.timed { outcome.end = monotonicNanoseconds() }
        return outcome
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

    /// Applies a finished step's outputs and schedules what they made ready; lock held. A
    /// concurrent node's step waits until the steps dispatched before it have been applied.
    /// With `chaining`, a packet that an idle consumer can take at once is handed to it
    /// without its queue or the ready list: the step returned runs next on this worker.
    @inline(__always)
    func commit(_ step: PreparedStep, _ outcome: StepOutcome, chaining: Bool) -> PreparedStep? {
        var chained: PreparedStep?
        let node = step.node, ctx = step.context
        running -= 1
        runningEstimate &-= step.estimate
        node.runningSteps -= 1
        // A step that applied options ran alone: it is this one.
        if node.runningSteps == 0 { node.optionsInFlight = false }
        if step.appliesOptions { node.optionsToApply = nil }
        if node.isConcurrent, case .process = step.kind {
            if let mine = node.steps.first(where: { $0.context === ctx }) {
                (mine.finished, mine.error, mine.start, mine.end, mine.timed) = (true, outcome.error, outcome.start, outcome.end, step.timed)
            }
            while let first = node.steps.first, first.finished {
                node.steps.removeFirst()
                applyOutputs(
                    node, first.context, kind: .process(first.timestamp),
                    StepOutcome(error: first.error, start: first.start, end: first.end), timed: first.timed)
                node.spareContexts.append(first.context)
            }
            if node.status == .running && node.steps.isEmpty { node.status = .idle }
            markDirty(node)
        } else {
            chained = applyOutputs(node, ctx, kind: step.kind, outcome, timed: step.timed, chaining: chaining)
            if case .close = step.kind {
                node.status = .closed
                closedCount += 1
                for (p, s) in node.outputStreams.enumerated() {
                    node.outputBounds[p] = .done
                    advance(stream: s, to: .done)
                }
            } else {
                node.status = .idle
                // With a chained step, examined at once: the dirty list's append and pop
                // were a retain and a release per step.
                if chained != nil { examine(node) } else { markDirty(node) }
            }
        }
        drainDirty()
        if node.isSink || frontierNodes.isEmpty { updateFrontier() }
        if ready.isEmpty && running == 0 && !aborting { relieveDeadlock() }
        // This worker takes the next ready node itself; wake another only when the rest is
        // worth a wake-up (tiny steps run faster on one thread than on two contending ones).
        // (With a chained step next, every ready node is left for the others.)
        if ready.count > (chained == nil ? 1 : 0) && pool.sleeping > 0 && worthAnotherWorker(takingOne: chained == nil) {
            pool.hintWorkLocked()
        }
        if ((idleWaiters > 0 || sendWaiters > 0) && ready.isEmpty && running == 0) || (sendWaiters > 0 && aborting) {
            lock.broadcastProgress()
        }
        checkDone()
        return chained
    }

    /// The consumer that may take packet `ts` of stream `s` straight from its producer's
    /// step, or nil. Only when that changes nothing it could see: the stream's one consumer,
    /// idle, open, measured short, with one empty forward input, the plain default handler,
    /// serial, not throttled, not closing and no options pending.
    @inline(__always)
    private func chainTarget(stream s: Int) -> NodeRuntime? {
        guard streams[s].consumers.count == 1 else { return nil }
        let c = streams[s].consumers[0].node
        guard c.status == .idle, c.opened, c.isPlainDefault, c.inputs.count == 1, !c.isConcurrent, !c.wantsClose,
            !c.hasPendingOptions, c.calls >= 9, c.averageNanos < Self.shortWork, !isThrottled(c),
            c.inputs[0].packets.isEmpty, !c.inputs[0].isBackEdge
        else { return nil }
        return c
    }

    /// `deliver` and `prepare` in one for a chain target: the packet goes into the context,
    /// not the queue, and the consumer runs next on this worker; lock held.
    @inline(__always)
    private func handOff(_ packet: Packet, stream s: Int, to c: NodeRuntime) -> PreparedStep {
        let ts = packet.timestamp
        recordPacket(stream: s, at: ts)
        // What a push and a take leave behind: the bound, the depth the queue reached.
        c.inputs[0].bound = ts.next
        if c.inputs[0].maxDepth == 0 { c.inputs[0].maxDepth = 1 }
        c.inputs[0].boundMoved = false
        c.status = .running
        running += 1
        c.runningSteps += 1
        c.lastStepTimestamp = ts
        let ctx = c.context
        ctx.inputTimestamp = ts
        ctx.inputPackets[0] = packet
        ctx.inputBounds[0] = ts.next
        let (timed, estimate) = startTiming(c)
        return PreparedStep(node: c, context: ctx, kind: .process(ts), appliesOptions: false, timed: timed, estimate: estimate)
    }

    /// A step's statistics, error and outputs; lock held.
    /// With `chaining`, a process or source step's one packet, when nothing else moves a
    /// bound, goes to a chain target (returned as its prepared step) instead of its queue.
    @discardableResult
    private func applyOutputs(
        _ node: NodeRuntime, _ ctx: CalculatorContext, kind: StepKind, _ outcome: StepOutcome, timed: Bool, chaining: Bool = false
    ) -> PreparedStep? {
        var chained: PreparedStep?
        if case .close = kind {} else { node.calls += 1 }  // `calls` counts process steps only
        if timed {
            let took = outcome.end &- outcome.start
            if node.timesEveryStep {
                node.busyNanos &+= took
                if case .close = kind {} else { node.latency.record(nanoseconds: took) }
            } else {
                node.busyNanos &+= trace != nil ? took : took &* 8  // sampled: stands for 8 steps
            }
            node.averageNanos = node.calls == 1 ? took : (node.averageNanos &* 3 &+ took) / 4
            trace?.record(node: node.index, start: outcome.start, end: outcome.end, timestamp: ctx.inputTimestamp)
        }

        if let error = outcome.error {
            let what: String
            switch kind {
            case .process(let ts): what = "process at \(ts)"
            case .source, .bounds: what = "process"
            case .close: what = "close"
            }
            fail(GraphError(.calculatorFailed, "\(what) failed: \(error)", node: node.name, location: node.location, underlying: error))
        } else if !aborting {
            for k in ctx.emitted.indices {
                let port = ctx.emitted[k].0, packet = ctx.emitted[k].1
                let s = node.outputStreams[port]
                let ts = packet.timestamp
                guard ts.isAllowedInStream else {
                    fail(
                        GraphError(
                            .invalidTimestamp, "output packet has timestamp \(ts), which no packet may carry", node: node.name,
                            stream: streams[s].name))
                    break
                }
                guard ts >= node.outputBounds[port] else {
                    let last = streams[s].lastTimestamp
                    fail(
                        GraphError(
                            .timestampOrder,
                            "output timestamps must increase: \(ts) after \(last == .unset ? "bound \(node.outputBounds[port])" : "\(last)")",
                            node: node.name, stream: streams[s].name))
                    break
                }
                node.outputBounds[port] = ts.next
                // One packet and no other bound moved: the consumer's view is the same as
                // after a push and a take (an offset of 0 moves no bound past `ts.next`).
                if chaining && ctx.emitted.count == 1 && ctx.boundUpdates.isEmpty, node.contract.timestampOffset ?? 0 == 0,
                    isChainable(kind), let c = chainTarget(stream: s)
                {
                    chained = handOff(packet, stream: s, to: c)
                } else {
                    deliver(stream: s, packet)
                }
            }
            if !aborting, case .process(let ts) = kind, let offset = node.contract.timestampOffset {
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
            if case .source = kind, ctx.sourceFinished { node.sourceDone = true }
        }
        if ctx.droppedByCalculator != 0 {
            node.droppedByCalculator += ctx.droppedByCalculator
            ctx.droppedByCalculator = 0
        }
        // Popped one by one: `removeAll(keepingCapacity:)` goes through the generic
        // `replaceSubrange` (and on the shared empty array allocates a buffer of its own).
        while ctx.emitted.popLast() != nil {}
        if !ctx.boundUpdates.isEmpty { ctx.boundUpdates.removeAll(keepingCapacity: true) }
        return chained
    }

    /// Process and source steps may start a chain (a close or a bound step never does).
    @inline(__always)
    private func isChainable(_ kind: StepKind) -> Bool {
        switch kind {
        case .process, .source: return true
        case .bounds, .close: return false
        }
    }
}
