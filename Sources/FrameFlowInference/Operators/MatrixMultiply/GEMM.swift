import CFrameFlowKernels
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Single-precision matrix products, row-major: `C = A·B + beta·C` with A m×k and B k×n
/// (each optionally transposed in memory).
///
/// Uses the system's OpenBLAS when it is installed (Debian: `libopenblas0`), loaded with
/// `dlopen` on first use rather than linked, for two reasons: OpenBLAS picks its kernels
/// for the CPU while it loads, and a Debian build that does not know the CPU falls back to
/// a slow generic kernel unless `OPENBLAS_CORETYPE` is set *before* the load (CFrameFlowKernels
/// sets it before `main`, and loads a private copy with `dlmopen` when another library has
/// loaded OpenBLAS already); and FrameFlowML stays buildable and correct on a machine without
/// OpenBLAS, where a plain Swift loop (auto-vectorised) takes over.
/// `FRAMEFLOW_BLAS=off` forces the Swift loop (used by the tests to check both).
enum GEMM {
    private typealias SgemmFn =
        @convention(c) (
            Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
            UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
        ) -> Void
    private typealias SetThreadsFn = @convention(c) (Int32) -> Void
    private typealias CoreNameFn = @convention(c) () -> UnsafePointer<CChar>?

    private struct Library: @unchecked Sendable {
        var sgemm: SgemmFn
        var setThreads: SetThreadsFn?
        var coreName: String
    }

    private static let library: Library? = load()

    /// What runs matrix products: "OpenBLAS (core)" or "Swift".
    static var backend: String { library.map { "OpenBLAS (\($0.coreName))" } ?? "Swift" }

    /// Threads OpenBLAS may use inside one product (1 by default: FrameFlow runs graphs
    /// on its own workers).
    static func setThreads(_ n: Int) { library?.setThreads?(Int32(max(1, n))) }

    private static func load() -> Library? {
        if ProcessInfo.processInfo.environment["FRAMEFLOW_BLAS"] == "off" { return nil }
        for name in ["libopenblas.so.0", "libopenblas.so", "libopenblas.dylib"] {
            guard var h = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            // Loaded before main by another library (FFmpeg's pocketsphinx links OpenBLAS), it
            // chose its kernels without OPENBLAS_CORETYPE: CFrameFlowKernels loaded a private
            // copy then (Blas.c), while the process had one thread.
            if let own = ff_blas_private_handle() { h = own }
            guard let f = dlsym(h, "cblas_sgemm") else { continue }
            let setThreads = dlsym(h, "openblas_set_num_threads").map { unsafeBitCast($0, to: SetThreadsFn.self) }
            setThreads?(1)
            return Library(sgemm: unsafeBitCast(f, to: SgemmFn.self), setThreads: setThreads, coreName: coreName(h) ?? "?")
        }
        return nil
    }

    /// The kernels OpenBLAS at `handle` chose ("SkylakeX", "Prescott", …).
    private static func coreName(_ handle: UnsafeMutableRawPointer) -> String? {
        dlsym(handle, "openblas_get_corename").flatMap { unsafeBitCast($0, to: CoreNameFn.self)() }.map { String(cString: $0) }
    }

    /// C[m×n] = op(A)·op(B) + beta·C. `lda`, `ldb`, `ldc` are row strides as stored.
    static func multiply(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, transA: Bool = false,
        b: UnsafePointer<Float>, ldb: Int, transB: Bool = false, beta: Float = 0,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        if m == 0 || n == 0 { return }
        if k == 0 {
            for i in 0..<m { for j in 0..<n { c[i * ldc + j] = beta == 0 ? 0 : beta * c[i * ldc + j] } }
            return
        }
        if let lib = library, m < Int(Int32.max), n < Int(Int32.max), k < Int(Int32.max) {
            lib.sgemm(101, transA ? 112 : 111, transB ? 112 : 111, Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
            return
        }
        swiftMultiply(m: m, n: n, k: k, a: a, lda: lda, transA: transA, b: b, ldb: ldb, transB: transB, beta: beta, c: c, ldc: ldc)
    }

    /// The portable product: rows of C accumulated as a·row of B, which the compiler
    /// vectorises; a transposed B is first copied to row-major.
    static func swiftMultiply(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, transA: Bool,
        b: UnsafePointer<Float>, ldb: Int, transB: Bool, beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        var bt: [Float] = []
        var bp = b, bstride = ldb
        if transB {
            bt = [Float](repeating: 0, count: k * n)
            for j in 0..<n { for p in 0..<k { bt[p * n + j] = b[j * ldb + p] } }
            bstride = n
        }
        bt.withUnsafeBufferPointer { T in
            if transB { bp = T.baseAddress! }
            for i in 0..<m {
                let crow = c + i * ldc
                if beta == 0 { crow.update(repeating: 0, count: n) } else if beta != 1 { for j in 0..<n { crow[j] *= beta } }
                for p in 0..<k {
                    let av = transA ? a[p * lda + i] : a[i * lda + p]
                    let brow = bp + p * bstride
                    for j in 0..<n { crow[j] += av * brow[j] }
                }
            }
        }
    }
}
