import FrameFlow

/// The last node of a task's graph: takes every output stream of the task graph (default
/// input stream handler, so it runs once per timestamp when all of them are settled) and hands
/// that timestamp's packets, in input order, to the graph's `TaskResultSink` — MediaPipe Tasks'
/// packets callback.
final class TaskResultCalculator: Calculator {
    static let contract = CalculatorContract(acceptsAnyPorts: true)

    private var sink: TaskResultSink?

    init(options: NoOptions) {}

    func open(_ cc: CalculatorContext) throws {
        sink = cc.environment.service(TaskResultSink.self)
        guard sink != nil else { throw GraphError(.calculatorFailed, "no TaskResultSink in the graph's environment", node: cc.nodeName) }
    }

    func process(_ cc: CalculatorContext) throws {
        let packets = (0..<cc.inputCount).map { i -> Packet? in
            let p = cc.input(at: i)
            return p.isEmpty ? nil : p
        }
        sink?.deliver(packets, at: cc.inputTimestamp)
    }
}

/// Where `TaskResultCalculator` puts each timestamp's packets: kept for a synchronous call to
/// take, or passed on to a live-stream listener.
final class TaskResultSink: Sendable {
    private let results = Locked<[Timestamp: [Packet?]]>([:])
    private let listener: (@Sendable ([Packet?], Timestamp) -> Void)?

    init(listener: (@Sendable ([Packet?], Timestamp) -> Void)?) { self.listener = listener }

    func deliver(_ packets: [Packet?], at timestamp: Timestamp) {
        if let listener {
            listener(packets, timestamp)
        } else {
            results.withLock { $0[timestamp] = packets }
        }
    }

    /// The packets of `timestamp`, removed; nil when none arrived.
    func take(_ timestamp: Timestamp) -> [Packet?]? { results.withLock { $0.removeValue(forKey: timestamp) } }
}
