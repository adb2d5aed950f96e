/// The run-time state of one node.
///
/// Scheduling fields are guarded by the graph's lock; that is why they are marked
/// `@exclusivity(unchecked)`: the lock already serializes every access, and the dynamic
/// check is costly on this path. `calculator` and `context` are
/// used only by the worker that set `status` to `.running`, one at a time.
final class NodeRuntime {
    enum Status { case idle, queued, running, closed }

    let index: Int
    let name: String
    let calculator: any Calculator
    let context: CalculatorContext
    let contract: CalculatorContract
    /// Decides which timestamp the node processes next (the node's input policy).
    let handler: any InputStreamHandler
    /// `handler.trimsQueues`, read for every delivered packet.
    let trimsQueues: Bool
    /// The handler is the plain default one (no bound-only steps): examined inline, without a
    /// call through the existential, as most nodes are on every step.
    let isPlainDefault: Bool
    let rank: Int
    let location: SourceLocation?
    let isSink: Bool
    /// How many timestamps may be in process at once (1: MediaPipe's serial node).
    let maxConcurrency: Int

    @exclusivity(unchecked) var inputs: [InputQueue]
    /// Output positions → stream index; each output's bound.
    @exclusivity(unchecked) var outputStreams: [Int]
    @exclusivity(unchecked) var outputBounds: [Timestamp]
    @exclusivity(unchecked) var status: Status = .idle
    @exclusivity(unchecked) var opened = false
    @exclusivity(unchecked) var wantsClose = false
    @exclusivity(unchecked) var sourceDone = false
    @exclusivity(unchecked) var throttleOverride = false
    @exclusivity(unchecked) var pendingOptions: (any CalculatorOptions)? {
        didSet { hasPendingOptions = pendingOptions != nil }
    }
    /// Options taken from `pendingOptions` by the step that applies them, until it commits.
    @exclusivity(unchecked) var optionsToApply: (any CalculatorOptions)?
    /// `pendingOptions != nil`, read on every step: testing the optional existential itself
    /// copied it (an outlined copy and destroy per step).
    @exclusivity(unchecked) private(set) var hasPendingOptions = false
    /// Steps of this node running now (a concurrent node's process steps, or any one step).
    @exclusivity(unchecked) var runningSteps = 0
    /// A step that applies options is running: a concurrent node starts no other step beside
    /// it, so `update(options:)` never overlaps a `process` call.
    @exclusivity(unchecked) var optionsInFlight = false
    /// Consumer queues (block policy) of this node's outputs that are full.
    @exclusivity(unchecked) var fullBlockingOutputs = 0
    /// The timestamp of the last process or bound step: a bound-only step runs only for a
    /// later settled timestamp (closing one input does not repeat it).
    @exclusivity(unchecked) var lastStepTimestamp: Timestamp = .unset
    /// Queued for `examine` in the current critical section.
    @exclusivity(unchecked) var isDirty = false

    // Statistics.
    @exclusivity(unchecked) var calls = 0
    /// Packets the calculator reported dropping (`CalculatorContext.countDropped`).
    @exclusivity(unchecked) var droppedByCalculator = 0
    @exclusivity(unchecked) var busyNanos: UInt64 = 0
    /// Recent average time of one step (exponentially weighted), to decide whether waking
    /// another worker for this node is worth a wake-up.
    @exclusivity(unchecked) var averageNanos: UInt64 = 0
    /// Every process step's duration when the contract `runsModel` (those steps are all
    /// timed); fixed-size, updated in place.
    @exclusivity(unchecked) var latency = LatencyHistogram()
    /// `contract.runsModel`, read on every step.
    let timesEveryStep: Bool

    /// A concurrent node's steps in dispatch order, which is timestamp order: finished ones
    /// wait here until every earlier one has finished, so outputs leave in order. A
    /// concurrent node is `.running` while this is non-empty, or `.queued` for one more.
    @exclusivity(unchecked) var steps: [ConcurrentStep] = []
    /// Contexts of finished steps, for the next ones (the node's own `context` is the first).
    @exclusivity(unchecked) var spareContexts: [CalculatorContext] = []

