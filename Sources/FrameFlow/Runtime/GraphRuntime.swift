import Foundation

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
    /// Whether the run made `pool` (then it shuts it down when it ends) or shares one that
    /// its owner shuts down (then the run only leaves it).
    let ownsPool: Bool
    /// Whether the run has shut its pool down or left it (guarded by `lock`).
    @exclusivity(unchecked) var poolReleased = false
    @exclusivity(unchecked) var nodes: [NodeRuntime] = []
    @exclusivity(unchecked) var streams: [StreamRuntime] = []
    @exclusivity(unchecked) var streamIndex: [String: Int] = [:]
    @exclusivity(unchecked) var graphInputs: Set<Int> = []
    /// The graph's own `input_side_packet` declarations, for errors about a missing one.
    var declaredSidePackets: [StreamRef] = []
    @exclusivity(unchecked) var closedInputs: Set<Int> = []
    @exclusivity(unchecked) var ready: [NodeRuntime] = []
    @exclusivity(unchecked) var running = 0
    /// The expected time of the steps in flight (each node's recent average; long when
    /// unmeasured), for `leavesShortWork`.
    @exclusivity(unchecked) var runningEstimate: UInt64 = 0
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
    /// Node indices in the order `start` opens them.
    @exclusivity(unchecked) var openOrder: [Int] = []
    @exclusivity(unchecked) var rejectedAtInput = 0
    @exclusivity(unchecked) var sentPackets = 0
    @exclusivity(unchecked) var sidePackets: [String: Packet] = [:]
    @exclusivity(unchecked) var trace: TraceRecorder?

    /// A run on a pool of its own of `threads` workers, or on the shared `pool` (whose lock
    /// it then shares with the pool's other graphs).
    init(threads: Int, pool shared: WorkerPool? = nil) {
        if let shared {
            lock = shared.lock
            pool = shared
            ownsPool = false
        } else {
            let lock = ConditionLock()
            self.lock = lock
            pool = WorkerPool(threads: threads, name: "frameflow.graph", lock: lock)
            ownsPool = true
        }
        // `start` attaches the run to the pool once its nodes are open: a run whose build
        // or open fails is never served (nor kept alive by the pool).
    }

    /// Ends the workers' service of this run: shuts its own pool down, or leaves a shared
    /// one (which keeps serving its other graphs); lock held.
    func releasePoolLocked() {
        poolReleased = true
        if ownsPool { pool.shutdownLocked() } else { pool.detachLocked(self) }
    }

    /// Wakes as many sleeping workers as there are ready nodes; lock held.
    func wakeWorkers() {
        guard !ready.isEmpty else { return }
        // A worker running short steps takes the new work itself when it is short too; a
        // spinning worker is not called away for it (sleeping ones are still woken: they
        // take what is left after their spin).
        if !(running > 0 && leavesShortWork()) { pool.workHint.add(1, ordering: .releasing) }
        for _ in 0..<Swift.min(ready.count, pool.sleeping) { lock.signal() }
    }

    deinit {
        // A run attached to its pool is held by it, so a run gets here after leaving the
        // pool — possibly on a worker that holds the lock, so this must not take it — or
        // never having joined it (a build that failed), whose own pool then still runs.
        if ownsPool && !poolReleased { pool.shutdown() }
    }

    // MARK: Graph inputs (each takes the lock)

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
            && st.consumers.contains(where: {
                $0.node.status != .closed && $0.node.inputs[$0.input].policy == .block && $0.node.inputs[$0.input].isFull
            })
        {
            sendWaiters += 1
            lock.waitForProgress()
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
        runShortWorkInline()
        // This thread is not a worker: wake one for each ready node.
        wakeWorkers()
        return true
    }

    /// Most steps `send` runs on the calling thread per packet, times the node count: a
    /// bound on how long a `send` can take, even with a short source node always ready.
    static let inlineStepsPerNode = 2

    /// Runs the ready steps on the sending thread while no worker runs one and all of them
    /// are measured and short (as GStreamer's push runs a chain on the pushing thread): waking
    /// a worker for each packet costs more than such steps. Lock held; at most
    /// `inlineStepsPerNode` steps per node, the rest is left to the workers. Only on a pool of
    /// the run's own: a shared pool (a fleet's) bounds the threads its graphs run on.
    private func runShortWorkInline() {
        guard ownsPool else { return }
        var budget = nodes.count &* Self.inlineStepsPerNode
        while budget > 0 && running == 0 && !ready.isEmpty && leavesShortWork() {
            // A chain counts each of its steps against the budget.
            budget -= Swift.max(1, runStepsLocked(deferringShortWork: false, limit: Swift.min(budget, Self.chainSteps)))
        }
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
            lock.waitForProgress()
            idleWaiters -= 1
        }
        if let failure { throw failure }
    }

    func waitUntilDone() throws {
        lock.lock()
        defer { lock.unlock() }
        while !done {
            doneWaiters += 1
            lock.waitForProgress()
            doneWaiters -= 1
        }
        if let failure { throw failure }
    }

    /// Waits until done or `seconds` pass; returns whether the run is done.
    func waitUntilDone(seconds: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let deadline = monotonicNanoseconds(after: seconds)
        while !done {
            let now = monotonicNanoseconds()
            if now >= deadline { return false }
            doneWaiters += 1
            _ = lock.waitForProgress(seconds: Double(deadline - now) / 1e9)
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

    // MARK: Snapshots for the façade (each takes the lock)

    /// Whether every node has closed.
    var isDone: Bool { lock.withLock { done } }

    /// The first error of the run.
    var error: GraphError? { lock.withLock { failure } }

    /// The index of graph input stream `name`, nil for any other name.
    func inputStream(named name: String) -> Int? {
        guard let s = streamIndex[name], graphInputs.contains(s) else { return nil }
        return s
    }

    /// Every graph input stream, in index order.
    var inputStreams: [Int] { graphInputs.sorted() }

    /// Hands `options` to node `index`'s calculator between two of its steps.
    func setPendingOptions(_ options: any CalculatorOptions, node index: Int) {
        lock.withLock { nodes[index].pendingOptions = options }
    }

    /// An input or output side packet of the run, by name.
    func sidePacket(named name: String) -> Packet? { lock.withLock { sidePackets[name] } }

    /// Per-node counters and the run's totals.
    func statistics() -> GraphStatistics {
        lock.withLock {
            GraphStatistics(
                nodes: nodes.map { n in
                    NodeStatistics(
                        name: n.name, calls: n.calls, busySeconds: Double(n.busyNanos) / 1e9,
                        dropped: n.inputs.reduce(n.droppedByCalculator) { $0 + $1.drops }, maxQueueDepth: n.inputs.map(\.maxDepth).max() ?? 0,
                        isOutput: n.isSink, latency: n.contract.runsModel ? n.latency : nil)
                }, framesRejected: rejectedAtInput, packetsSent: sentPackets)
        }
    }

    /// The recorded trace as Chrome trace JSON; empty without tracing.
    func chromeTrace() -> Data {
        lock.withLock { trace?.json(nodeNames: nodes.map(\.name)) ?? Data() }
    }
}
