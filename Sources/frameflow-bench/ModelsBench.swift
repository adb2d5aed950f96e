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

    @MainActor func measure() throws {
        let dir = modelDir ?? repoRoot.appendingPathComponent(".build/fixtures/models").path
        let iterations = iterationCount ?? (quick ? 3 : 10)
        let skipReference = noReference
        // Two rounds — the Python references, then FrameFlow, twice — keeping each side's best
        // median, so that a slow stretch of this shared machine does not fall on one side only.
        let rounds = quick ? 1 : 2
        print(
            "\n(f) Model latency, median of \(iterations), best of \(rounds) alternating rounds each side (FrameFlowML on one thread, and split over the shared workers)"
        )
        let only = onlyModels.map { Set($0.split(separator: ",").map(String.init)) }
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
                let out = runTool("python3", [repoRoot.appendingPathComponent("scripts/bench/reference_models.py").path, dir, "\(iterations)"]),
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
        defer { try? measureInt8(dir: dir, iterations: iterations, only: only, skipReference: skipReference) }
        for name in names {
            guard let (model, input) = loaded[name], let (ms, ms2) = best[name] else {
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
}
