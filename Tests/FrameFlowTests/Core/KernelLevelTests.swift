import Foundation
import Testing

@testable import FrameFlow

/// The run-time choice of kernel level: what the CPU supports bounds what runs, and a thread's
/// own level leaves the process's alone.
struct KernelLevelTests {
    /// The active level never exceeds the supported one; the supported one agrees with the
    /// CPU flags Linux reports (AVX-512 F/CD/BW/DQ/VL; AVX2 with FMA).
    @Test func activeLevelIsWithinWhatTheCPUHas() throws {
        #expect(KernelLevel.active <= KernelLevel.supported)
        #expect(KernelLevel.available.first == .baseline && KernelLevel.available.last == KernelLevel.supported)
        #if arch(x86_64) && os(Linux)
            let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }!.split(separator: " ").map(String.init))
            let expected: KernelLevel =
                flags.isSuperset(of: ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"])
                ? .avx512 : flags.isSuperset(of: ["avx2", "fma", "f16c", "bmi2"]) ? .avx2 : .baseline
            #expect(KernelLevel.supported == expected)
            if ProcessInfo.processInfo.environment["FRAMEFLOW_KERNELS"] == nil { #expect(KernelLevel.active == expected) }
        #endif
    }

    /// `withThreadLevel` sets this thread's level only, clamps to the supported level, and
    /// restores the process's afterwards.
    @Test func threadLevelIsLocalAndRestored() {
        let process = KernelLevel.active
        KernelLevel.withThreadLevel(.baseline) {
            #expect(KernelLevel.current == .baseline)
            #expect(KernelLevel.active == process)
            let seen = SeenLevel()
            Thread {  // another thread keeps the process's level
                seen.level = KernelLevel.current
                seen.done.signal()
            }.start()
            seen.done.wait()
            #expect(seen.level == process)
        }
        #expect(KernelLevel.current == process)
        KernelLevel.withThreadLevel(.avx512) { #expect(KernelLevel.current == min(.avx512, KernelLevel.supported)) }
        #if arch(x86_64)
            #expect(KernelLevel.allCases.map(\.description) == ["baseline", "avx2", "avx512"])
        #endif
    }
}

/// What a second thread saw, handed back through a semaphore.
private final class SeenLevel: @unchecked Sendable {
    var level: KernelLevel?
    let done = DispatchSemaphore(value: 0)
}
