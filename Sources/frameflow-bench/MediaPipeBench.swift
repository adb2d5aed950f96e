import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import Foundation

/// `frameflow-bench mediapipe`: MediaPipe's solutions from their own compiled graphs, against MediaPipe's Python solutions.
struct MediaPipeBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "mediapipe", abstract: "MediaPipe's solutions from their compiled graphs against MediaPipe's Python solutions")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Flag(help: "print each node's milliseconds per call after each pass") var profile = false
    @Option(
        name: "solutions", valueName: "A,B",
        help: "only these solutions, by the reference script's name, prefix match (face_detection, face_mesh, hands, pose, selfie)")
    var solutionList: String?

    @MainActor func measure() throws {
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
            let only = solutionList?.split(separator: ",") ?? []
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
                    if profile {
                        for n in graph.statistics.nodes where !n.isOutput && n.calls > 0 {
                            print(String(format: "    %@: %.3f ms per call", n.name, n.busySeconds * 1000 / Double(n.calls)))
                        }
                    }
                    return (Double(frames.count) / seconds, found.withLock { $0 })
                }
                func mediapipeFPS(threads: Int) -> (fps: Double, found: Int)? {
                    let script = repoRoot.appendingPathComponent("scripts/bench/reference_mediapipe.py").path
                    let args = [script, solution.python, raw.path, "\(w)", "\(h)"]
                    let out = threads == 1 ? runTool("taskset", ["-c", "0", python] + args) : runTool(python, args)
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
}
