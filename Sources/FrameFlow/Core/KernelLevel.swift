import CFrameFlowKernels

/// The instruction-set level FrameFlow's innermost loops run at.
///
/// One build carries every level's kernels (the C target `CFrameFlowKernels`, each variant
/// compiled for its instruction set); the highest level the CPU and operating system support
/// is chosen when the program starts. `FRAMEFLOW_KERNELS=baseline|avx2|avx512` in the
/// environment asks for a lower one (a higher one than the CPU has is ignored).
public enum KernelLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// The architecture's baseline: SSE2 on x86-64, NEON on arm64.
    case baseline = 0
    /// AVX2 with FMA (x86-64-v3: Intel since 2013, AMD since 2015).
    case avx2 = 1
    /// AVX-512 F, CD, BW, DQ and VL (x86-64-v4).
    case avx512 = 2

    /// The level the kernels run at in this process.
    public static var active: KernelLevel { KernelLevel(rawValue: Int(ff_kernel_level())) ?? .baseline }

    /// The level kernels called from this thread run at (see `withThreadLevel`).
    public static var current: KernelLevel { KernelLevel(rawValue: Int(ff_kernel_thread_level())) ?? .baseline }

    /// The highest level this machine can execute.
    public static var supported: KernelLevel { KernelLevel(rawValue: Int(ff_kernel_supported_level())) ?? .baseline }

    /// Every level this machine can execute, lowest first.
    public static var available: [KernelLevel] { allCases.filter { $0 <= supported } }

    /// "baseline", "avx2", "avx512" ("neon" for the baseline on arm64).
    public var description: String { String(cString: ff_kernel_level_name(Int32(rawValue))) }

    public static func < (a: KernelLevel, b: KernelLevel) -> Bool { a.rawValue < b.rawValue }

    /// Runs `body` with the kernels called from this thread at `level` (clamped to the supported
    /// one); other threads keep the process's level. For tests that compare the variants.
    public static func withThreadLevel<T>(_ level: KernelLevel, _ body: () throws -> T) rethrows -> T {
        ff_kernel_set_thread_level(Int32(level.rawValue))
        defer { ff_kernel_set_thread_level(-1) }
        return try body()
    }
}
