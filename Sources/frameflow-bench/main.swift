import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Foundation

/// `frameflow-bench`: FrameFlow against reference tools on the same input, in one run,
/// printed as ratios (FrameFlow time / reference time; below 1.0 FrameFlow is faster).
///
/// usage: frameflow-bench [edges] [overhead] [media] [filters] [haar] [models] [blazeface] [mediapipe] [fleet] [--quick]
let args = Set(CommandLine.arguments.dropFirst())
let quick = args.contains("--quick")
let all = args.subtracting(["--quick"]).isEmpty
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
/// Workers for the "all threads" rows run from this (main) thread: one fewer than the cores,
/// the caller taking chunks too, as onnxruntime's intra_op_num_threads, LiteRT's num_threads
/// and OpenCV's setNumThreads count theirs.
let callerHelpers = WorkerPool(threads: max(1, ProcessInfo.processInfo.activeProcessorCount - 1), name: "frameflow.bench")

/// Median wall time of `body` in milliseconds.
func medianMilliseconds(iterations: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var times: [Double] = []
    for _ in 0..<iterations {
        let t = monotonicNanoseconds()
        try body()
        times.append(Double(monotonicNanoseconds() - t) / 1e6)
    }
    times.sort()
    return times[times.count / 2]
}

/// Runs a command; returns its standard output, or nil when it cannot run.
func run(_ executable: String, _ arguments: [String]) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [executable] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
}

func row(_ name: String, _ ours: Double, _ reference: Double?, unit: String, refName: String) {
    let r = reference.map { String(format: "%.2f", ours / $0) } ?? "n/a"
    let refText = reference.map { String(format: "%10.3f %@", $0, unit) } ?? "           n/a"
    let padded = name.padding(toLength: 52, withPad: " ", startingAt: 0)
    print(padded + String(format: "%10.3f %@", ours, unit) + "  " + refText + "  ratio " + r + "  (vs \(refName))")
}

/// Up to `count` frames of `clip` scaled to `width` × `height` as rgb8 images, decoded by the
/// ffmpeg tool into `raw` (which the Python references read too); nil without ffmpeg or with
/// fewer than ten frames.
func clipFrames(_ clip: String, width w: Int, height h: Int, count: Int, into raw: URL) throws -> [ImageFrame]? {
    guard
        run(
            "ffmpeg",
            ["-v", "error", "-y", "-i", clip, "-vf", "scale=\(w):\(h)", "-frames:v", "\(count)", "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
            != nil,
        let bytes = try? Data(contentsOf: raw), bytes.count >= w * h * 3 * 10
    else { return nil }
    let frameBytes = w * h * 3
    return try (0..<(bytes.count / frameBytes)).map { k in
        let buffer = ImageBuffer(byteCount: frameBytes)
        bytes.withUnsafeBytes { buffer.baseAddress.copyMemory(from: $0.baseAddress! + k * frameBytes, byteCount: frameBytes) }
        return try ImageFrame(width: w, height: h, format: .rgb8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: w * 3, rows: h)])
    }
}

print("frameflow-bench — \(ProcessInfo.processInfo.activeProcessorCount) cores; ratio = FrameFlow / reference (≤ 1.0: FrameFlow as fast or faster)")

