import FrameFlow
import FrameFlowArguments
import FrameFlowTasks
import Foundation

/// One MediaPipe Task behind `frameflow task`: made from its MediaPipe option names, fed frame
/// by frame, each result one line of JSON (live stream: the lines as results arrive).
final class TaskJSON: @unchecked Sendable {
    private let calls: Calls
    private let pending = Locked<[String]>([])

    /// Frames a live-stream task dropped.
    var dropped: Int { calls.dropped() }

    init(task: String, model: String, options: [String: String], mode: RunningMode) throws {
        var used = Set<String>()
        func number<T: LosslessStringConvertible>(_ name: String, _ fallback: T) throws -> T {
            guard let text = options[name] else { return fallback }
            used.insert(name)
            guard let v = T(text) else { throw ExitRequest.usage("--option \(name)=\(text): not a number") }
            return v
        }
        func flag(_ name: String) throws -> Bool {
            guard let text = options[name] else { return false }
            used.insert(name)
            guard let v = Bool(text.lowercased()) else { throw ExitRequest.usage("--option \(name)=\(text): true or false") }
            return v
        }
        var base = BaseOptions(modelAssetPath: model)
        base.resourceRoots = [FileManager.default.currentDirectoryPath]
        let pending = self.pending
        /// The listener of a live-stream task: each result (or error) as a pending line.
        func listener<R>(_ json: @escaping @Sendable (R) -> String) -> (@Sendable (Result<R, TaskError>) -> Void)? {
            guard mode == .liveStream else { return nil }
            return { result in
                let text: String
                switch result {
                case .success(let r): text = json(r)
                case .failure(let e): text = Self.line(["error": "\(e)"])
                }
                pending.withLock { $0.append(text) }
            }
        }
        let minDetection: Float = try number("min_detection_confidence", 0.5)
        let minPresence: Float = try number("min_presence_confidence", 0.5)
        let minTracking: Float = try number("min_tracking_confidence", 0.5)
        do {
            switch task {
            case "face-detector":
                var o = FaceDetectorOptions()
                (o.baseOptions, o.runningMode, o.minDetectionConfidence) = (base, mode, minDetection)
                o.minSuppressionThreshold = try number("min_suppression_threshold", 0.3)
                o.resultListener = listener(Self.line)
                let t = try FaceDetector(options: o)
                calls = Calls(
                    mode, t.detect(image:), t.detect(videoFrame:timestampInMilliseconds:), t.detectAsync, t.droppedFrames, t.close, json: Self.line)
            case "face-landmarker":
                var o = FaceLandmarkerOptions()
                (o.baseOptions, o.runningMode, o.minFaceDetectionConfidence, o.minFacePresenceConfidence) = (base, mode, minDetection, minPresence)
                o.minTrackingConfidence = minTracking
                o.numFaces = try number("num_faces", 1)
                o.outputFaceBlendshapes = try flag("output_face_blendshapes")
                o.outputFacialTransformationMatrixes = try flag("output_facial_transformation_matrixes")
                o.resultListener = listener(Self.line)
                let t = try FaceLandmarker(options: o)
                calls = Calls(
                    mode, t.detect(image:), t.detect(videoFrame:timestampInMilliseconds:), t.detectAsync, t.droppedFrames, t.close, json: Self.line)
            case "hand-landmarker":
                var o = HandLandmarkerOptions()
                (o.baseOptions, o.runningMode, o.minHandDetectionConfidence, o.minHandPresenceConfidence) = (base, mode, minDetection, minPresence)
                o.minTrackingConfidence = minTracking
                o.numHands = try number("num_hands", 1)
                o.resultListener = listener(Self.line)
                let t = try HandLandmarker(options: o)
                calls = Calls(
                    mode, t.detect(image:), t.detect(videoFrame:timestampInMilliseconds:), t.detectAsync, t.droppedFrames, t.close, json: Self.line)
            case "gesture-recognizer":
                var o = GestureRecognizerOptions()
                (o.baseOptions, o.runningMode, o.minHandDetectionConfidence, o.minHandPresenceConfidence) = (base, mode, minDetection, minPresence)
                o.minTrackingConfidence = minTracking
                o.numHands = try number("num_hands", 1)
                o.resultListener = listener(Self.line)
                let t = try GestureRecognizer(options: o)
                calls = Calls(
                    mode, t.recognize(image:), t.recognize(videoFrame:timestampInMilliseconds:), t.recognizeAsync, t.droppedFrames, t.close,
                    json: Self.line)
            case "pose-landmarker":
                var o = PoseLandmarkerOptions()
                (o.baseOptions, o.runningMode, o.minPoseDetectionConfidence, o.minPosePresenceConfidence) = (base, mode, minDetection, minPresence)
                o.minTrackingConfidence = minTracking
                o.numPoses = try number("num_poses", 1)
                o.outputSegmentationMasks = try flag("output_segmentation_masks")
                o.resultListener = listener { Self.line(PoseJSON($0)) }
                let t = try PoseLandmarker(options: o)
                calls = Calls(mode, t.detect(image:), t.detect(videoFrame:timestampInMilliseconds:), t.detectAsync, t.droppedFrames, t.close) {
                    Self.line(PoseJSON($0))
                }
            case "image-segmenter":
                var o = ImageSegmenterOptions()
                (o.baseOptions, o.runningMode) = (base, mode)
                o.shouldOutputCategoryMask = try flag("output_category_mask")
                o.resultListener = listener { Self.line(SegmenterJSON($0)) }
                let t = try ImageSegmenter(options: o)
                calls = Calls(mode, t.segment(image:), t.segment(videoFrame:timestampInMilliseconds:), t.segmentAsync, t.droppedFrames, t.close) {
                    Self.line(SegmenterJSON($0))
                }
            default:
                throw ExitRequest.usage("unknown task '\(task)'")
            }
        } catch let e as TaskError {
            throw ExitRequest.failure("frameflow task \(task): \(e)")
        }
        for name in options.keys.sorted()
        where !used.contains(name) && !["min_detection_confidence", "min_presence_confidence", "min_tracking_confidence"].contains(name) {
            throw ExitRequest.usage("--option \(name): \(task) has no such option")
        }
    }

