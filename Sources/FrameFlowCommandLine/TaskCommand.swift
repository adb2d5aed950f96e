import FrameFlow
import FrameFlowArguments
import FrameFlowMedia
import FrameFlowTasks
import Foundation

/// `frameflow task TASK MODEL --input SRC`: a MediaPipe Task (FrameFlowTasks) on images, a
/// video or a camera, its results as JSON Lines in the Tasks result shape.
public struct TaskCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "task", abstract: "run a MediaPipe Task (.task / .tflite) on media, results as JSON Lines",
            discussion: """
                TASK is face-detector, face-landmarker, hand-landmarker, gesture-recognizer, pose-landmarker or image-segmenter.
                --option takes the task's options by their MediaPipe names: num_faces, num_hands, num_poses,
                min_detection_confidence, min_presence_confidence, min_tracking_confidence, min_suppression_threshold,
                output_face_blendshapes, output_facial_transformation_matrixes, output_segmentation_masks,
                output_category_mask. A still image runs in image mode, a video in video mode (tracking across frames),
                a camera or stream in live-stream mode (frames the task cannot keep up with are dropped and counted).
                Masks are summarised in the JSON (size, mean).
                """)
    }

    /// The task.
    @Argument(valueName: "TASK", help: "face-detector, face-landmarker, hand-landmarker, gesture-recognizer, pose-landmarker, image-segmenter")
    public var task: String
    /// The model asset.
    @Argument(valueName: "MODEL", help: "the .task bundle or .tflite model (relative: also looked up in the model folder)")
    public var model: String
    /// `--input SRC`.
    @Option(valueName: "SRC", help: "an image, video, image sequence, camera or stream") public var input: String
    /// `--output FILE`.
    @Option(valueName: "FILE", help: "the JSON Lines file (default: standard output)") public var output: String?
    /// `--option NAME=VALUE`.
    @Option(valueName: "NAME=VALUE", help: "a task option, by its MediaPipe name") public var option: [String] = []
    /// `--frames N`.
    @Option(valueName: "N", help: "stop after N frames", expecting: "needs a positive number", valid: { $0 > 0 })
    public var frames: Int?

    public init() {}

    static let tasks = ["face-detector", "face-landmarker", "hand-landmarker", "gesture-recognizer", "pose-landmarker", "image-segmenter"]

    public func validate() throws {
        guard Self.tasks.contains(task) else {
            let hint = nearestName(to: task, in: Self.tasks).map { " (did you mean \($0)?)" } ?? ""
            throw ValidationError("unknown task '\(task)'\(hint); tasks: \(Self.tasks.joined(separator: ", "))")
        }
        for o in option where !o.contains("=") { throw ValidationError("--option needs NAME=VALUE, not '\(o)'") }
        let known = Self.options[task] ?? []
        for o in option {
            let name = String(o.prefix { $0 != "=" })
            guard known.contains(name) else {
                throw ValidationError("--option \(name): \(task) has no such option (its options: \(known.sorted().joined(separator: ", ")))")
            }
        }
    }

    /// Each task's options, by their MediaPipe names.
    static let options: [String: Set<String>] = {
        let common: Set = ["min_detection_confidence", "min_presence_confidence", "min_tracking_confidence"]
        return [
            "face-detector": ["min_detection_confidence", "min_suppression_threshold"],
            "face-landmarker": common.union(["num_faces", "output_face_blendshapes", "output_facial_transformation_matrixes"]),
            "hand-landmarker": common.union(["num_hands"]), "gesture-recognizer": common.union(["num_hands"]),
            "pose-landmarker": common.union(["num_poses", "output_segmentation_masks"]), "image-segmenter": ["output_category_mask"],
        ]
    }()

    @MainActor public func run() throws {
        var options: [String: String] = [:]
        for o in option {
            let eq = o.firstIndex(of: "=")!
            options[String(o[..<eq])] = String(o[o.index(after: eq)...])
        }
        let source = try MediaSource(input, options: .init(pixelFormat: .rgb8))
        let still = ["png", "jpg", "jpeg", "bmp", "webp", "ppm", "pgm", "tif", "tiff"].contains((input as NSString).pathExtension.lowercased())
        let mode: RunningMode = source.isLive ? .liveStream : (still && !input.contains("%") ? .image : .video)
        let runner = try TaskJSON(task: task, model: model, options: options, mode: mode)
        let out: FileHandle
        var temporary: String?
        if let output {
            temporary = (output as NSString).deletingLastPathComponent + "/." + (output as NSString).lastPathComponent + ".frameflow-\(getpid())"
            guard FileManager.default.createFile(atPath: temporary!, contents: nil), let h = FileHandle(forWritingAtPath: temporary!) else {
                throw ExitRequest.failure("\(output): cannot write")
            }
            out = h
        } else {
            out = FileHandle.standardOutput
        }
        var count = 0
        do {
            while count < (frames ?? .max), let frame = try source.read() {
                let ms = Int(frame.timestamp.microseconds / 1000)
                if let line = try runner.process(frame.image, ms: ms) { try out.write(contentsOf: Data((line + "\n").utf8)) }
                count += 1
            }
            for line in runner.finish() { try out.write(contentsOf: Data((line + "\n").utf8)) }
            if let temporary, let output {
                try out.synchronize()
                try out.close()
                guard rename(temporary, output) == 0 else { throw ExitRequest.failure("\(output): cannot write") }
            }
        } catch {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw error
        }
        let dropped = runner.dropped
        FileHandle.standardError.write(Data("\(task): \(count) frames (\(mode) mode), \(dropped) dropped\n".utf8))
        if count == 0 { throw ExitRequest.failure("no frame was read from the input", status: ExitCode.noFrames) }
    }
}
