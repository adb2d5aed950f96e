import FrameFlow
import Testing

@testable import FrameFlowInference

/// The float storage pool behind model runs (Scratch.swift).
@Suite struct ScratchTests {
    /// A pool holding NaN-filled arrays of several sizes, for kernels' tests: scratch memory
    /// a kernel reads before writing shows up as NaN in its result (without a pool, scratch
    /// arrays come zeroed and would hide a missing zero fill).
    static func poisonedPool() -> FloatPool {
        let pool = FloatPool()
        for n in [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18] { pool.give([Float](repeating: .nan, count: n)) }
        return pool
    }

    @Test func recycledStorageIsReusedAtTheRequestedSize() {
        let pool = FloatPool()
        var a = [Float](repeating: 1, count: 10_000)
        let address = a.withUnsafeBufferPointer { $0.baseAddress }
        pool.give(a)
        a = []
        let smaller = pool.take(6_000)
        #expect(smaller.count == 6_000)
        #expect(smaller.withUnsafeBufferPointer { $0.baseAddress } == address, "the same storage came back")
        pool.give(smaller)
        let larger = pool.take(9_000)  // grows within the capacity; new elements are zero
        #expect(larger.count == 9_000 && larger[6_000..<9_000].allSatisfy { $0 == 0 })
        #expect(pool.take(50_000).count == 50_000, "too big for anything pooled: fresh storage")
    }

    @Test func takesTheSmallestFit() {
        let pool = FloatPool()
        pool.give([Float](repeating: 0, count: 40_000))
        pool.give([Float](repeating: 0, count: 5_000))
        #expect(pool.take(4_000).capacity < 40_000)
    }

    /// The shortest array long enough is taken, even with a larger capacity than a longer one
    /// (the longer one stays long for its own size, so the next run's same requests need no
    /// growing); when every array must grow, the longest one grows (fewest zeros written).
    @Test func takesTheExactFitThenGrowsTheLongest() {
        func array(count: Int, capacity: Int) -> [Float] {
            var a = [Float]()
            a.reserveCapacity(capacity)
            a.append(contentsOf: repeatElement(0, count: count))
            return a
        }
        func address(_ a: [Float]) -> UnsafePointer<Float>? { a.withUnsafeBufferPointer { $0.baseAddress } }
        let pool = FloatPool()
        let exact = array(count: 6_000, capacity: 20_000), longer = array(count: 8_000, capacity: 8_000)
        let (exactAddress, longerAddress) = (address(exact), address(longer))
        pool.give(longer)
        pool.give(exact)
        #expect(address(pool.take(6_000)) == exactAddress)
        #expect(address(pool.take(8_000)) == longerAddress)
        var long = array(count: 5_000, capacity: 12_000)
        let longAddress = address(long)
        pool.give(array(count: 1_000, capacity: 9_000))
        pool.give(long)
        long = []  // the pool's copy is then unique: it grows in place
        let grown = pool.take(7_000)
        #expect(address(grown) == longAddress && grown.count == 7_000 && grown[5_000...].allSatisfy { $0 == 0 })
    }

    @Test func sharedStorageHandedBackIsNeverWrittenThrough() {
        // Arrays are values: a recycled array still referenced elsewhere is copied on write.
        let pool = FloatPool()
        let kept = [Float](repeating: 7, count: 4_096)
        pool.give(kept)
        Scratch.$pool.withValue(pool) {
            let filled = Scratch.filled(4_096, 3)
            #expect(filled.allSatisfy { $0 == 3 })
        }
        #expect(kept.allSatisfy { $0 == 7 })
    }

    @Test func withoutAPoolOpsGetFreshArrays() {
        #expect(Scratch.filled(5, 2) == [2, 2, 2, 2, 2])
        #expect(Scratch.map([1, 2, 3]) { $0 * 2 } == [2, 4, 6])
        var a: [Float] = [1, 2]
        Scratch.recycle(&a)
        #expect(a == [1, 2], "nothing to hand back to")
    }

    @Test func parallelForCoversTheRangeOnce() {
        let workers = WorkerPool(threads: 2, name: "test.scratch")
        defer { workers.shutdown() }
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: 1_000)
        hits.initialize(repeating: 0)
        defer { hits.deallocate() }
        Scratch.$parallelism.withValue(Parallelism(workers)) {
            Scratch.parallelFor(1_000, work: 10_000_000) { r in for i in r { hits[i] += 1 } }
        }
        #expect(hits.allSatisfy { $0 == 1 })
    }
}
