/// MediaPipe's `SyncSetInputStreamHandler`: the inputs are split into sets, each set is
/// synchronized as by the default policy on its own, and a step carries the packets of the
/// set with the earliest ready timestamp (the other inputs arrive empty). Inputs named in no
/// set form one more set.
struct SyncSetInputStreamHandler: InputStreamHandler {
    /// Input positions of each set.
    let sets: [[Int]]

    /// - Parameters:
    ///   - sets: each set's inputs as `TAG`, `TAG:index` or `:index` (untagged).
    ///   - ports: the node's inputs, by position.
    init(sets: [[String]], ports: [StreamRef]) throws {
        var used = Set<Int>()
        var resolved: [[Int]] = []
        for set in sets {
            var positions: [Int] = []
            for tagIndex in set {
                let parts = tagIndex.split(separator: ":", omittingEmptySubsequences: false)
                let tag = String(parts[0])
                let index = parts.count > 1 ? Int(parts[1]) : 0
                guard parts.count <= 2, let index,
                    let position = ports.firstIndex(where: { $0.tag == tag && $0.index == index })
                else {
                    throw GraphError(.invalidPort, "SyncSetInputStreamHandler: the node has no input '\(tagIndex)'")
                }
                guard used.insert(position).inserted else {
                    throw GraphError(.invalidPort, "SyncSetInputStreamHandler: input '\(tagIndex)' is in more than one sync set")
                }
                positions.append(position)
            }
            resolved.append(positions)
        }
        let rest = ports.indices.filter { !used.contains($0) }
        if !rest.isEmpty { resolved.append(rest) }
        self.sets = resolved
    }

    func readyTimestamp(_ node: NodeRuntime) -> Timestamp? { readySet(node)?.timestamp }

    func inputsToTake(at timestamp: Timestamp, _ node: NodeRuntime) -> [Int]? {
        readySet(node).map { sets[$0.set] } ?? []
    }

    /// The set with the earliest ready timestamp (the first such set on a tie).
    private func readySet(_ node: NodeRuntime) -> (set: Int, timestamp: Timestamp)? {
        var best: (set: Int, timestamp: Timestamp)?
        for (k, set) in sets.enumerated() {
            if let t = node.synchronizedTimestamp(set), best.map({ t < $0.timestamp }) ?? true { best = (k, t) }
        }
        return best
    }
}
