/// MediaPipe's default input stream handler: a node processes timestamp T once every
/// input either has a packet at T or has a bound past T, so all packets of one timestamp
/// arrive in one call. Back edges never hold a step back. A calculator that processes
/// timestamp bounds also runs, with empty inputs, when the bounds settle a timestamp that
/// no packet carries.
struct DefaultInputStreamHandler: InputStreamHandler {
    var processesTimestampBounds = false

    func readyTimestamp(_ inputs: [InputQueue]) -> Timestamp? { inputs.synchronizedTimestamp() }

    func runsOnBoundChange(_ inputs: [InputQueue]) -> Bool {
        processesTimestampBounds && inputs.contains { $0.boundMoved } && inputs.synchronizedTimestamp() == nil
            && inputs.settledTimestamp.isRangeValue
    }

    func boundChangeTimestamp(_ inputs: [InputQueue]) -> Timestamp { inputs.settledTimestamp }

    var allowsConcurrentSteps: Bool { true }
}
