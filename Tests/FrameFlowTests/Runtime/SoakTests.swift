import FrameFlow
import FrameFlowTestSupport
import Foundation
import Synchronization
import Testing

/// Overload for a long time: a paced synthetic source into a deliberately slow node behind
/// drop-oldest and keep-latest edges. `SOAK_FRAMES` (scripts/soak.sh) sets the length; the
/// test default is short.
@Suite(.serialized) struct SoakTests {
    static var frames: Int { Int(ProcessInfo.processInfo.environment["SOAK_FRAMES"] ?? "") ?? 4_000 }

    /// Whether this process runs the soak alone (scripts/soak.sh): only then is the
    /// process's resident memory the graph's own; under `swift test` other suites allocate
    /// in the same process at the same time.
    static var runsAlone: Bool { ProcessInfo.processInfo.environment["SOAK_FRAMES"] != nil }

    /// The graph's own memory is counted exactly: pixel buffers alive at any moment stay
    /// under the bound the queue sizes give, and the pool never allocates more than that
    /// bound (so nothing grows with the number of frames).
    @Test func memoryStaysFlatAndEveryDropIsCounted() throws {
        let pool = ImagePool(maxFreeBlocksPerSize: 16)
        let graph = try Graph(registry: testRegistry) {
            Settings(maxQueueSize: 4)
            Input("frames")
            Output("out")
            Node(SleepCalculator.self, name: "slow", in: ["frames"], out: ["a"], options: SleepCalculator.Options(microseconds: 600))
                .queue("0", policy: .dropOldest, size: 4)
            Node(SleepCalculator.self, name: "slower", in: ["a"], out: ["out"], options: SleepCalculator.Options(microseconds: 900))
                .queue("0", policy: .keepLatest)
        }
        let delivered = Atomic<Int>(0)
        try graph.observe("out") { _ in delivered.add(1, ordering: .relaxed) }
        try graph.start()
        var atWarmup = 0
        var peakAfter = 0
        var peakLive = 0
        let start = monotonicNanoseconds()
        var nextReport = start
        let alone = Self.runsAlone  // read once: it parses the environment
        /// One line for scripts/soak.sh: time, resident memory, frames in and out, drops.
        func report(_ sent: Int) {
            let st = graph.statistics
            let dropped = st.nodes.reduce(0) { $0 + $1.dropped } + st.framesRejected
            let seconds = Double(monotonicNanoseconds() - start) / 1e9
            print(
                String(
                    format: "soak: %6.1f s  RSS %7.1f MB  frames in %ld, out %ld, dropped %ld, live images %ld", seconds,
                    Double(residentBytes()) / 1_048_576, sent, delivered.load(ordering: .relaxed), dropped, pool.liveBuffers))
            fflush(nil)  // now, not when a piped stdout's buffer fills
        }
        for i in 0..<Self.frames {
            if alone && monotonicNanoseconds() >= nextReport {
                report(i)
                nextReport += 10_000_000_000
            }
            // Real-time pacing at 2000 fps: well above what the slow nodes can take.
            let due = start + UInt64(i) * 500_000
            let now = monotonicNanoseconds()
            if due > now { usleep(UInt32((due - now) / 1000)) }
            var m = try pool.makeImage(width: 64, height: 48, format: .rgba8)
            m.fill(UInt8(i & 255))
            try graph.send(m.freeze(), to: "frames", at: Timestamp(Int64(i) * 500))
            peakLive = max(peakLive, pool.liveBuffers)
            if alone && i == 1_000 { atWarmup = residentBytes() }
            if alone && i > 1_000 && i % 250 == 0 { peakAfter = max(peakAfter, residentBytes()) }
        }
        try graph.closeAllInputStreams()
        #expect(try graph.waitUntilDone(timeout: 30), "no deadlock")
        if alone { report(Self.frames) }
        let stats = graph.statistics
        let slow = try #require(stats.nodes.first { $0.name == "slow" })
        let slower = try #require(stats.nodes.first { $0.name == "slower" })
        // Every frame is processed by "slow" or dropped in front of it; the same downstream.
        #expect(slow.calls + slow.dropped == Self.frames, "slow: \(slow.calls) processed + \(slow.dropped) dropped")
        #expect(slower.calls + slower.dropped == slow.calls)
        #expect(delivered.load(ordering: .relaxed) == slower.calls)
        #expect(slow.dropped > 0)
        // 1 held by the sender + 4 in the drop-oldest queue + 1 in "slow" + 1 in the
        // keep-latest queue + 1 in "slower" + 4 (+1, block is a soft bound) in the observer's
        // queue + 1 in the callback = 14.
        #expect(peakLive <= 14, "live images \(peakLive)")
        #expect(pool.statistics.allocations <= 14, "pixel buffers allocated: \(pool.statistics)")
        if Self.runsAlone {
            #expect(peakAfter <= atWarmup + atWarmup / 10, "resident memory \(peakAfter) vs \(atWarmup) at frame 1000")
        }
        #expect(pool.liveBuffers == 0)
    }

    @Test func hundredCancelsUnderLoadEachReturnWithinASecond() throws {
        let pool = ImagePool(maxFreeBlocksPerSize: 4)
        var seed: UInt64 = 42
        for round in 0..<100 {
            let graph = try Graph(registry: testRegistry) {
                Settings(maxQueueSize: 0)
                Input("frames")
                Output("out")
                Node(SleepCalculator.self, in: ["frames"], out: ["out"], options: SleepCalculator.Options(microseconds: 300))
            }
            try graph.start()
            seed = seed &* 6_364_136_223_846_793_005 &+ 1
            let sendCount = 20 + Int(seed >> 58)
            for i in 0..<sendCount {
                var m = try pool.makeImage(width: 32, height: 32, format: .gray8)
                m.fill(1)
                try graph.send(m.freeze(), to: "frames", at: Timestamp(Int64(i)))
            }
            usleep(UInt32(seed >> 54) % 5000)  // a random moment while frames are queued
            let t0 = monotonicNanoseconds()
            graph.cancel()
            #expect(try graph.waitUntilDone(timeout: 1), "round \(round): cancel must finish within a second")
            #expect(Double(monotonicNanoseconds() - t0) / 1e9 < 1)
        }
        #expect(pool.liveBuffers == 0, "cancelled runs must release every image")
    }
}
