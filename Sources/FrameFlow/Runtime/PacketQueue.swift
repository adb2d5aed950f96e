/// A FIFO of packets that reuses its storage (no allocation once it has grown). The ring's
/// size is a power of two so that wrapping is a mask, not a division.
struct PacketQueue {
    private var storage: [Packet] = []
    private var head = 0
    private var mask = -1
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    var first: Packet? { count == 0 ? nil : storage[head] }

    /// The first packet's timestamp, without copying the packet.
    var firstTimestamp: Timestamp? { count == 0 ? nil : storage[head].timestamp }

    mutating func append(_ p: Packet) {
        if count == storage.count {
            // Grow: unroll the ring into a bigger array.
            var bigger: [Packet] = []
            bigger.reserveCapacity(Swift.max(4, storage.count * 2))
            for i in 0..<count { bigger.append(storage[(head + i) & mask]) }
            let filler = Packet(emptyAt: .unset)
            let size = Swift.max(4, storage.count * 2)
            while bigger.count < size { bigger.append(filler) }
            storage = bigger
            mask = size - 1
            head = 0
        }
        storage[(head &+ count) & mask] = p
        count += 1
    }

    @discardableResult mutating func removeFirst() -> Packet {
        let p = storage[head]
        storage[head] = Packet(emptyAt: .unset)
        head = (head &+ 1) & mask
        count -= 1
        return p
    }

    /// The timestamp of the `n`-th newest packet (1: the newest); `n` in 1...count.
    func timestamp(fromNewest n: Int) -> Timestamp { storage[(head &+ count &- n) & mask].timestamp }

    mutating func removeAll() {
        while count > 0 { removeFirst() }
    }
}

/// An input of a node: queued packets, the timestamp bound, and the queue's policy.
struct InputQueue {
    var packets = PacketQueue()
    /// No future packet will have a timestamp below this.
    var bound: Timestamp = .unstarted
    var capacity: Int
    var policy: QueuePolicy
    var isBackEdge: Bool
    var stream: Int
    var drops = 0
    /// The bound moved without a packet since the node last ran (immediate policy).
    var boundMoved = false
    var maxDepth = 0

    /// The earliest timestamp this input may still deliver.
    var frontier: Timestamp { packets.firstTimestamp ?? bound }
    var isDone: Bool { packets.isEmpty && bound == .done }
    var isFull: Bool { packets.count >= capacity }
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
