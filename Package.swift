// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "FrameFlow",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FrameFlow", targets: ["FrameFlow"]),
        .library(name: "FrameFlowCalculators", targets: ["FrameFlowCalculators"]),
        .library(name: "FrameFlowTesting", targets: ["FrameFlowTesting"]),
        .library(name: "FrameFlowSinks", targets: ["FrameFlowSinks"]),
        .library(name: "FrameFlowMedia", targets: ["FrameFlowMedia"]),
        .library(name: "FrameFlowDisplay", targets: ["FrameFlowDisplay"]),
        .library(name: "FrameFlowInference", targets: ["FrameFlowInference"]),
        .library(name: "FrameFlowML", targets: ["FrameFlowML"]),
        .library(name: "FrameFlowTasks", targets: ["FrameFlowTasks"]),
        .library(name: "FrameFlowMQTT", targets: ["FrameFlowMQTT"]),
        .library(name: "FrameFlowFleet", targets: ["FrameFlowFleet"]),
        .library(name: "FrameFlowHTTP", targets: ["FrameFlowHTTP"]),
        .executable(name: "frameflow", targets: ["frameflow"]),
        .executable(name: "frameflow-bench", targets: ["frameflow-bench"]),
    ],
    targets: [
        // The innermost loops, one variant per instruction-set level, chosen at run time
        // (docs/architecture.md, "Kernels"); everything else is Swift built for the baseline.
        .target(name: "CFrameFlowKernels"),
        .target(name: "FrameFlow", dependencies: ["CFrameFlowKernels"]),
        .target(name: "FrameFlowCalculators", dependencies: ["FrameFlow", "CFrameFlowKernels"]),
        // The public test harness (CalculatorRunner, test images), and the repository's own
        // test helpers (fixture paths and frames, a broker, wire encoders), which are not a product.
        .target(name: "FrameFlowTesting", dependencies: ["FrameFlow"]),
        .target(name: "FrameFlowTestSupport", dependencies: ["FrameFlow", "FrameFlowMedia"]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libavdevice-dev"])]),
        // Output sinks, packet JSON and their errors: no FFmpeg, so MQTT and the window need none.
        .target(name: "FrameFlowSinks", dependencies: ["FrameFlow"]),
        .target(name: "FrameFlowMedia", dependencies: ["FrameFlow", "FrameFlowSinks", "CFFmpeg", "CFrameFlowKernels"]),
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .target(name: "FrameFlowDisplay", dependencies: ["FrameFlow", "FrameFlowSinks", "CSDL2"]),
        // Deflate and CRC-32 for ZIP entries (MediaPipe Tasks bundles, TFLite associated files).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The inference engine: model formats (ONNX, TFLite, Tasks bundles), runtime and operators; no calculator.
        .target(name: "FrameFlowInference", dependencies: ["FrameFlow", "CFrameFlowKernels", "CZlib"]),
        // The ML calculators on the engine. Built-in subgraphs are .pbtxt files embedded in the
        // library (no bundle beside the binary).
        .target(
            name: "FrameFlowML", dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowInference", "CFrameFlowKernels"],
            resources: [.embedInCode("Subgraphs/Graphs")]),
        // MediaPipe Tasks' Swift API (FaceDetector, FaceLandmarker, …) on the Tasks graphs.
        .target(name: "FrameFlowTasks", dependencies: ["FrameFlow", "FrameFlowML"]),
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),  // its pkg-config adds -D_REENTRANT, which SwiftPM refuses
        .target(name: "FrameFlowMQTT", dependencies: ["FrameFlow", "FrameFlowSinks", "CMosquitto"]),
        .target(
            name: "FrameFlowFleet",
            dependencies: ["FrameFlow", "FrameFlowMedia", "FrameFlowMQTT", "FrameFlowCalculators"]),
        // The fleet's HTTP face (REST API, health probes, Prometheus metrics) on libmicrohttpd.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // The web page's files (Web/) are embedded in the library, as the subgraphs are.
        .target(
            name: "FrameFlowHTTP", dependencies: ["FrameFlow", "FrameFlowFleet", "FrameFlowMedia", "CMicroHTTPD"],
            resources: [.embedInCode("Web")]),
        // The command-line parser (declared options, generated help) and `frameflow`'s commands,
        // a library so that tests run the commands in process.
        .target(name: "FrameFlowArguments", dependencies: ["FrameFlow"]),
        .target(
            name: "FrameFlowCommandLine",
            dependencies: [
                "FrameFlowArguments", "FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowDisplay", "FrameFlowML", "FrameFlowMQTT",
                "FrameFlowFleet", "FrameFlowTasks", "FrameFlowHTTP",
            ]),
        .testTarget(
            name: "FrameFlowCommandLineTests",
            dependencies: ["FrameFlowArguments", "FrameFlowCommandLine", "FrameFlowTestSupport", "FrameFlow", "FrameFlowCalculators"]),
        .testTarget(
            name: "FrameFlowMQTTTests",
            dependencies: ["FrameFlowMQTT", "FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowTestSupport", "FrameFlowTesting"]),
        .testTarget(
            name: "FrameFlowFleetTests",
            dependencies: [
                "FrameFlowFleet", "FrameFlowMQTT", "FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowTestSupport",
            ]),
        .testTarget(
            name: "FrameFlowHTTPTests",
            dependencies: ["FrameFlowHTTP", "FrameFlowFleet", "FrameFlow", "FrameFlowCalculators", "FrameFlowML", "FrameFlowTestSupport"]),
        .testTarget(
            name: "FrameFlowInferenceTests", dependencies: ["FrameFlowInference", "FrameFlow", "FrameFlowTesting", "FrameFlowTestSupport"]),
        .testTarget(
            name: "FrameFlowTasksTests",
            dependencies: ["FrameFlowTasks", "FrameFlow", "FrameFlowTestSupport"]),
        .testTarget(
            name: "FrameFlowMLTests",
            dependencies: [
                "FrameFlowML", "FrameFlowInference", "FrameFlow", "FrameFlowCalculators", "FrameFlowMedia", "FrameFlowTesting",
                "FrameFlowTestSupport",
            ]),
        .executableTarget(
            name: "frameflow", dependencies: ["FrameFlowCommandLine", "FrameFlowArguments"]),
        .executableTarget(
            name: "frameflow-bench",
            dependencies: [
                "FrameFlowArguments", "FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowTestSupport", "FrameFlowMedia",
                "FrameFlowML", "CFrameFlowKernels",
                "FrameFlowFleet", "FrameFlowTasks", "FrameFlowHTTP",
            ]),
        .executableTarget(
            name: "hand-tracking", dependencies: ["FrameFlow", "FrameFlowML", "FrameFlowMedia"], path: "Examples/HandTracking"),
        .executableTarget(
            name: "virtual-background", dependencies: ["FrameFlow", "FrameFlowML", "FrameFlowMedia", "FrameFlowDisplay"],
            path: "Examples/VirtualBackground"),
        .executableTarget(
            name: "instafilter", dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowMedia"],
            path: "Examples/Instafilter", exclude: ["warm_film_17.cube"]),
        .testTarget(
            name: "FrameFlowMediaTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowTestSupport", "FrameFlowMedia", "FrameFlowDisplay"]),
        .testTarget(
            name: "FrameFlowTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowTestSupport"]),
        .testTarget(
            name: "FrameFlowCalculatorsTests",
            dependencies: ["FrameFlow", "FrameFlowCalculators", "FrameFlowTesting", "FrameFlowTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
