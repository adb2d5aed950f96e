import FrameFlowArguments
import FrameFlow
import FrameFlowTasks
import Foundation

/// `frameflow-bench tasks`: the MediaPipe Tasks API (`FrameFlowTasks`) against MediaPipe's own
/// Tasks Python API on the same raw frames, in image mode (the committed photos) and video mode
/// (a clip per task), at one thread and at all threads.
struct TasksBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "tasks", abstract: "the Tasks API (FaceLandmarker, …) against MediaPipe's Tasks Python API")
    }

    @Flag(help: "fewer frames and one round (a quick look, not a measurement)") var quick = false
    @Flag(help: "print each node's milliseconds per call after each FrameFlow row") var profile = false
    @Flag(help: "FrameFlow only: no MediaPipe reference") var noReference = false
    @Option(help: "alternating rounds per row (at least 1; the median and spread are over them)") var rounds = 3
    @Option(
        name: "tasks", valueName: "A,B",
        help:
            "only these tasks, prefix match (face_detector, face_landmarker, hand_landmarker, gesture_recognizer, pose_landmarker, image_segmenter)"
    )
    var taskList: String?
    @Option(name: "modes", valueName: "A,B", help: "only these running modes (image, video)") var modeList: String?
    @Option(name: "threads", valueName: "N,M", help: "thread counts to run (default: 1 and every core)") var threadList: String?

    func validate() throws {
        guard rounds >= 1, rounds <= 100 else { throw ValidationError("--rounds: \(rounds) is not in 1…100") }
        let names = TasksFeed.cases.map(\.name)
        for t in taskList?.split(separator: ",") ?? [] where !names.contains(where: { $0.hasPrefix(t) }) {
            throw ValidationError("--tasks: no task starts with \"\(t)\" (\(names.joined(separator: ", ")))")
        }
        for m in modeList?.split(separator: ",") ?? [] where m != "image" && m != "video" {
            throw ValidationError("--modes: \"\(m)\" is neither image nor video")
        }
        for t in threadList?.split(separator: ",") ?? [] where Int(t).map({ !(1...1024).contains($0) }) ?? true {
            throw ValidationError("--threads: \"\(t)\" is not a thread count in 1…1024")
        }
    }

    @MainActor func measure() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threadCounts = threadList.map { $0.split(separator: ",").compactMap { Int($0) } } ?? (cores > 1 ? [1, cores] : [1])
        let modes = modeList.map { $0.split(separator: ",").map(String.init) } ?? ["image", "video"]
        let only = taskList?.split(separator: ",") ?? []
        let cases = TasksFeed.cases.filter { c in only.isEmpty || only.contains { c.name.hasPrefix($0) } }
        let rounds = quick ? 1 : self.rounds
        let repeats = quick ? 1 : 4
        let clipFrameCount = quick ? 30 : 200
        print(
            "\n(i) MediaPipe Tasks (FrameFlowTasks) against mediapipe==0.10.21's Tasks Python API on the same RGB frames: image mode on the \(TasksFeed.photoCount) photos of Tests/Fixtures/mediapipe/tasks/*.json ×\(repeats), video mode on carphone 640×480 (faces), hand_clip 360×640 (hands), walk_clip 640×480 (pose, segmenter); ms per frame, median of \(rounds) alternating round\(rounds == 1 ? "" : "s") (ratio: median of the rounds' ratios, spread min–max); found: faces / hands / poses / masks summed over the frames"
        )
        let python = repoRoot.appendingPathComponent(".build/venv-mediapipe/bin/python").path
        let hasReference = !noReference && FileManager.default.isExecutableFile(atPath: python)
        if !noReference && !hasReference {
            print("  MediaPipe reference unavailable: \(python) missing (scripts/fixtures/make_mediapipe_tasks_fixtures.py says how to make it)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-tasks-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var feeds: [String: TasksFeed.Frames] = [:]
        var summary: [(String, [Int: TasksFeed.Row])] = []
        for c in cases {
            let model = repoRoot.appendingPathComponent(".build/fixtures/tasks/" + c.model).path
            guard FileManager.default.fileExists(atPath: model) else {
                print("  \(c.title): \(model) missing (scripts/setup.sh test)")
                continue
            }
            for mode in modes {
                let key = mode == "image" ? "photos:" + c.name : "clip:" + c.clip.name
                if feeds[key] == nil {
                    feeds[key] =
                        mode == "image"
                        ? try TasksFeed.photos(task: c.name, into: scratch.appendingPathComponent(c.name + "-photos.rgb"))
                        : try TasksFeed.clip(c.clip, count: clipFrameCount, into: scratch.appendingPathComponent(c.clip.name + ".rgb"))
                }
                guard let frames = feeds[key] ?? nil else {
                    print("  \(c.title) \(mode): frames unavailable (ffmpeg, or scripts/setup.sh test for the clip)")
                    continue
                }
                let isVideo = mode == "video"
                let fed = isVideo ? frames.images.count : frames.images.count * repeats
                var perThreads: [Int: TasksFeed.Row] = [:]
                for threads in threadCounts {
                    // Warm-up: the bundle read from disk, pools, code paths.
                    _ = try TasksFeed.pass(c, model: model, frames: frames, video: isVideo, repeats: 1, threads: threads)
                    var ours: [TasksFeed.Pass] = []
                    var theirs: [TasksFeed.Pass] = []
                    var lastProfile: GraphStatistics?
                    for round in 0..<rounds {
                        // Alternate which side goes first, so a slow stretch of this shared
                        // machine does not fall on one side only.
                        func runOurs() throws {
                            let p = try TasksFeed.pass(c, model: model, frames: frames, video: isVideo, repeats: repeats, threads: threads)
                            ours.append(p)
                            lastProfile = p.statistics
                        }
                        func runTheirs() {
                            guard hasReference else { return }
                            if let p = TasksFeed.reference(
                                c, model: model, frames: frames, video: isVideo, repeats: repeats, pinned: threads == 1, python: python)
                            {
                                theirs.append(p)
                            }
                        }
                        if round % 2 == 0 {
                            try runOurs()
                            runTheirs()
                        } else {
                            runTheirs()
                            try runOurs()
                        }
                    }
                    let r = TasksFeed.Row(ours: ours, theirs: theirs)
                    perThreads[threads] = r
                    let label = "\(c.title), \(mode), \(threads) thread\(threads == 1 ? "" : "s")"
                    print(r.line(label, frames: fed))
                    if profile, let s = lastProfile {
                        // Per node: ms per call and ms per frame fed (busy time over all calls).
                        for n in s.nodes where !n.isOutput && n.calls > 0 {
                            print(
                                String(
                                    format: "    %@: %.3f ms per call, %.3f ms per frame (%d calls)", TasksFeed.shortName(n.name),
                                    n.busySeconds * 1000 / Double(n.calls), n.busySeconds * 1000 / Double(fed), n.calls))
                        }
                    }
                }
                summary.append(("\(c.title) \(mode)", perThreads))
            }
        }
        guard !summary.isEmpty else { return }
        print(
            "\n  | task, mode | " + threadCounts.map { "\($0) thread\($0 == 1 ? "" : "s"): ratio (spread), FF / MP ms" }.joined(separator: " | ")
                + " |")
        print("  |---|" + threadCounts.map { _ in "---|" }.joined())
        for (title, rows) in summary {
            print("  | \(title) | " + threadCounts.map { rows[$0]?.cell ?? "–" }.joined(separator: " | ") + " |")
        }
    }
}

