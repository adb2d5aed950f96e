// swift-tools-version:6.0
import Foundation
import PackageDescription

// The pixel and tensor kernels are plain Swift loops that the compiler vectorises; on x86-64
// they are built for Haswell-class CPUs (AVX2 + FMA: x86-64-v3, every x86 CPU since 2013-2015) instead of the
// SSE2 baseline, which doubles the vector width. FRAMEFLOW_PORTABLE=1 builds for the
// baseline (an old CPU, or a binary to ship to unknown machines). See docs/architecture.md.
#if arch(x86_64)
    let vectorSettings: [SwiftSetting] =
        ProcessInfo.processInfo.environment["FRAMEFLOW_PORTABLE"] == "1" ? [] : [.unsafeFlags(["-target-cpu", "haswell"])]
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
        .target(name: "FrameFlowML", dependencies: ["FrameFlow", "FrameFlowCalculators"], swiftSettings: vectorSettings),
        .testTarget(name: "FrameFlowMLTests", dependencies: ["FrameFlowML", "FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
        .executableTarget(name: "frameflow", dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowDisplay", "FrameFlowML"]),
        .executableTarget(
            name: "frameflow-bench",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowMedia", "FrameFlowML"]),
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
