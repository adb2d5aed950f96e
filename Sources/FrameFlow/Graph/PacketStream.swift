/// The packets of one graph stream as an async sequence, through a bounded buffer.
///
/// When the buffer is full the graph waits for the consumer (back-pressure, like a queue
/// with the `block` policy), so a slow consumer slows the graph instead of growing memory.
/// Once every copy of the sequence and its iterators is gone, or the consuming task is
/// cancelled, packets are no longer kept and the graph no longer waits.
public struct PacketStream: AsyncSequence, Sendable {
    /// The stream delivers packets.
    public typealias Element = Packet

    let buffer: Buffer
    private let consumer: Consumer

    init(capacity: Int) {
        buffer = Buffer(capacity: Swift.max(1, capacity))
        consumer = Consumer(buffer)
    }

    public func makeAsyncIterator() -> Iterator { Iterator(consumer: consumer) }

    /// An iterator over the stream's packets, in timestamp order; `nil` after the stream closes.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: Consumer
        public mutating func next() async -> Packet? { await consumer.buffer.next() }
    }

    /// Marks the consumer gone when the last sequence or iterator holding it is released.
    final class Consumer: Sendable {
        let buffer: Buffer
        init(_ buffer: Buffer) { self.buffer = buffer }
        deinit { buffer.abandon() }
    }

    /// Producer side: `push` from the graph's workers, `finish` when the stream closes.
    ///
    /// `@unchecked Sendable`: every field is read and written under `lock`.
    final class Buffer: @unchecked Sendable {
        private let lock = ConditionLock()
        private let capacity: Int
        private var items: [Packet] = []
        private var head = 0
        private var finished = false
        private var abandoned = false
        private var waiter: CheckedContinuation<Packet?, Never>?

        init(capacity: Int) { self.capacity = capacity }

        func push(_ packet: Packet) {
            lock.lock()
            while items.count - head >= capacity && !abandoned { lock.wait() }
            if abandoned {
                lock.unlock()
                return
            }
            if let w = waiter {
                waiter = nil
                lock.unlock()
                w.resume(returning: packet)
                return
            }
            items.append(packet)
            lock.unlock()
        }

        func finish() {
            lock.lock()
            finished = true
            let w = waiter
            waiter = nil
            lock.unlock()
            w?.resume(returning: nil)
        }

        func abandon() {
            lock.lock()
            abandoned = true
            items.removeAll()
            head = 0
            let w = waiter
            waiter = nil
            lock.broadcast()
            lock.unlock()
            w?.resume(returning: nil)
        }

        func next() async -> Packet? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Packet?, Never>) in
                    lock.lock()
                    if head < items.count {
                        let p = items[head]
                        head += 1
                        if head == items.count {
                            items.removeAll(keepingCapacity: true)
                            head = 0
                        }
                        lock.signal()
                        lock.unlock()
                        c.resume(returning: p)
                    } else if finished || abandoned || Task.isCancelled {
                        lock.unlock()
                        c.resume(returning: nil)
                    } else {
                        waiter = c
                        lock.unlock()
                    }
                }
            } onCancel: {
                abandon()
            }
        }
    }
}