/// The frames of `frameflow-bench tasks` and how each side is fed them: the same rgb8 bytes,
/// FrameFlow as `ImageFrame`s through the public task classes, MediaPipe from the raw file.
enum TasksFeed {
    /// A clip a task's video rows run on, scaled to `width` × `height`; `intervalMs` apart.
    struct Clip {
        var name: String, path: String, width: Int, height: Int, intervalMs: Int
    }

    /// A task as both sides run it: the reference script's name, the bundle in
    /// .build/fixtures/tasks, the clip of its video rows.
    struct Case {
        var name: String, title: String, model: String, clip: Clip
    }

    static let carphone = Clip(name: "carphone", path: ".build/fixtures/carphone_pristine.mp4", width: 640, height: 480, intervalMs: 33)
    static let handClip = Clip(name: "hand_clip", path: "Tests/Fixtures/mediapipe/hand_clip.mp4", width: 360, height: 640, intervalMs: 33)
    static let walkClip = Clip(name: "walk_clip", path: "Tests/Fixtures/mediapipe/walk_clip.mp4", width: 640, height: 480, intervalMs: 100)

    static let cases = [
        Case(name: "face_detector", title: "FaceDetector", model: "face_detector.tflite", clip: carphone),
        Case(name: "face_landmarker", title: "FaceLandmarker (blendshapes, matrices)", model: "face_landmarker.task", clip: carphone),
        Case(name: "hand_landmarker", title: "HandLandmarker (2 hands)", model: "hand_landmarker.task", clip: handClip),
        Case(name: "gesture_recognizer", title: "GestureRecognizer (2 hands)", model: "gesture_recognizer.task", clip: handClip),
        Case(name: "pose_landmarker", title: "PoseLandmarker (masks)", model: "pose_landmarker_full.task", clip: walkClip),
        Case(name: "image_segmenter", title: "ImageSegmenter (selfie)", model: "selfie_segmenter.tflite", clip: walkClip),
    ]

