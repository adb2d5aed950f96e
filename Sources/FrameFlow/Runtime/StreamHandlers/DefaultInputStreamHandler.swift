/// MediaPipe's default input stream handler: a node processes timestamp T once every
/// input either has a packet at T or has a bound past T, so all packets of one timestamp
/// arrive in one call. Back edges never hold a step back. A calculator that processes
/// timestamp bounds also runs, with empty inputs, when the bounds settle a timestamp that
/// no packet carries, once per settled timestamp.
struct DefaultInputStreamHandler: InputStreamHandler {
    var processesTimestampBounds = false

    func readyTimestamp(_ node: NodeRuntime) -> Timestamp? { node.synchronizedTimestamp }

    func runsOnBoundChange(_ node: NodeRuntime) -> Bool {
        processesTimestampBounds && node.inputs.contains { $0.boundMoved } && node.synchronizedTimestamp == nil
            && node.settledTimestamp.isRangeValue && node.settledTimestamp > node.lastStepTimestamp
    }

    func boundChangeTimestamp(_ node: NodeRuntime) -> Timestamp { node.settledTimestamp }

    var allowsConcurrentSteps: Bool { true }
}
