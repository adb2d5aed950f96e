// swift-tools-version:6.0
// libFuzzer targets for every FrameFlow parser. Built only by scripts/fuzz.sh, which passes
// -sanitize=fuzzer,address (these targets have no main of their own).
import PackageDescription

let package = Package(
    name: "FrameFlowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "FrameFlow", path: "..")],
    targets: [
        .executableTarget(name: "fuzz-graph", dependencies: [.product(name: "FrameFlow", package: "FrameFlow"), .product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-cube", dependencies: [.product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-cascade", dependencies: [.product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-onnx", dependencies: [.product(name: "FrameFlowML", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-tflite", dependencies: [.product(name: "FrameFlowML", package: "FrameFlow")]),
    ],
    swiftLanguageModes: [.v6]
)
