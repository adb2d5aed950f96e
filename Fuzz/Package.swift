// swift-tools-version:6.0
// libFuzzer targets for every FrameFlow parser. Built only by scripts/fuzz.sh, which passes
// -sanitize=fuzzer,address (these targets have no main of their own).
import PackageDescription

let package = Package(
    name: "FrameFlowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "FrameFlow", path: "..")],
    targets: [
        .target(name: "FuzzSupport"),
        // What the graph fuzzers and the model fuzzers each share.
        .target(
            name: "GraphFuzzSupport",
            dependencies: [.product(name: "FrameFlow", package: "FrameFlow"), .product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .target(
            name: "ModelFuzzSupport",
            dependencies: [.product(name: "FrameFlow", package: "FrameFlow"), .product(name: "FrameFlowInference", package: "FrameFlow")]),
        .executableTarget(
            name: "fuzz-graph",
            dependencies: [
                "FuzzSupport", "GraphFuzzSupport", .product(name: "FrameFlow", package: "FrameFlow"),
                .product(name: "FrameFlowCalculators", package: "FrameFlow"),
            ]),
        .executableTarget(
            name: "fuzz-binarygraph",
            dependencies: [
                "FuzzSupport", "GraphFuzzSupport", .product(name: "FrameFlow", package: "FrameFlow"),
                .product(name: "FrameFlowCalculators", package: "FrameFlow"),
            ]),
        .executableTarget(name: "fuzz-cube", dependencies: ["FuzzSupport", .product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-cascade", dependencies: ["FuzzSupport", .product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-hog", dependencies: ["FuzzSupport", .product(name: "FrameFlowCalculators", package: "FrameFlow")]),
        .executableTarget(
            name: "fuzz-onnx", dependencies: ["FuzzSupport", "ModelFuzzSupport", .product(name: "FrameFlowInference", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-fleet", dependencies: ["FuzzSupport", .product(name: "FrameFlowFleet", package: "FrameFlow")]),
        .executableTarget(
            name: "fuzz-tflite", dependencies: ["FuzzSupport", "ModelFuzzSupport", .product(name: "FrameFlowInference", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-bundle", dependencies: ["FuzzSupport", .product(name: "FrameFlowInference", package: "FrameFlow")]),
        .executableTarget(name: "fuzz-batchlist", dependencies: ["FuzzSupport", .product(name: "FrameFlowFleet", package: "FrameFlow")]),
        // POST /api/cameras bodies: a camera block as text and as JSON (FrameFlowHTTP's own converter).
        .executableTarget(
            name: "fuzz-camerabody",
            dependencies: [
                "FuzzSupport", .product(name: "FrameFlowFleet", package: "FrameFlow"), .product(name: "FrameFlowHTTP", package: "FrameFlow"),
            ]),
        // Random option values for every registered calculator (no model, file or network).
        .executableTarget(
            name: "fuzz-options",
            dependencies: [
                "FuzzSupport", .product(name: "FrameFlow", package: "FrameFlow"), .product(name: "FrameFlowCalculators", package: "FrameFlow"),
                .product(name: "FrameFlowML", package: "FrameFlow"), .product(name: "FrameFlowMedia", package: "FrameFlow"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