    var isConcurrent: Bool { maxConcurrency > 1 }

    init(
        index: Int, name: String, calculator: any Calculator, context: CalculatorContext, contract: CalculatorContract,
        handler: any InputStreamHandler, rank: Int, location: SourceLocation?, inputs: [InputQueue], outputStreams: [Int],
        isSink: Bool = false, concurrency: Int = 1
    ) {
        self.index = index
        self.name = name
        self.calculator = calculator
        self.context = context
        self.contract = contract
        self.timesEveryStep = contract.runsModel
        self.handler = handler
        self.trimsQueues = handler.trimsQueues
        self.isPlainDefault = (handler as? DefaultInputStreamHandler)?.processesTimestampBounds == false
        self.rank = rank
        self.location = location
        self.inputs = inputs
        self.outputStreams = outputStreams
        self.outputBounds = Array(repeating: .unstarted, count: outputStreams.count)
        self.isSink = isSink
        self.maxConcurrency = Swift.max(1, concurrency)
        if maxConcurrency > 1 { spareContexts = [context] }
    }

    /// A context for one more concurrent step: a spare one, or a new sibling of `context`.
    func takeContext() -> CalculatorContext {
        if let c = spareContexts.popLast() { return c }
        return context.sibling()
    }

    var isSource: Bool { inputs.isEmpty }

    /// The timestamp the node can process now, or nil.
    @inline(__always) func readyTimestamp() -> Timestamp? { isPlainDefault ? synchronizedTimestamp : handler.readyTimestamp(self) }

    /// The node runs with no packet because an input's bound moved.
    @inline(__always) var hasBoundChange: Bool { isPlainDefault ? false : handler.runsOnBoundChange(self) }

    /// All forward inputs are closed and drained (and, for a contract that waits for back
    /// edges, the back edges too unless every output is closed).
    var inputsFinished: Bool {
        if isSource { return sourceDone }
        // Indexed loops read the queues in place (`allSatisfy` copied each one: a retain and
        // a release per input on every examine).
        for i in inputs.indices where !inputs[i].isBackEdge && !inputs[i].isDone { return false }
        guard contract.waitsForBackEdges else { return true }
        for i in inputs.indices where inputs[i].isBackEdge && !inputs[i].isDone {
            return outputBounds.allSatisfy { $0 >= .done }
        }
        return true
    }

    /// The smallest timestamp any forward input may still deliver.
    var inputFrontier: Timestamp {
        var f = Timestamp.done
        for i in inputs.indices where !inputs[i].isBackEdge { f = Swift.min(f, inputs[i].frontier) }
        return f
    }
}

/// One `process` call of a concurrent node, from dispatch until its outputs are applied.
final class ConcurrentStep {
    let context: CalculatorContext
    let timestamp: Timestamp
    var finished = false
    var error: (any Error)?
    var start: UInt64 = 0
    var end: UInt64 = 0
    var timed = false

    init(context: CalculatorContext, timestamp: Timestamp) {
        self.context = context
        self.timestamp = timestamp
    }
}

/// A consumer of a stream: a node and its input position. The node reference is
/// `unowned(unsafe)`: the run owns every node for as long as it owns the streams, and a
/// counted reference here cost a retain and a release per packet per consumer.
struct Consumer {
    unowned(unsafe) let node: NodeRuntime
    let input: Int
}

/// A stream at run time: its consumers and producer, bound and counters. A struct in the
/// run's array, so the scheduler reads it in place.
struct StreamRuntime {
    let name: String
    var consumers: [Consumer] = []
    /// The producing node, nil for a graph input stream.
    unowned(unsafe) var producer: NodeRuntime?
    var bound: Timestamp = .unstarted
    var lastTimestamp: Timestamp = .unset
    var packets = 0

    init(name: String) { self.name = name }
}