    /// A task's calls as `frameflow task` makes them: the call of its running mode, each result
    /// a line of JSON (none from a live stream, whose lines come from the listener).
    private struct Calls {
        var process: (ImageFrame, Int) throws -> String?
        var close: () -> Void
        var dropped: () -> Int

        init<R>(
            _ mode: RunningMode, _ image: @escaping (ImageFrame) throws -> R, _ video: @escaping (ImageFrame, Int) throws -> R,
            _ async: @escaping (ImageFrame, Int) throws -> Bool, _ dropped: @escaping @autoclosure () -> Int, _ close: @escaping () -> Void,
            json: @escaping (R) -> String
        ) {
            switch mode {
            case .image: process = { frame, _ in json(try image(frame)) }
            case .video: process = { frame, ms in json(try video(frame, ms)) }
            case .liveStream:
                process = { frame, ms in
                    _ = try async(frame, ms); return nil
                }
            }
            (self.dropped, self.close) = (dropped, close)
        }
    }

    /// `r` as one line of JSON, keys sorted.
    @Sendable static func line<R: Encodable>(_ r: R) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? String(decoding: encoder.encode(r), as: UTF8.self)) ?? "{}"
    }

    /// The line of `image`'s result (nil in live-stream mode, whose lines come from `drain`).
    func process(_ image: ImageFrame, ms: Int) throws -> String? {
        do {
            return try calls.process(image, ms)
        } catch let e as TaskError {
            throw ExitRequest.failure("frameflow task: frame at \(ms) ms: \(e)")
        }
    }

    /// Closes the task and returns the live-stream lines not yet written.
    func finish() -> [String] {
        calls.close()
        return pending.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}

/// A mask in a JSON line: its size and mean.
struct MaskJSON: Encodable {
    var width: Int
    var height: Int
    var mean: Double

    init(_ image: ImageFrame) {
        (width, height) = (image.width, image.height)
        var sum = 0.0
        for y in 0..<image.height {
            if image.format == .grayFloat32 {
                let row = image.row(y)
                row.withUnsafeBytes { raw in for v in raw.bindMemory(to: Float.self) { sum += Double(v) } }
            } else {
                for b in image.row(y) { sum += Double(b) / 255 }
            }
        }
        mean = sum / Double(max(1, image.width * image.height * (image.format == .grayFloat32 ? 1 : image.format.bytesPerPixel())))
    }
}

/// `PoseLandmarkerResult` in a JSON line (masks summarised).
struct PoseJSON: Encodable {
    var landmarks: [[NormalizedLandmark]]
    var worldLandmarks: [[Landmark]]
    var segmentationMasks: [MaskJSON]?
    var timestampInMilliseconds: Int

    init(_ r: PoseLandmarkerResult) {
        (landmarks, worldLandmarks, timestampInMilliseconds) = (r.landmarks, r.worldLandmarks, r.timestampInMilliseconds)
        segmentationMasks = r.segmentationMasks?.map(MaskJSON.init)
    }
}

/// `ImageSegmenterResult` in a JSON line (masks summarised).
struct SegmenterJSON: Encodable {
    var confidenceMasks: [MaskJSON]?
    var categoryMask: MaskJSON?
    var timestampInMilliseconds: Int

    init(_ r: ImageSegmenterResult) {
        confidenceMasks = r.confidenceMasks?.map(MaskJSON.init)
        categoryMask = r.categoryMask.map(MaskJSON.init)
        timestampInMilliseconds = r.timestampInMilliseconds
    }
}
