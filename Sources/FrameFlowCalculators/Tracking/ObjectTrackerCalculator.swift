import FrameFlow

/// Gives each detected object one id across frames with `ByteTracker` (ByteTrack, as
/// supervision's `sv.ByteTrack`): the detections that belong to confirmed tracks come out with
/// `detection_id` = the track's id, in input order, their boxes, labels and scores unchanged.
///
/// Frames follow the timestamps: each `DETECTIONS` packet is one frame (an empty list is a frame
/// in which nothing was found), and a timestamp more than one frame period (1/`frame_rate`)
/// after the previous one counts the frames in between as frames without detections (a missed
/// frame is no packet at its timestamp), so `lost_track_buffer` is kept in video time; run the
/// detector on every n-th frame with `frame_rate` = the detector's rate. Boxes are tracked in
/// pixels: pixel boxes as they are, relative boxes × `IMAGE_SIZE` when it is connected
/// (otherwise in fractions of the image, where the filter's noise model, made for pixels,
/// behaves slightly differently). Detections with an empty box are not tracked.
///
/// Inputs:
///   - `DETECTIONS`: `[Detection]`, one frame's detections.
///   - `IMAGE_SIZE`: `ImageSize` (optional), the frame's size, for relative boxes; the latest
///     one holds until the next.
/// Outputs:
///   - `DETECTIONS`: `[Detection]`, the tracked detections with `detection_id` (with
///     `emit_unconfirmed`, every input detection, those without a confirmed track without id).
///   - `TRACKS`: `[TrackedObject]` (optional), every confirmed track not yet dropped (tracked
///     or lost), by id: boxes in the tracking units, first/last seen (µs), top score, recent
///     history, stationary flag, the latest matched detection's label and label id.
/// Options: `frameflow.ObjectTrackerCalculatorOptions` { track_activation_threshold (0.25,
/// 0…1), lost_track_buffer (30 frames at 30 fps, 0…100000), minimum_matching_threshold (0.8,
/// 0…1), frame_rate (30, 0.01…1000), minimum_consecutive_frames (1, 1…100000),
/// stationary_threshold (0.1 box heights, 0…100), stationary_frames (50, 1…1000000),
/// history_length (64, 1…100000), emit_unconfirmed (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ObjectTrackerCalculator"
///   input_stream: "DETECTIONS:people"
///   output_stream: "DETECTIONS:tracked_people"
///   output_stream: "TRACKS:tracks"
///   options { [frameflow.ObjectTrackerCalculatorOptions.ext] { frame_rate: 10 lost_track_buffer: 30 } }
/// }
/// ```
public final class ObjectTrackerCalculator: Calculator {
    /// The tracker's settings (supervision's `ByteTrack` arguments, then FrameFlow's).
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ObjectTrackerCalculatorOptions"
        /// Detections scoring above it are matched first; a new track needs it + 0.1.
        public var trackActivationThreshold = 0.25
        /// Frames (counted at 30 fps: scaled by `frameRate` / 30) a lost track is kept.
        public var lostTrackBuffer = 30
        /// The highest first-stage matching cost (1 − IoU × score).
        public var minimumMatchingThreshold = 0.8
        /// The stream's frame rate: the frame period for counting missed frames.
        public var frameRate = 30.0
        /// Frames in a row a track is matched before it gets an id.
        public var minimumConsecutiveFrames = 1
        /// How far (in box heights) a centre may move and still count as not moving.
        public var stationaryThreshold = 0.1
        /// Frames without moving after which a track is stationary.
        public var stationaryFrames = 50
        /// Matched detections kept per track in `TRACKS`.
        public var historyLength = 64
        /// Emit every input detection (untracked ones without id), not only tracked ones.
        public var emitUnconfirmed = false
        public init() {}

