import FrameFlowArguments
import FrameFlow
import FrameFlowML
import Foundation

/// `frameflow-bench models`: model latency against onnxruntime and LiteRT on the same inputs.
struct ModelsBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "models", abstract: "model latency against onnxruntime and LiteRT")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Option(name: "dir", valueName: "DIR", help: "the models (same names) from this folder (default: .build/fixtures/models)")
    var modelDir: String?
    @Option(
        name: "iterations", valueName: "N", help: "timed iterations per row (default: 10, 3 with --quick)", expecting: "needs a positive number",
        valid: { $0 > 0 })
    var iterationCount: Int?
    @Flag(help: "FrameFlow alone, no reference run (quicker when comparing two builds)") var noReference = false
    @Option(name: "only", valueName: "A,B", help: "only these models (pnet, onet, yolov8n, face_landmark, …)") var onlyModels: String?
    @Flag(help: "print the time per op type after each model's rows") var profile = false
    @Flag(help: "print the time per op instead of per op type (implies --profile)") var profileOps = false
    @Option(
        valueName: "N", help: "with --profile: the ops as they run on 1 thread or split over the 2 workers",
        allowedValues: ["1", "2"])
    var profileThreads = 1

    /// The profile's op names that are convolutions (ONNX and TFLite).
    static let convolutionOps: Set = ["Conv", "ConvTranspose", "CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "Convolution2DTransposeBias"]

    @MainActor func measure() throws {
        let dir = modelDir ?? repoRoot.appendingPathComponent(".build/fixtures/models").path
        let iterations = iterationCount ?? (quick ? 3 : 10)
        let skipReference = noReference
        // Alternating rounds — the Python references, then FrameFlow — each side's median of
        // the rounds reported with their spread, so that a slow stretch of this shared machine
        // shows instead of falling on one side only.
        let rounds = quick ? 1 : 3
        print(
            "\n(f) Model latency, median of \(iterations) runs per round, medians of \(rounds) alternating rounds [spread] (FrameFlowML on one thread, and split over the shared workers)"
        )
        let only = onlyModels.map { Set($0.split(separator: ",").map(String.init)) }
        var refs: [String: [String: [Double]]] = [:]
        var ours: [String: (one: [Double], two: [Double])] = [:]
        var paths: [String: String] = [:]
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
                paths[name] = modelPath
            }
        }
        let workers = Parallelism(callerHelpers)
        for _ in 0..<rounds {
            if !skipReference,
                let out = runTool("python3", [repoRoot.appendingPathComponent("scripts/bench/reference_models.py").path, dir, "\(iterations)"]),
                let obj = try? JSONSerialization.jsonObject(with: Data(out.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8))
                    as? [String: [String: Double]]
            {
                for (name, columns) in obj { for (k, v) in columns { refs[name, default: [:]][k, default: []].append(v) } }
            }
            for name in names {
                guard let (model, input) = loaded[name] else { continue }
                let feeds = [model.inputs[0].name: input]
                let ms = try medianMilliseconds(iterations: iterations) { _ = try model.run(feeds) }
                let ms2 = try medianMilliseconds(iterations: iterations) { _ = try model.run(feeds, parallelism: workers) }
                let old = ours[name] ?? ([], [])
                ours[name] = (old.one + [ms], old.two + [ms2])
            }
        }
        defer { try? measureInt8(dir: dir, iterations: iterations, only: only, skipReference: skipReference) }
        // Each model's arithmetic (scripts/bench/model_flops.py, from the files' shapes) against
        // the peak multiply-add rate measured here (per CPU second), on one thread and on all.
        let flops = modelFlops(names.compactMap { name in paths[name].map { (name, $0, "\(dir)/\(name).input_0.pb") } })
        let peak = (one: PeakRate.gflops(threads: 1), all: PeakRate.gflops(threads: workers.threads))
        print(
            String(
                format: "  peak multiply-add rate: %.1f GFLOP/s on 1 thread, %.1f on %d (%@ kernels)", peak.one, peak.all, workers.threads,
                "\(KernelLevel.active)"))
        for name in names {
            guard let (model, input) = loaded[name], let (ms, ms2) = ours[name] else {
                print("  \(name): model or input missing (scripts/setup.sh bench)")
                continue
            }
            let feeds = [model.inputs[0].name: input]
            if profile || profileOps {
                let eachOp = profileOps
                let split = profileThreads == 2 ? workers : nil
                for p in try model.profile(feeds, iterations: iterations, eachOp: eachOp, parallelism: split).prefix(400) {
                    print(String(format: "    %-22@ %3d calls %8.3f ms", p.op, p.calls, p.milliseconds))
                }
            }
            let shape = input.shape.map(String.init).joined(separator: "×")
            let (ref1, ref2, refName) =
                tflite.contains(name)
                ? (refs[name]?["litert1"], refs[name]?["litert2"], "LiteRT" + (name.hasPrefix("selfie") ? " (its custom op as TRANSPOSE_CONV)" : ""))
                : (refs[name]?["ort1"], refs[name]?["ort2"], "onnxruntime")
            let work = flops[name]
            spreadRow("\(name) \(shape), 1 thread", ms, ref1, refName: "\(refName), 1 thread", gflop: work?.total, peak: peak.one)
            spreadRow(
                "\(name) \(shape), \(workers.threads) threads", ms2, ref2, refName: "\(refName), \(workers.threads) threads", gflop: work?.total,
                peak: peak.all)
            // The convolutions alone (their fused epilogues included): their share of a
            // one-thread profile's time, of the row's median.
            if let conv = work?.conv, conv > 0 {
                let table = try model.profile(feeds, iterations: iterations)
                let convMs = table.filter { Self.convolutionOps.contains($0.op) }.reduce(0) { $0 + $1.milliseconds }
                let total = table.reduce(0) { $0 + $1.milliseconds }
                if convMs > 0 && total > 0 {
                    let share = convMs / total, rate = conv / (ms.sorted()[ms.count / 2] * share) / 1e6
                    print(
                        String(
                            format: "    convolutions: %.0f %% of the time (profile), %.2f GFLOP → %.1f GFLOP/s, %.0f %% of the 1-thread peak",
                            100 * share,
                            conv / 1e9,
                            rate, 100 * rate / peak.one))
                }
            }
        }
    }
}

/// Floating-point operations a run of each model (total, convolutions), from
/// scripts/bench/model_flops.py; empty when it cannot run.
func modelFlops(_ models: [(name: String, file: String, input: String)]) -> [String: (total: Double, conv: Double)] {
    let args = models.map { m in
        "\(m.name)=\(m.file)" + (m.file.hasSuffix(".onnx") && FileManager.default.fileExists(atPath: m.input) ? "=\(m.input)" : "")
    }
    guard let out = runTool("python3", [repoRoot.appendingPathComponent("scripts/bench/model_flops.py").path] + args),
        let obj = try? JSONSerialization.jsonObject(with: Data(out.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8))
            as? [String: [String: Double]]
    else { return [:] }
    return obj.compactMapValues { v in v["total"].flatMap { t in v["conv"].map { (t, $0) } } }
}