// (a) Luminance + Sobel, 1920×1080 RGBA, one thread, against OpenCV.
if all || args.contains("edges") {
    let (w, h) = (1920, 1080)
    let frame = try TestImages.random(width: w, height: h, format: .rgba8, seed: 7)
    let pool = ImagePool()
    let iterations = quick ? 5 : 30
    let ours = try medianMilliseconds(iterations: iterations) {
        _ = try SobelEdgesCalculator.edges(try LuminanceCalculator.luminance(frame, pool: pool), pool: pool)
    }
    let lumaOnly = try medianMilliseconds(iterations: iterations) { _ = try LuminanceCalculator.luminance(frame, pool: pool) }
    // The memory-bandwidth floor: copying the frame once.
    let bytes = frame.planes[0].bytesPerRow * h
    let dst = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    defer { dst.deallocate() }
    let copy = medianMilliseconds(iterations: iterations) { dst.copyMemory(from: frame.planes[0].baseAddress, byteCount: bytes) }
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-bench-\(getpid()).rgba")
    try Data(frame.packedBytes()).write(to: raw)
    defer { try? FileManager.default.removeItem(at: raw) }
    let script = repoRoot.appendingPathComponent("scripts/bench/opencv_edges.py").path
    let cv = run("python3", [script, raw.path, "\(w)", "\(h)", "\(iterations)"]).flatMap {
        Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    print("\n(a) Luminance + Sobel on 1920×1080 RGBA, one thread (median of \(iterations))")
    row("Luminance + SobelEdges", ours, cv, unit: "ms", refName: "OpenCV cvtColor+Sobel dx,dy+magnitude")
    row("  of which Luminance", lumaOnly, nil, unit: "ms", refName: "-")
    row("Luminance + SobelEdges vs one frame copy", ours, copy, unit: "ms", refName: "memcpy of the frame (floor)")
    if cv == nil { print("  (OpenCV reference unavailable: pip install opencv-python-headless==4.14.0.94)") }
}

// (b) Per-packet, per-node overhead: source → 10 × PassThrough → sink.
if all || args.contains("overhead") {
    let small = quick ? 20_000 : 50_000
    let large = quick ? 120_000 : 400_000
    let elements = 12.0  // source + 10 pass-through + sink, as fakesrc + 10 identity + fakesink

    func ffChain(_ n: Int, threads: Int) throws -> Double {
        var o = CounterSource.Options()
        o.count = n
        let graph = try Graph {
            Settings(numThreads: threads)
            Output("out")
            Node(CounterSource.self, in: [], out: ["s0"], options: o)
            for k in 0..<10 { Node(PassThroughCalculator.self, name: "p\(k)", in: "s\(k)", out: k == 9 ? "out" : "s\(k + 1)") }
        }
        let t = monotonicNanoseconds()
        try graph.start()
        try graph.waitUntilDone()
        return Double(monotonicNanoseconds() - t) / 1e9
    }
    func ffSend(_ n: Int) throws -> Double {
        let graph = try Graph {
            Input("in")
            Output("out")
            for k in 0..<10 { Node(PassThroughCalculator.self, name: "p\(k)", in: k == 0 ? "in" : "s\(k)", out: k == 9 ? "out" : "s\(k + 1)") }
        }
        let t = monotonicNanoseconds()
        try graph.start()
        for i in 0..<n { try graph.send(i, to: "in", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return Double(monotonicNanoseconds() - t) / 1e9
    }
    func gst(_ n: Int) -> Double? {
        let t = monotonicNanoseconds()
        var a = ["-q", "fakesrc", "num-buffers=\(n)"]
        for _ in 0..<10 { a += ["!", "identity"] }
        a += ["!", "fakesink", "sync=false"]
        guard run("gst-launch-1.0", a) != nil else { return nil }
        return Double(monotonicNanoseconds() - t) / 1e9
    }
    func perElement(_ f: (Int) throws -> Double?) rethrows -> Double? {
        // Median of three (large − small) differences removes start-up cost.
        var v: [Double] = []
        for _ in 0..<3 {
            guard let a = try f(small), let b = try f(large) else { return nil }
            v.append((b - a) / Double(large - small) / elements * 1e9)
        }
        return v.sorted()[1]
    }
    let g = perElement(gst)
    let one = try perElement { try ffChain($0, threads: 1) }!
    let two = try perElement { try ffChain($0, threads: 2) }!
    let sent = try perElement { try ffSend($0) }!
    print("\n(b) Graph overhead per packet per node, chain of 10 pass-through nodes")
    row("source node → 10 × PassThrough, 1 worker", one, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
    row("source node → 10 × PassThrough, 2 workers", two, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
    row("Graph.send from the app → 10 × PassThrough", sent, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
    if g == nil { print("  (GStreamer reference unavailable: apt-get install gstreamer1.0-tools)") }
}

// (c) Whole runs on a 1080p H.264 clip: frameflow run against the ffmpeg tool.
if all || args.contains("media") {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-bench-media").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let clip = dir + "/clip1080_\(quick ? 3 : 10)s.mp4"
    let seconds = quick ? 3 : 10
    if !FileManager.default.fileExists(atPath: clip) {
        _ = run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds)", "-c:v", "libx264", "-pix_fmt",
                "yuv420p", clip,
            ])
    }
    let frameflow = repoRoot.appendingPathComponent(".build/release/frameflow").path
    let graph = repoRoot.appendingPathComponent("Graphs/edge_detection_mobile_gpu.pbtxt").path
    func wall(_ tool: String, _ a: [String]) -> Double? {
        var best = Double.infinity
        for _ in 0..<(quick ? 1 : 3) {
            let t = monotonicNanoseconds()
            guard run(tool, a) != nil else { return nil }
            best = min(best, Double(monotonicNanoseconds() - t) / 1e9)
        }
        return best
    }
    print("\n(c) 1920×1080 H.264 clip, \(seconds) s at 30 fps: whole runs, wall time (best of \(quick ? 1 : 3))")
    if FileManager.default.isExecutableFile(atPath: frameflow) {
        let ours = wall(frameflow, ["run", graph, "--input", clip, "--output", "null"])
        let ref = wall("ffmpeg", ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel", "-f", "null", "-"])
        if let ours { row("frameflow run edge graph → null", ours, ref, unit: "s", refName: "ffmpeg -vf format=gray,sobel -f null") }
        let ours264 = wall(frameflow, ["run", graph, "--input", clip, "--output", dir + "/edges.mp4"])
        let ref264 = wall(
            "ffmpeg", ["-v", "error", "-y", "-i", clip, "-vf", "format=gray,sobel,format=yuv420p", "-c:v", "libx264", dir + "/edges_ffmpeg.mp4"])
        if let ours264 { row("frameflow run edge graph → H.264 file", ours264, ref264, unit: "s", refName: "ffmpeg … sobel -c:v libx264") }
    } else {
        print("  (build frameflow first: swift build -c release --product frameflow)")
    }
}

// (d) The filter library on 1920×1080 against OpenCV, one thread and all threads.
if all || args.contains("filters") {
    let (w, h) = (1920, 1080)
    let rgba = try TestImages.random(width: w, height: h, format: .rgba8, seed: 11)
    // Noise: neighbouring pixels land in unrelated LUT lattice cells (the LUT's worst case);
    // the other kernels cost the same whatever the content.
    let nv12 = try ColorConvertCalculator.convert(rgba, to: .nv12(.video))
    // BENCH_ITERATIONS=N; BENCH_NO_REFERENCE=1: FrameFlow alone; BENCH_FILTERS=blur,lut: only
    // those rows (roundtrip, nv12, bilinear, bilinear720, area, blur, unsharp, color, lut).
    let env = ProcessInfo.processInfo.environment
    let iterations = Int(env["BENCH_ITERATIONS"] ?? "") ?? (quick ? 5 : 20)
    let dir = FileManager.default.temporaryDirectory.path
    let rawRGBA = dir + "/ffb-\(getpid()).rgba", rawNV12 = dir + "/ffb-\(getpid()).nv12"
    try Data(rgba.packedBytes()).write(to: URL(fileURLWithPath: rawRGBA))
    try Data(nv12.packedBytes()).write(to: URL(fileURLWithPath: rawNV12))
    defer {
        try? FileManager.default.removeItem(atPath: rawRGBA)
        try? FileManager.default.removeItem(atPath: rawNV12)
    }
    let script = repoRoot.appendingPathComponent("scripts/bench/opencv_filters.py").path
    var cv: [String: [String: Double]] = [:]
    let onlyFilters = env["BENCH_FILTERS"].map { Set($0.split(separator: ",").map(String.init)) }
    func wanted(_ key: String) -> Bool { onlyFilters?.contains(key) ?? true }
    /// Median ms of one frame through a one-node graph with `threads` workers.
    func inGraph<C: Calculator>(_ type: C.Type, _ options: C.Options, input: ImageFrame, threads: Int) throws -> Double {
        let graph = try Graph {
            Settings(numThreads: threads)
            Input("in")
            Output("out")
            Node(type, name: "node", in: ["IMAGE:in"], out: ["IMAGE:out"], options: options)
        }
        try graph.start()
        var t = Int64(0)
        let ms = try medianMilliseconds(iterations: iterations) {
            try graph.send(input, to: "in", at: Timestamp(t))
            t += 1
            try graph.waitUntilIdle()
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return ms
    }
    var resize = ImageTransformationCalculator.Options()
    resize.outputWidth = 640
    resize.outputHeight = 360
    var resize720 = resize
    resize720.outputWidth = 1280
    resize720.outputHeight = 720
    var area = resize
    area.interpolation = .area
    let lutFile = repoRoot.appendingPathComponent("Examples/Instafilter/warm_film_17.cube").path
    // Two rounds — OpenCV, FrameFlow, OpenCV, FrameFlow — keeping each side's best median,
    // so that a slow stretch of this shared machine does not fall on one side only.
    let rounds = quick ? 1 : 2
    print(
        "\n(d) Filters on 1920×1080 (median of \(iterations), best of \(rounds) alternating rounds each side), one worker and all workers, against OpenCV"
    )
    /// Rows in print order: label, the reference's (key, thread) in OpenCV's output (nil: the
    /// memcpy row), the reference's name.
    var rows: [(label: String, ref: (String, String)?, refName: String)] = []
    var ours: [String: Double] = [:], copies: [String: Double] = [:]
    func keep(_ label: String, _ ms: Double, ref: (String, String)?, refName: String) {
        if ours[label] == nil { rows.append((label, ref, refName)) }
        ours[label] = min(ours[label] ?? .infinity, ms)
    }
    for _ in 0..<rounds {
        if env["BENCH_NO_REFERENCE"] == nil, let out = run("python3", [script, rawRGBA, rawNV12, "\(w)", "\(h)", "\(iterations)"]),
            let obj = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String: Double]]
        {
            cv.merge(obj) { a, b in a.merging(b) { min($0, $1) } }
        }
        for threads in [1, ProcessInfo.processInfo.activeProcessorCount] {
            let key = threads == 1 ? "1" : "2"
            let label = threads == 1 ? "1 thread" : "\(threads) threads"
            if wanted("roundtrip") {
                // What every row below includes besides its kernel: send → node → waitUntilIdle.
                keep(
                    "graph round trip, pass-through node, \(label)",
                    try inGraph(PassThroughCalculator.self, NoOptions(), input: rgba, threads: threads), ref: nil, refName: "")
            }
            if wanted("nv12") {
                keep(
                    "NV12 → RGBA, \(label)", try inGraph(ColorConvertCalculator.self, .init(outputFormat: "rgba8"), input: nv12, threads: threads),
                    ref: ("nv12_to_rgba", key), refName: "cvtColor YUV2RGBA_NV12")
            }
            if wanted("bilinear") {
                keep(
                    "resize → 640×360 bilinear, \(label)", try inGraph(ImageTransformationCalculator.self, resize, input: rgba, threads: threads),
                    ref: ("resize_linear", key), refName: "resize INTER_LINEAR")
            }
            if wanted("bilinear720") {
                // 1920 → 640 is an exact 3× reduction whose bilinear taps all land on source pixels
                // (a gather); 1.5× blends two taps in both directions everywhere.
                keep(
                    "resize → 1280×720 bilinear, \(label)", try inGraph(ImageTransformationCalculator.self, resize720, input: rgba, threads: threads),
                    ref: ("resize_linear_720", key), refName: "resize INTER_LINEAR")
            }
            if wanted("area") {
                keep(
                    "resize → 640×360 area, \(label)", try inGraph(ImageTransformationCalculator.self, area, input: rgba, threads: threads),
                    ref: ("resize_area", key), refName: "resize INTER_AREA")
            }
            if wanted("blur") {
                keep(
                    "Gaussian blur 5×5, \(label)",
                    try inGraph(GaussianBlurCalculator.self, .init(sigma: 0, kernelSize: 5), input: rgba, threads: threads),
                    ref: ("gaussian_5x5", key), refName: "GaussianBlur (5,5)")
            }
            if wanted("unsharp") {
                keep(
                    "unsharp mask, \(label)", try inGraph(SharpenCalculator.self, .init(radius: 1, amount: 0.8), input: rgba, threads: threads),
                    ref: ("unsharp", key), refName: "GaussianBlur + addWeighted")
            }
            if wanted("color") {
                keep(
                    "saturation + contrast, \(label)",
                    try inGraph(ColorAdjustmentCalculator.self, .init(contrast: 1.2, saturation: 1.3), input: rgba, threads: threads),
                    ref: ("sat_contrast", key), refName: "convertScaleAbs + addWeighted")
            }
            if wanted("lut") {
                let name = "3-D LUT 17³ tetrahedral, \(label)"
                keep(
                    name, try inGraph(LUTCalculator.self, .init(lutPath: lutFile), input: rgba, threads: threads), ref: ("memcpy", key),
                    refName: "memcpy of the frame (floor)")
                let bytes = rgba.planes[0].bytesPerRow * h
                let dst = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                let copy = medianMilliseconds(iterations: iterations) { dst.copyMemory(from: rgba.planes[0].baseAddress, byteCount: bytes) }
                dst.deallocate()
                copies[name] = min(copies[name] ?? .infinity, copy)
            }
        }
    }
    for r in rows {
        guard let ms = ours[r.label] else { continue }
        guard let ref = r.ref else {
            print(String(format: "%@ %8.3f ms", r.label.padding(toLength: 54, withPad: " ", startingAt: 0), ms))
            continue
        }
        row(r.label, ms, ref.0 == "memcpy" ? copies[r.label] : cv[ref.0]?[ref.1], unit: "ms", refName: r.refName)
    }
    if cv.isEmpty { print("  (OpenCV reference unavailable: pip install opencv-python-headless==4.14.0.94)") }
}

// (e) Haar cascade face detection against OpenCV's detectMultiScale(1.1, 3).
if all || args.contains("haar") {
    let cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml"
    if let cascade = try? CascadeClassifier(contentsOfFile: cascadePath) {
        let detector = HaarCascadeDetector(cascade: cascade)
        let photo = try TestImages.readPNM(repoRoot.appendingPathComponent("Tests/Fixtures/astronaut_256.ppm").path, rgba: true)
        let iterations = Int(ProcessInfo.processInfo.environment["BENCH_MODEL_ITERATIONS"] ?? "") ?? (quick ? 3 : 10)
        print("\n(e) Haar face detection (haarcascade_frontalface_alt, 1.1, 3), median of \(iterations)")
        for (w, h) in [(640, 480), (1920, 1080)] {
            let gray = try ColorConvertCalculator.convert(try Resize.resize(photo, width: w, height: h, interpolation: .bilinear), to: .gray8)
            let raw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-haar-\(getpid()).gray")
            try Data(gray.packedBytes()).write(to: raw)
            defer { try? FileManager.default.removeItem(at: raw) }
            let script = repoRoot.appendingPathComponent("scripts/bench/opencv_haar.py").path
            let cv =
                run("python3", [script, cascadePath, raw.path, "\(w)", "\(h)", "\(iterations)"])
                .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Double] } ?? [:]
            let p = HaarCascadeDetector.Parameters(scaleFactor: 1.1, minNeighbors: 3)
            let one = try medianMilliseconds(iterations: iterations) { _ = try detector.detect(gray, parameters: p) }
            let pool = callerHelpers
            let two = try medianMilliseconds(iterations: iterations) {
                _ = try detector.detect(gray, parameters: p) { n, body in pool.parallelFor(n, grain: 1, body) }
            }
            row("\(w)×\(h), 1 thread", one, cv["1"], unit: "ms", refName: "cv2 detectMultiScale, setNumThreads(1)")
            row("\(w)×\(h), \(pool.threadsWithCaller) threads", two, cv["2"], unit: "ms", refName: "cv2 detectMultiScale, setNumThreads(2)")
        }
    } else {
        print("\n(e) Haar: \(cascadePath) missing (apt-get install opencv-data)")
    }
}

// (f) Model latency against onnxruntime and LiteRT on the same inputs.
if all || args.contains("models") {
    // BENCH_MODEL_DIR=path: the models (same names) from another directory.
    let dir = ProcessInfo.processInfo.environment["BENCH_MODEL_DIR"] ?? repoRoot.appendingPathComponent(".build/fixtures/models").path
    let iterations = Int(ProcessInfo.processInfo.environment["BENCH_MODEL_ITERATIONS"] ?? "") ?? (quick ? 3 : 10)
    // BENCH_NO_REFERENCE=1: FrameFlowML alone (quicker when comparing two builds).
    let skipReference = ProcessInfo.processInfo.environment["BENCH_NO_REFERENCE"] != nil
    // Two rounds — the Python references, then FrameFlow, twice — keeping each side's best
    // median, so that a slow stretch of this shared machine does not fall on one side only.
    let rounds = quick ? 1 : 2
    print(
        "\n(f) Model latency, median of \(iterations), best of \(rounds) alternating rounds each side (FrameFlowML on one thread, and split over the shared workers)"
    )
    // BENCH_MODELS=pnet,onet: only those.
    let only = ProcessInfo.processInfo.environment["BENCH_MODELS"].map { Set($0.split(separator: ",").map(String.init)) }
    var refs: [String: [String: Double]] = [:]
    var best: [String: (one: Double, two: Double)] = [:]
    var loaded: [String: (model: Model, input: Tensor)] = [:]
    // MediaPipe's landmark and palm models (mediapipe==0.10.21's), on the photo crop the
    // LiteRT op fixtures use (scripts/fixtures/make_litert_op_fixtures.py).
    let mediapipeModels = [
        "face_landmark": "face_landmark", "hand_landmark_full": "hand_landmark", "hand_landmark_lite": "hand_landmark",
        "palm_detection_full": "palm_detection", "palm_detection_lite": "palm_detection",
        "pose_detection": "pose_detection", "pose_landmark_full": "pose_landmark", "selfie_segmentation": "selfie_segmentation",
        "selfie_segmentation_landscape": "selfie_segmentation",
    ]
    // The pose and selfie models' inputs (scripts/fixtures/make_litert_pose_selfie_fixtures.py);
    // LiteRT runs the selfie ones with Convolution2DTransposeBias rewritten as TRANSPOSE_CONV.
    let poseSelfie: Set = ["pose_detection", "pose_landmark_full", "selfie_segmentation", "selfie_segmentation_landscape"]
    let names = [
        "pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer", "face_detection_short_range", "face_landmark", "hand_landmark_full",
        "hand_landmark_lite", "palm_detection_full", "palm_detection_lite", "pose_detection", "pose_landmark_full",
        "selfie_segmentation", "selfie_segmentation_landscape", "yolov8n", "yolov5nu", "yolo11n",
    ].filter { only?.contains($0) ?? true }
    let tflite = Set(mediapipeModels.keys).union(["face_detection_short_range"])
    for name in names {
        let fixtures = repoRoot.appendingPathComponent(".build/fixtures").path
        let (modelPath, inputPath) =
            mediapipeModels[name].map {
                (
                    "\(fixtures)/mediapipe/mediapipe/modules/\($0)/\(name).tflite",
                    "\(fixtures)/\(poseSelfie.contains(name) ? "litert_pose_selfie" : "litert_ops")/\(name).image.input_0.pb"
                )
            } ?? ("\(dir)/\(name).\(tflite.contains(name) ? "tflite" : "onnx")", "\(dir)/\(name).input_0.pb")
        if let model = try? Model(contentsOf: URL(fileURLWithPath: modelPath)),
            let input = try? loadTensorProto(contentsOfFile: inputPath).tensor
        {
            loaded[name] = (model, input)
        }
    }
    let workers = Parallelism(callerHelpers)
    for _ in 0..<rounds {
        if !skipReference,
            let out = run("python3", [repoRoot.appendingPathComponent("scripts/bench/reference_models.py").path, dir, "\(iterations)"]),
            let obj = try? JSONSerialization.jsonObject(with: Data(out.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8))
                as? [String: [String: Double]]
        {
            refs.merge(obj) { a, b in a.merging(b) { min($0, $1) } }
        }
        for name in names {
            guard let (model, input) = loaded[name] else { continue }
            let feeds = [model.inputs[0].name: input]
            let ms = try medianMilliseconds(iterations: iterations) { _ = try model.run(feeds) }
            let ms2 = try medianMilliseconds(iterations: iterations) { _ = try model.run(feeds, parallelism: workers) }
            let old = best[name] ?? (.infinity, .infinity)
            best[name] = (min(old.one, ms), min(old.two, ms2))
        }
    }
    for name in names {
        guard let (model, input) = loaded[name], let (ms, ms2) = best[name] else {
            print("  \(name): model or input missing (scripts/setup.sh bench)")
            continue
        }
        let feeds = [model.inputs[0].name: input]
        if ProcessInfo.processInfo.environment["BENCH_PROFILE"] != nil {
            // BENCH_PROFILE=ops: one row per op instead of per op type.
            let eachOp = ProcessInfo.processInfo.environment["BENCH_PROFILE"] == "ops"
            // BENCH_PROFILE_THREADS=2: the ops as they run split over the workers.
            let split = ProcessInfo.processInfo.environment["BENCH_PROFILE_THREADS"] == "2" ? workers : nil
            for p in try model.profile(feeds, iterations: iterations, eachOp: eachOp, parallelism: split).prefix(400) {
                print(String(format: "    %-22@ %3d calls %8.3f ms", p.op, p.calls, p.milliseconds))
            }
        }
        let shape = input.shape.map(String.init).joined(separator: "×")
        if !tflite.contains(name) {
            row("\(name) \(shape), 1 thread", ms, refs[name]?["ort1"], unit: "ms", refName: "onnxruntime, 1 intra-op thread")
            row("\(name) \(shape), \(workers.threads) threads", ms2, refs[name]?["ort2"], unit: "ms", refName: "onnxruntime, 2 intra-op threads")
        } else {
            let rewritten = name.hasPrefix("selfie") ? " (its custom op as TRANSPOSE_CONV)" : ""
            row("\(name) \(shape), 1 thread", ms, refs[name]?["litert1"], unit: "ms", refName: "LiteRT, 1 thread\(rewritten)")
            row("\(name) \(shape), \(workers.threads) threads", ms2, refs[name]?["litert2"], unit: "ms", refName: "LiteRT, 2 threads\(rewritten)")
        }
    }
}

// (g) Frames per second of the BlazeFace graph on a 640×480 clip, against the same model run
// frame by frame through LiteRT from Python with OpenCV resizing (frames decoded beforehand
// on both sides).
if all || args.contains("blazeface") {
    let models = repoRoot.appendingPathComponent(".build/fixtures/models").path
    let clip = repoRoot.appendingPathComponent(".build/fixtures/carphone_pristine.mp4").path
    let (w, h) = (640, 480)
    let wanted = quick ? 30 : 120  // the clip has 120 frames
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-blazeface-\(getpid()).rgb")
    defer { try? FileManager.default.removeItem(at: raw) }
    print(
        "\n(g) BlazeFace graph on carphone_pristine.mp4 scaled to \(w)×\(h) (fps, best of 2 rounds × 3 passes each side, alternating; ratio = FrameFlow fps / reference fps, target ≥ 1.0)"
    )
    if let frames = try clipFrames(clip, width: w, height: h, count: wanted, into: raw) {
        let count = frames.count
        var text = try String(contentsOf: repoRoot.appendingPathComponent("Graphs/face_detection_short_range.pbtxt"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\".build/fixtures/models/", with: "\"\(models)/")
        let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)
        func graphFPS() throws -> (fps: Double, faces: Int) {
            let graph = try Graph(GraphConfig(parsing: text, file: "face_detection_short_range.pbtxt"), registry: registry)
            let faces = Locked(0)
            try graph.observe("detections") { p in if let d = try? p.get([Detection].self), !d.isEmpty { faces.withLock { $0 += 1 } } }
            try graph.observe("output_video") { _ in }
            try graph.start()
            let t = monotonicNanoseconds()
            for (k, f) in frames.enumerated() { try graph.send(f, to: "input_video", at: Timestamp(Int64(k) * 33_333)) }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            if ProcessInfo.processInfo.environment["BENCH_PROFILE"] != nil {
                for n in graph.statistics.nodes where !n.isOutput {
                    print(String(format: "    %@: %.3f ms per call", n.name, n.busySeconds * 1000 / Double(max(1, n.calls))))
                }
            }
            return (Double(count) / (Double(monotonicNanoseconds() - t) / 1e9), faces.withLock { $0 })
        }
        _ = try graphFPS()  // warm-up: model load, pools
        // Best of three short passes per side, in two rounds (FrameFlow, Python, twice), so that a
        // slow stretch of this shared machine does not fall on one side only.
        var ours = (fps: 0.0, faces: 0)
        var ref: [String: Double] = [:]
        for _ in 0..<2 {
            for _ in 0..<3 { let r = try graphFPS(); if r.fps > ours.fps { ours = r } }
            let round =
                run(
                    "python3",
                    [
                        repoRoot.appendingPathComponent("scripts/bench/reference_blazeface.py").path,
                        "\(models)/face_detection_short_range.tflite", raw.path, "\(w)", "\(h)",
                    ]
                )
                .flatMap {
                    try? JSONSerialization.jsonObject(with: Data(($0.split(separator: "\n").last.map(String.init) ?? "").utf8)) as? [String: Double]
                } ?? [:]
            ref.merge(round) { max($0, $1) }
        }
        print(
            String(
                format: "  FrameFlow graph (%d worker threads): %.1f fps, faces on %d of %d frames", WorkerPool.shared.threadCount, ours.fps,
                ours.faces, count))
        for (key, label) in [("litert1", "LiteRT 1 thread"), ("litert2", "LiteRT 2 threads")] {
            if let fps = ref[key] {
                print(
                    String(
                        format: "  Python %@ + OpenCV: %.1f fps (faces on %d frames) → ratio %.2f", label, fps, Int(ref["faces"] ?? -1),
                        ours.fps / fps))
            } else {
                print("  Python \(label): unavailable (scripts/setup.sh bench)")
            }
        }
    } else {
        print("  clip or ffmpeg missing (scripts/setup.sh bench)")
    }
}

// (h) MediaPipe's solutions from their own compiled graphs, against MediaPipe's Python solutions.
if all || args.contains("mediapipe") {
    let root = repoRoot.appendingPathComponent(".build/fixtures/mediapipe").path
    let python = repoRoot.appendingPathComponent(".build/venv-mediapipe/bin/python").path
    let clip = repoRoot.appendingPathComponent(".build/fixtures/carphone_pristine.mp4").path
    let (w, h) = (640, 480)
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-mediapipe-\(getpid()).rgb")
    defer { try? FileManager.default.removeItem(at: raw) }
    /// A solution: MediaPipe's compiled graph, its side packets as the Python solution sets
    /// them, the stream whose non-empty packets count as found, the reference script's name.
    struct Solution {
        var title: String, graph: String, sidePackets: [String: any Sendable], output: String, python: String
        var clip = "carphone"
    }
    let solutions = [
        Solution(
            title: "face detection", graph: "face_detection/face_detection_short_range_cpu.binarypb", sidePackets: [:],
            output: "detections", python: "face_detection"),
        Solution(
            title: "Face Mesh (478 landmarks)", graph: "face_landmark/face_landmark_front_cpu.binarypb",
            sidePackets: ["num_faces": 1, "with_attention": true, "use_prev_landmarks": true],
            output: "multi_face_landmarks", python: "face_mesh"),
        Solution(
            title: "Hands (full model)", graph: "hand_landmark/hand_landmark_tracking_cpu.binarypb",
            sidePackets: ["num_hands": 2, "model_complexity": 1, "use_prev_landmarks": true],
            output: "multi_hand_landmarks", python: "hands", clip: "hand_clip"),
        Solution(
            title: "Pose (mask, smoothing)", graph: "pose_landmark/pose_landmark_cpu.binarypb",
            sidePackets: [
                "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": true, "smooth_segmentation": true,
                "use_prev_landmarks": true,
            ], output: "pose_landmarks", python: "pose", clip: "walk_clip"),
        Solution(
            title: "Selfie Segmentation (general model)", graph: "selfie_segmentation/selfie_segmentation_cpu.binarypb",
            sidePackets: ["model_selection": 0], output: "segmentation_mask", python: "selfie_segmentation_0"),
        Solution(
            title: "Selfie Segmentation (landscape model)", graph: "selfie_segmentation/selfie_segmentation_cpu.binarypb",
            sidePackets: ["model_selection": 1], output: "segmentation_mask", python: "selfie_segmentation_1"),
    ].filter { s in
        // BENCH_SOLUTIONS=hands,pose: only those (the reference scripts' names, prefix match).
        let only = ProcessInfo.processInfo.environment["BENCH_SOLUTIONS"]?.split(separator: ",") ?? []
        return only.isEmpty || only.contains { s.python.hasPrefix($0) }
    }
    print(
        "\n(h) MediaPipe's solutions from their compiled graphs (mediapipe==0.10.21's .binarypb and models) on carphone_pristine.mp4 (faces, selfie segmentation), Tests/Fixtures/mediapipe/hand_clip.mp4 (hands) and walk_clip.mp4 (pose) scaled to \(w)×\(h), every frame: ms per frame, best of 3 passes, two alternating rounds; ratio ≤ 1.0: FrameFlow as fast or faster"
    )
    let handClip = repoRoot.appendingPathComponent("Tests/Fixtures/mediapipe/hand_clip.mp4").path
    let handRaw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-mediapipe-hands-\(getpid()).rgb")
    defer { try? FileManager.default.removeItem(at: handRaw) }
    let handFrames = try clipFrames(handClip, width: w, height: h, count: quick ? 30 : 120, into: handRaw)
    let walkClip = repoRoot.appendingPathComponent("Tests/Fixtures/mediapipe/walk_clip.mp4").path
    let walkRaw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-mediapipe-walk-\(getpid()).rgb")
    defer { try? FileManager.default.removeItem(at: walkRaw) }
    let walkFrames = try clipFrames(walkClip, width: w, height: h, count: quick ? 30 : 120, into: walkRaw)
    if let faceFrames = try clipFrames(clip, width: w, height: h, count: quick ? 30 : 120, into: raw) {
        let frames = faceFrames
        // The pre-processing on its own: one 640×480 frame letterboxed into 128×128 floats.
        var toTensor = ImageToTensorCalculator.Options()
        (toTensor.outputTensorWidth, toTensor.outputTensorHeight, toTensor.keepAspectRatio) = (128, 128, true)
        toTensor.outputTensorFloatRange = .init(min: -1, max: 1)
        toTensor.borderMode = .zero
        let preprocess = try medianMilliseconds(iterations: quick ? 20 : 200) {
            _ = try ImageToTensorCalculator.convert(frames[0], options: toTensor)
        }
        print(String(format: "  ImageToTensorCalculator alone, 640×480 → 128×128: %.3f ms", preprocess))
        let environment = GraphEnvironment(resourceRoots: [root])
        let registry = try CalculatorRegistry.withML()
        for solution in solutions {
            let (frames, raw) =
                solution.clip == "hand_clip"
                ? (handFrames ?? [], handRaw) : solution.clip == "walk_clip" ? (walkFrames ?? [], walkRaw) : (faceFrames, raw)
            let graphPath = root + "/mediapipe/modules/" + solution.graph
            guard FileManager.default.fileExists(atPath: graphPath) else {
                print("  \(solution.graph) missing (scripts/setup.sh bench)")
                continue
            }
            // Frames go in as fast as the graph takes them (it pipelines its stages); MediaPipe's
            // Python solution takes one frame per call.
            func graphFPS(threads: Int) throws -> (fps: Double, found: Int) {
                var config = try GraphConfig(contentsOfFile: graphPath, registry: registry)
                config.numThreads = threads
                let graph = try Graph(config, registry: registry, environment: environment)
                let found = Locked(0)
                try graph.observe(solution.output) { p in
                    let n =
                        (try? p.get([Detection].self).count) ?? (try? p.get([NormalizedLandmarkList].self).count)
                        ?? (try? p.get(NormalizedLandmarkList.self)).map { _ in 1 } ?? (try? p.get(ImageFrame.self)).map { _ in 1 } ?? 0
                    if n > 0 { found.withLock { $0 += 1 } }
                }
                try graph.start(sidePackets: solution.sidePackets)
                let t = monotonicNanoseconds()
                for (k, f) in frames.enumerated() { try graph.send(f, to: "image", at: Timestamp(Int64(k) * 33_333)) }
                try graph.closeAllInputStreams()
                try graph.waitUntilDone()
                let seconds = Double(monotonicNanoseconds() - t) / 1e9
                if ProcessInfo.processInfo.environment["BENCH_PROFILE"] != nil {
                    for n in graph.statistics.nodes where !n.isOutput && n.calls > 0 {
                        print(String(format: "    %@: %.3f ms per call", n.name, n.busySeconds * 1000 / Double(n.calls)))
                    }
                }
                return (Double(frames.count) / seconds, found.withLock { $0 })
            }
            func mediapipeFPS(threads: Int) -> (fps: Double, found: Int)? {
                let script = repoRoot.appendingPathComponent("scripts/bench/reference_mediapipe.py").path
                let args = [script, solution.python, raw.path, "\(w)", "\(h)"]
                let out = threads == 1 ? run("taskset", ["-c", "0", python] + args) : run(python, args)
                guard let line = out?.split(separator: "\n").last,
                    let j = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double], let fps = j["fps"]
                else { return nil }
                return (fps, Int(j["found"] ?? -1))
            }
            for threads in [1, 2] {
                _ = try graphFPS(threads: threads)  // warm-up: model load, pools
                var ours = (fps: 0.0, found: 0)
                var theirs: (fps: Double, found: Int)?
                for _ in 0..<2 {
                    for _ in 0..<3 { let r = try graphFPS(threads: threads); if r.fps > ours.fps { ours = r } }
                    if let m = mediapipeFPS(threads: threads), m.fps > theirs?.fps ?? 0 { theirs = m }
                }
                let label = "MediaPipe \(solution.title), \(threads) thread\(threads == 1 ? "" : "s")"
                if let theirs {
                    row(label, 1000 / ours.fps, 1000 / theirs.fps, unit: "ms", refName: "mediapipe==0.10.21 Python solution")
                    print(
                        String(
                            format: "    FrameFlow %.1f fps (found on %d of %d frames), MediaPipe %.1f fps (found on %d)", ours.fps, ours.found,
                            frames.count, theirs.fps, theirs.found))
                } else {
                    print(
                        String(
                            format:
                                "  %@: FrameFlow %.1f fps; MediaPipe's Python solution unavailable (python3 -m venv .build/venv-mediapipe && .build/venv-mediapipe/bin/pip install mediapipe==0.10.21)",
                            label, ours.fps))
                }
            }
        }
    } else {
        print("  clip or ffmpeg missing (scripts/setup.sh bench)")
    }
}

/// Emits 0..<count, one per call: the benchmark's in-graph source.
final class CounterSource: Calculator {
    struct Options: CalculatorOptions { var count = 0; init() {} }
    static let contract = CalculatorContract(outputs: [PortSpec("")], timestampOffset: nil)
    var i = 0
    let n: Int
    init(options: Options) { n = options.count }
    func process(_ cc: CalculatorContext) throws {
        if i >= n { cc.finishSource(); return }
        try cc.emit(i, at: Timestamp(Int64(i)))
        i += 1
    }
}

// (i) Cameras per machine: a fleet of graphs on one worker pool (FleetRow.swift).
if all || args.contains("fleet") { FleetRow.measure(repoRoot: repoRoot, quick: quick) }
