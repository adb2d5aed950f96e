// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "FrameFlow",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FrameFlow", targets: ["FrameFlow"]),
        .library(name: "FrameFlowCalculators", targets: ["FrameFlowCalculators"]),
        .library(name: "FrameFlowTesting", targets: ["FrameFlowTesting"]),
        .executable(name: "frameflow", targets: ["frameflow"]),
        .executable(name: "frameflow-bench", targets: ["frameflow-bench"]),
    ],
    targets: [
        .target(name: "FrameFlow"),
        .target(name: "FrameFlowCalculators", dependencies: ["FrameFlow"]),
        .target(name: "FrameFlowTesting", dependencies: ["FrameFlow"]),
        .executableTarget(name: "frameflow", dependencies: ["FrameFlow", "FrameFlowCalculators"]),
        .executableTarget(
            name: "frameflow-bench",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
        .testTarget(
            name: "FrameFlowTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
        .testTarget(
            name: "FrameFlowCalculatorsTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