        /// The tracker parameters these options give.
        public var parameters: ByteTracker.Parameters {
            var p = ByteTracker.Parameters()
            p.trackActivationThreshold = trackActivationThreshold
            p.lostTrackBuffer = lostTrackBuffer
            p.minimumMatchingThreshold = minimumMatchingThreshold
            p.frameRate = frameRate
            p.minimumConsecutiveFrames = minimumConsecutiveFrames
            p.stationaryThreshold = stationaryThreshold
            p.stationaryFrames = stationaryFrames
            p.historyLength = historyLength
            return p
        }
    }

    /// One frame's detections.
    public static let detectionsIn = InputPort<[Detection]>("DETECTIONS")
    /// The frame's size (for relative boxes).
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The tracked detections, `detectionID` = track id.
    public static let detectionsOut = OutputPort<[Detection]>("DETECTIONS")
    /// The confirmed tracks' state.
    public static let tracks = OutputPort<[TrackedObject]>("TRACKS", optional: true)

    public static let contract = CalculatorContract(ports: [detectionsIn, imageSize, detectionsOut, tracks])

    private let options: Options
    private var tracker: ByteTracker
    private var size: ImageSize?
    private var previous: Int64?

    public init(options: Options) {
        self.options = options
        tracker = ByteTracker(options.parameters)
    }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        guard let detections = try cc.value(Self.detectionsIn) else { return }
        let stream = cc.inputStreamName(Self.detectionsIn.tag)
        let now = cc.inputTimestamp.microseconds
        // Frames missed since the previous packet (rounded periods, at least one).
        if let previous {
            let periods = (Double(now) - Double(previous)) * options.frameRate / 1_000_000
            let frames = periods.rounded()
            if frames > 1 { tracker.skip(frames: frames < 1e9 ? Int(frames) - 1 : 1_000_000_000, time: now) }
        }
        previous = now

        var inputs: [ByteTracker.Input] = []
        var indexes: [Int] = []
        for (i, d) in detections.enumerated() {
            var b = d.box
            if d.isRelative && cc.isConnected(Self.imageSize) {
                guard let size else {
                    throw GraphError(.calculatorFailed, "relative boxes at \(cc.inputTimestamp) before any IMAGE_SIZE packet", stream: stream)
                }
                b = d.box(inImageOfWidth: size.width, height: size.height)
            }
            let values = [b.x, b.y, b.width, b.height, d.score]
            guard values.allSatisfy({ $0.isFinite && abs($0) <= 1e9 }) else {
                throw GraphError(
                    .calculatorFailed, "detection \(i) at \(cc.inputTimestamp) has a box or score that is not a finite number up to 1e9: \(values)",
                    stream: stream)
            }
            guard b.width > 0, b.height > 0 else { continue }  // nothing to track
            inputs.append(.init(x1: b.x, y1: b.y, x2: b.x + b.width, y2: b.y + b.height, score: d.score, label: d.label, labelID: d.labelID))
            indexes.append(i)
        }
        let assigned = tracker.update(inputs, time: now)
        var ids = [Int?](repeating: nil, count: detections.count)
        for a in assigned { ids[indexes[a.detection]] = a.track.id }
        var out: [Detection] = []
        for (i, d) in detections.enumerated() where options.emitUnconfirmed || ids[i] != nil {
            var d = d
            d.detectionID = ids[i]
            out.append(d)
        }
        try cc.emit(out, to: Self.detectionsOut)
        if cc.isConnected(Self.tracks) { try cc.emit(tracker.tracks, to: Self.tracks) }
    }
}

extension ObjectTrackerCalculator.Options {
    /// Checks the values (called by the graph before `init`).
    public func validate() throws {
        try OptionCheck.range(trackActivationThreshold, 0...1, "track_activation_threshold")
        try OptionCheck.range(lostTrackBuffer, 0...100_000, "lost_track_buffer")
        try OptionCheck.range(minimumMatchingThreshold, 0...1, "minimum_matching_threshold")
        try OptionCheck.range(frameRate, 0.01...1000, "frame_rate")
        try OptionCheck.range(minimumConsecutiveFrames, 1...100_000, "minimum_consecutive_frames")
        try OptionCheck.range(stationaryThreshold, 0...100, "stationary_threshold")
        try OptionCheck.range(stationaryFrames, 1...1_000_000, "stationary_frames")
        try OptionCheck.range(historyLength, 1...100_000, "history_length")
    }
}
