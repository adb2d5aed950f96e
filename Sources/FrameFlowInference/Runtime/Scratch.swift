import FrameFlow

/// Float storage recycled between the ops of a model run and between runs, so that a model
/// run repeatedly (a graph's inference node) stops allocating after its first run.
///
/// Why: a fresh `[Float]` per op output means fresh pages from the kernel for every large
/// tensor (the allocator returns big blocks on free), and page faults plus zeroing cost
/// more than BlazeFace's convolutions themselves when the model runs on a graph worker.
///
/// A run takes a pool from its model (`Model.pools`) and makes it current for its thread with
/// `Scratch.$pool.withValue`; ops ask `Scratch` for output arrays, and the run hands the
/// arrays of values no later op reads back to the pool (the liveness computed at load).
/// Arrays are values: one that is still shared when it is handed back is copied on its next
/// write, so recycling never changes results — at worst it saves nothing.
final class FloatPool: @unchecked Sendable {  // used by one run at a time (Model hands it out)
    private var free: [[Float]] = []
    /// Arrays kept at most; beyond, recycled arrays are dropped.
    private let limit = 64

    /// An array of `n` floats with unspecified contents, from the pool when one fits.
    func take(_ n: Int) -> [Float] {
        // Prefer an array already holding ≥ n elements (shrinking a Float array is free);
        // growing one within its capacity writes zeros over the difference, which for a
        // megabyte im2col buffer cost as much as a small convolution.
        // Among arrays long enough, the shortest (an exact fit leaves the longer ones long);
        // among arrays that must grow, the one that grows least (each zero written costs).
        var best = -1, bestGrows = true
        for (i, a) in free.enumerated() where a.capacity >= n {
            let grows = a.count < n
            if best >= 0 {
                let held = free[best].count
                let better = grows == bestGrows ? (grows ? a.count > held : a.count < held) : bestGrows
                if !better { continue }
            }
            best = i
            bestGrows = grows
        }
        guard best >= 0 else { return [Float](repeating: 0, count: n) }
        // A much larger array is not cut down for a small request: grown back later for a
        // large one, it would write zeros over the difference on every run. A small array is
        // cheap to allocate once.
        if n < 1 << 16 && free[best].capacity > 4 * n { return [Float](unsafeUninitializedCapacity: n) { _, count in count = n } }
        var a = free.remove(at: best)
        if a.count > n {
            a.removeLast(a.count - n)
        } else {
            // Grow within the capacity by copying zeros (a block copy, not an element loop).
            Self.zeroBlock.withUnsafeBufferPointer { z in
                while a.count < n { a.append(contentsOf: UnsafeBufferPointer(rebasing: z[0..<min(z.count, n - a.count)])) }
            }
        }
        return a
    }

    private static let zeroBlock = [Float](repeating: 0, count: 16_384)

    func give(_ a: [Float]) {
        guard a.capacity >= 1024 else { return }
        if free.count >= limit { free.removeFirst() }
        free.append(a)
    }
}

/// Where ops get their output arrays: the current run's `FloatPool`, or fresh arrays when
/// no pool is current (constant folding, direct calls).
enum Scratch {
    @TaskLocal static var pool: FloatPool?

    /// `n` floats whose contents the caller overwrites entirely.
    static func uninitialized(_ n: Int) -> [Float] {
        pool?.take(n) ?? [Float](repeating: 0, count: n)
    }

    /// `n` floats set to `value`.
    static func filled(_ n: Int, _ value: Float = 0) -> [Float] {
        guard let p = pool else { return [Float](repeating: value, count: n) }
        var a = p.take(n)
        a.withUnsafeMutableBufferPointer { $0.update(repeating: value) }
        return a
    }

    /// Hands `a`'s storage back to the current pool and leaves `a` empty.
    static func recycle(_ a: inout [Float]) {
        guard let p = pool else { return }
        p.give(a)
        a = []
    }

    /// `x` mapped through `f` into a pooled array.
    @inline(__always)
    static func map(_ x: [Float], _ f: (Float) -> Float) -> [Float] {
        var out = uninitialized(x.count)
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { O in
                for i in 0..<X.count { O[i] = f(X[i]) }
            }
        }
        return out
    }
}

/// How a run may split an op across threads: `WorkerPool.parallelFor`, a graph's
/// `CalculatorContext.parallelFor`, or anything with that shape. The body may only write
/// memory its range owns.
public struct Parallelism: @unchecked Sendable {  // the closure is only called during the run
    let run: (Int, Int, @escaping (Range<Int>) -> Void) -> Void
    /// Threads the splitter can use (chunks are sized for it).
    public let threads: Int

    /// `parallelFor(count, grain, body)` over `threads` threads.
    public init(threads: Int, _ parallelFor: @escaping (_ count: Int, _ grain: Int, _ body: @escaping (Range<Int>) -> Void) -> Void) {
        self.threads = max(1, threads)
        run = parallelFor
    }

    /// The workers of `pool`, plus the calling thread when it is not one of them (counted
    /// on the thread that makes this: make it where it is used). Outside a graph, a pool of
    /// n − 1 workers gives n threads.
    public init(_ pool: WorkerPool) {
        self.init(threads: pool.threadsWithCaller) { pool.parallelFor($0, grain: $1, $2) }
    }
}

extension Scratch {
    @TaskLocal static var parallelism: Parallelism?

    /// Runs `body` over `0..<count`, split across the current run's threads when `work`
    /// (multiply-adds or element operations in all) reaches `threshold`: 500 k multiply-adds
    /// for matrix products, the memory-bound depthwise and pooling loops less (the caller
    /// counts as one of the threads). The threshold is measured: see docs/performance.md.
    static func parallelFor(_ count: Int, work: Int, threshold: Int = 500_000, _ body: @escaping (Range<Int>) -> Void) {
        guard let p = parallelism, p.threads > 1, count > 1, work >= threshold else {
            body(0..<count)
            return
        }
        p.run(count, max(1, count / p.threads), body)
    }
}
