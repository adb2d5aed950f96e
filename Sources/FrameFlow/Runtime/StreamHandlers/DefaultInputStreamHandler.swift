/// MediaPipe's default input stream handler: a node processes timestamp T once every
/// input either has a packet at T or has a bound past T, so all packets of one timestamp
/// arrive in one call. Back edges never hold a step back.
struct DefaultInputStreamHandler: InputStreamHandler {
    func readyTimestamp(_ inputs: [InputQueue]) -> Timestamp? {
        guard let head = inputs.earliestHead else { return nil }
        for i in inputs.indices where inputs[i].packets.isEmpty && !inputs[i].isBackEdge {
            if inputs[i].bound <= head { return nil }
        }
        return head
    }

    func runsOnBoundChange(_ inputs: [InputQueue]) -> Bool { false }

    var allowsConcurrentSteps: Bool { true }
}
