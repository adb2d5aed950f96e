// swift-tools-version:6.0
import Foundation
import PackageDescription

// The pixel and tensor kernels are plain Swift loops that the compiler vectorises; on x86-64
// they are built for the instruction set of the machine that builds them, like OpenCV's and
// onnxruntime's run-time dispatch picks theirs: AVX-512 (x86-64-v4: F, CD, BW, DQ, VL) where
// /proc/cpuinfo lists it — then the matrix-product tiles use 16-lane registers
// (`FRAMEFLOW_AVX512`) — else Haswell-class AVX2 + FMA (x86-64-v3, every x86 CPU since
// 2013-2015), never the SSE2 baseline, which halves the vector width. FRAMEFLOW_AVX512=0
// builds the AVX2 version on an AVX-512 machine; FRAMEFLOW_PORTABLE=1 builds for the baseline
// (an old CPU, or a binary to ship to unknown machines). See docs/architecture.md.
#if arch(x86_64)
    let environment = ProcessInfo.processInfo.environment
    let cpuFlags: Set<Substring> = {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return [] }
        return Set(line.split(separator: " "))
    }()
    let hasAVX512 = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy { cpuFlags.contains(Substring($0)) }
    let vectorSettings: [SwiftSetting] =
        environment["FRAMEFLOW_PORTABLE"] == "1"
        ? []
        : hasAVX512 && environment["FRAMEFLOW_AVX512"] != "0"
            ? [.unsafeFlags(["-target-cpu", "skylake-avx512"]), .define("FRAMEFLOW_AVX512")]
            : [.unsafeFlags(["-target-cpu", "haswell"])]
#else
    let vectorSettings: [SwiftSetting] = []
#endif

let package = Package(
    name: "FrameFlow",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FrameFlow", targets: ["FrameFlow"]),
        .library(name: "FrameFlowCalculators", targets: ["FrameFlowCalculators"]),
        .library(name: "FrameFlowTesting", targets: ["FrameFlowTesting"]),
        .library(name: "FrameFlowMedia", targets: ["FrameFlowMedia"]),
        .library(name: "FrameFlowDisplay", targets: ["FrameFlowDisplay"]),
        .library(name: "FrameFlowML", targets: ["FrameFlowML"]),
        .executable(name: "frameflow", targets: ["frameflow"]),
        .executable(name: "frameflow-bench", targets: ["frameflow-bench"]),
    ],
    targets: [
        .target(name: "FrameFlow", swiftSettings: vectorSettings),
        .target(name: "FrameFlowCalculators", dependencies: ["FrameFlow"], swiftSettings: vectorSettings),
        .target(name: "FrameFlowTesting", dependencies: ["FrameFlow"]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libavdevice-dev"])]),
        .target(name: "FrameFlowMedia", dependencies: ["FrameFlow", "CFFmpeg"]),
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .target(name: "FrameFlowDisplay", dependencies: ["FrameFlow", "FrameFlowMedia", "CSDL2"]),
        .target(name: "CFrameFlowSupport"),
        .target(name: "FrameFlowML", dependencies: ["FrameFlow", "FrameFlowCalculators", "CFrameFlowSupport"], swiftSettings: vectorSettings),
        .testTarget(name: "FrameFlowMLTests", dependencies: ["FrameFlowML", "FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowTesting"]),
        .executableTarget(name: "frameflow", dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowDisplay", "FrameFlowML"]),
        .executableTarget(
            name: "frameflow-bench",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowMedia", "FrameFlowML"]),
        .executableTarget(
            name: "hand-tracking", dependencies: ["FrameFlow", "FrameFlowML", "FrameFlowMedia"], path: "Examples/HandTracking"),
        .executableTarget(
            name: "instafilter", dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowMedia"],
            path: "Examples/Instafilter", exclude: ["warm_film_17.cube"]),
        .testTarget(
            name: "FrameFlowMediaTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowMedia", "FrameFlowDisplay"]),
        .testTarget(
            name: "FrameFlowTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
        .testTarget(
            name: "FrameFlowCalculatorsTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
