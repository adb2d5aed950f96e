import CFrameFlowKernels
import Foundation
import FrameFlow

/// The machine's peak single-precision rate at the kernel level FrameFlow runs
/// (`ff_fma_peak_f32`: twelve independent multiply-add chains in registers), the yardstick
/// for a model's GFLOP/s.
enum PeakRate {
    /// GFLOP/s with `threads` threads running the chains at once: each thread's operations over
    /// its own CPU time (so another process on a shared core does not lower the peak), summed;
    /// the best of five trials of about 50 ms.
    static func gflops(threads: Int) -> Double {
        var best = 0.0
        for _ in 0..<5 {
            let rate = Locked(0.0)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                var flops = 0.0
                let start = threadCPUSeconds()
                let v = ff_fma_peak_f32(20_000_000, &flops)
                let seconds = threadCPUSeconds() - start
                rate.withLock { $0 += v.isNaN || seconds <= 0 ? 0 : flops / seconds / 1e9 }
            }
            best = max(best, rate.withLock { $0 })
        }
        return best
    }

    /// The calling thread's CPU time in seconds.
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