    /// Frames as FrameFlow takes them and the raw file (their bytes in order) MediaPipe reads.
    struct Frames {
        var images: [ImageFrame]
        var raw: URL
        /// `WxH` per frame, comma-separated, as the reference script takes them.
        var sizes: String { images.map { "\($0.width)x\($0.height)" }.joined(separator: ",") }
    }

    /// The photos of the task's image-mode fixtures.
    static var photoCount: Int { (try? photoPaths(task: "face_landmarker").count) ?? 0 }

    /// (path, width, height) of every image-mode run in Tests/Fixtures/mediapipe/tasks/<task>.json.
    static func photoPaths(task: String) throws -> [(path: String, width: Int, height: Int)] {
        let file = repoRoot.appendingPathComponent("Tests/Fixtures/mediapipe/tasks/\(task).json")
        guard let data = FileManager.default.contents(atPath: file.path),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any], let runs = json["runs"] as? [[String: Any]]
        else { throw BenchError("\(file.path): cannot read its runs") }
        return try runs.filter { $0["mode"] as? String == "image" }.map { run in
            guard let path = run["path"] as? String, let w = run["width"] as? Int, let h = run["height"] as? Int, w > 0, h > 0 else {
                throw BenchError("\(file.path): an image run without path, width or height")
            }
            return (path, w, h)
        }
    }

    /// The task's fixture photos decoded to rgb8 by the ffmpeg tool (the bytes OpenCV gives, as
    /// the fixture script checks), written one after another to `raw`; nil without ffmpeg.
    static func photos(task: String, into raw: URL) throws -> Frames? {
        var bytes = Data()
        var images: [ImageFrame] = []
        for p in try photoPaths(task: task) {
            let one = raw.appendingPathExtension("one")
            defer { try? FileManager.default.removeItem(at: one) }
            let path = repoRoot.appendingPathComponent(p.path).path
            guard
                runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-frames:v", "1", one.path]) != nil,
                let frame = try? Data(contentsOf: one), frame.count == p.width * p.height * 3
            else { return nil }
            images.append(try image(frame, width: p.width, height: p.height))
            bytes.append(frame)
        }
        try bytes.write(to: raw)
        return Frames(images: images, raw: raw)
    }

    /// Up to `count` frames of `clip` scaled to its size, as `clipFrames` decodes them.
    static func clip(_ clip: Clip, count: Int, into raw: URL) throws -> Frames? {
        let path = repoRoot.appendingPathComponent(clip.path).path
        guard FileManager.default.fileExists(atPath: path),
            let images = try clipFrames(path, width: clip.width, height: clip.height, count: count, into: raw)
        else { return nil }
        return Frames(images: images, raw: raw)
    }

    static func image(_ bytes: Data, width w: Int, height h: Int) throws -> ImageFrame {
        let buffer = ImageBuffer(byteCount: bytes.count)
        bytes.withUnsafeBytes { buffer.baseAddress.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        return try ImageFrame(width: w, height: h, format: .rgb8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: w * 3, rows: h)])
    }

    /// A node of an expanded task graph by its subgraph and calculator: the last two parts of
    /// its name (`facedetectorgraph__InferenceCalculator`), the graph prefix of each dropped.
    static func shortName(_ name: String) -> String {
        let parts = name.components(separatedBy: "__")
        guard parts.count > 1, let graph = parts[parts.count - 2].split(separator: "_").last else { return name }
        return graph + "/" + parts[parts.count - 1]
    }

    /// One timed pass of one side: milliseconds per frame and what it found.
    struct Pass {
        var ms: Double
        var found: Int
        var statistics: GraphStatistics?
    }

    /// A FrameFlow task for `c` in image or video mode on `threads` threads, as a function of a
    /// frame (and its timestamp in video mode) to how many faces / hands / poses / masks it
    /// found, and its graph's counters.
    static func task(_ c: Case, model: String, video: Bool, threads: Int) throws -> (
        run: (ImageFrame, Int?) throws -> Int, statistics: () -> GraphStatistics
    ) {
        var base = BaseOptions(modelAssetPath: model)
        base.numThreads = threads
        let mode: RunningMode = video ? .video : .image
        switch c.name {
        case "face_detector":
            var o = FaceDetectorOptions()
            (o.baseOptions, o.runningMode) = (base, mode)
            let t = try FaceDetector(options: o)
            return (
                { image, ms in
                    try (ms.map { try t.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? t.detect(image: image)).detections.count
                }, { t.statistics }
            )
        case "face_landmarker":
            var o = FaceLandmarkerOptions()
            (o.baseOptions, o.runningMode, o.numFaces) = (base, mode, 1)
            (o.outputFaceBlendshapes, o.outputFacialTransformationMatrixes) = (true, true)
            let t = try FaceLandmarker(options: o)
            return (
                { image, ms in
                    try (ms.map { try t.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? t.detect(image: image)).faceLandmarks.count
                },
                { t.statistics }
            )
        case "hand_landmarker":
            var o = HandLandmarkerOptions()
            (o.baseOptions, o.runningMode, o.numHands) = (base, mode, 2)
            let t = try HandLandmarker(options: o)
            return (
                { image, ms in try (ms.map { try t.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? t.detect(image: image)).landmarks.count
                }, { t.statistics }
            )
        case "gesture_recognizer":
            var o = GestureRecognizerOptions()
            (o.baseOptions, o.runningMode, o.numHands) = (base, mode, 2)
            let t = try GestureRecognizer(options: o)
            return (
                { image, ms in
                    try (ms.map { try t.recognize(videoFrame: image, timestampInMilliseconds: $0) } ?? t.recognize(image: image)).landmarks.count
                },
                { t.statistics }
            )
        case "pose_landmarker":
            var o = PoseLandmarkerOptions()
            (o.baseOptions, o.runningMode, o.numPoses, o.outputSegmentationMasks) = (base, mode, 1, true)
            let t = try PoseLandmarker(options: o)
            return (
                { image, ms in try (ms.map { try t.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? t.detect(image: image)).landmarks.count
                }, { t.statistics }
            )
        case "image_segmenter":
            var o = ImageSegmenterOptions()
            (o.baseOptions, o.runningMode, o.shouldOutputConfidenceMasks, o.shouldOutputCategoryMask) = (base, mode, true, true)
            let t = try ImageSegmenter(options: o)
            return (
                { image, ms in
                    let r = try ms.map { try t.segment(videoFrame: image, timestampInMilliseconds: $0) } ?? t.segment(image: image)
                    return (r.confidenceMasks?.isEmpty ?? true) ? 0 : 1
                }, { t.statistics }
            )
        default:
            throw BenchError("no task \(c.name)")
        }
    }

    /// One FrameFlow pass, fed as the reference script feeds MediaPipe: a task made for the
    /// pass, one untimed call on the first frame, then (image mode) every frame `repeats`
    /// times or (video mode) every frame k at (k + 1) × the clip's interval, timed.
    static func pass(_ c: Case, model: String, frames: Frames, video: Bool, repeats: Int, threads: Int) throws -> Pass {
        let t = try task(c, model: model, video: video, threads: threads)
        var found = 0
        let fed: Int
        let start: UInt64
        if video {
            _ = try t.run(frames.images[0], 0)
            start = monotonicNanoseconds()
            for (k, f) in frames.images.enumerated() { found += try t.run(f, (k + 1) * c.clip.intervalMs) }
            fed = frames.images.count
        } else {
            _ = try t.run(frames.images[0], nil)
            start = monotonicNanoseconds()
            for _ in 0..<repeats { for f in frames.images { found += try t.run(f, nil) } }
            fed = frames.images.count * repeats
        }
        let ms = Double(monotonicNanoseconds() - start) / 1e6 / Double(fed)
        return Pass(ms: ms, found: found, statistics: t.statistics())
    }

    /// One pass of scripts/bench/reference_tasks.py on the same raw frames, on core 0 alone
    /// when `pinned`; nil when it cannot run.
    static func reference(_ c: Case, model: String, frames: Frames, video: Bool, repeats: Int, pinned: Bool, python: String) -> Pass? {
        let script = repoRoot.appendingPathComponent("scripts/bench/reference_tasks.py").path
        let args =
            video
            ? [script, c.name, model, "video", frames.raw.path, "\(c.clip.width)x\(c.clip.height)", "\(c.clip.intervalMs)"]
            : [script, c.name, model, "image", frames.raw.path, frames.sizes, "\(repeats)"]
        let out = pinned ? runTool("taskset", ["-c", "0", python] + args) : runTool(python, args)
        guard let line = out?.split(separator: "\n").last,
            let j = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double], let ms = j["ms"], let found = j["found"]
        else { return nil }
        return Pass(ms: ms, found: Int(found))
    }

    /// A row's rounds: FrameFlow's and MediaPipe's passes, alternating.
    struct Row {
        var ours: [Pass]
        var theirs: [Pass]

        static func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }

        /// Each round's FrameFlow / MediaPipe ratio.
        var ratios: [Double] { zip(ours, theirs).map { $0.ms / $1.ms } }
        /// Whether both sides found the same on every round.
        var sameFound: Bool { Set(ours.map(\.found) + theirs.map(\.found)).count <= 1 }
        /// Whether what each side found stays within 2 % of the other's (tracking may lose a
        /// pose a frame earlier on one side): a row that found less than that cannot pass.
        var closeFound: Bool {
            let all = ours.map(\.found) + theirs.map(\.found)
            guard let lo = all.min(), let hi = all.max() else { return true }
            return Double(hi - lo) <= 0.02 * Double(max(hi, 1))
        }

        func line(_ label: String, frames: Int) -> String {
            let padded = label.padding(toLength: 58, withPad: " ", startingAt: 0)
            let oursMs = Self.median(ours.map(\.ms))
            guard !theirs.isEmpty else {
                return padded + String(format: "%8.2f ms  (reference n/a)  found %d of %d frames", oursMs, ours.last?.found ?? 0, frames)
            }
            let r = ratios
            let each =
                "FrameFlow \(ours.map { String($0.found) }.joined(separator: "/")), MediaPipe \(theirs.map { String($0.found) }.joined(separator: "/"))"
            let found = sameFound ? "found \(ours[0].found) both" : closeFound ? "found " + each + " (within 2 %)" : "FOUND DIFFERS: " + each
            return padded
                + String(
                    format: "%8.2f ms  %8.2f ms  ratio %.2f (%.2f–%.2f, %d rounds)  ", oursMs, Self.median(theirs.map(\.ms)), Self.median(r),
                    r.min() ?? 0, r.max() ?? 0, r.count) + found + " (\(frames) frames)"
        }

        /// The summary table's cell: median ratio (spread), FrameFlow / MediaPipe ms.
        var cell: String {
            let oursMs = Self.median(ours.map(\.ms))
            guard !theirs.isEmpty else { return String(format: "n/a, %.2f ms", oursMs) }
            let r = ratios
            return String(
                format: "%.2f (%.2f–%.2f), %.2f / %.2f ms%@", Self.median(r), r.min() ?? 0, r.max() ?? 0, oursMs, Self.median(theirs.map(\.ms)),
                sameFound ? "" : closeFound ? " (found within 2 %)" : " (FOUND DIFFERS)")
        }
    }
}

/// A benchmark that cannot read what it needs.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
