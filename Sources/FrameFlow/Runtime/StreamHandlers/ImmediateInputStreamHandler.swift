/// MediaPipe's `ImmediateInputStreamHandler`: a node processes each packet as soon as it
/// arrives, without waiting for the other inputs (the earliest head first), and runs with no
/// packet when an input's bound moves, so it can pass the bound on (flow limiters, gates).
struct ImmediateInputStreamHandler: InputStreamHandler {
    func readyTimestamp(_ node: NodeRuntime) -> Timestamp? { node.earliestHead }

    func runsOnBoundChange(_ node: NodeRuntime) -> Bool {
        node.inputs.contains { $0.boundMoved && $0.packets.isEmpty }
    }
}
