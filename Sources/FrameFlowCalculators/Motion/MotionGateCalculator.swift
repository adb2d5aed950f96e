import FrameFlow

/// Decides per frame whether an object detector runs, as Frigate does: on the first frame, on
/// any frame with motion (a motion box of at least `min_motion_area` pixels), and, while
/// tracked objects exist, at least every `stationary_interval` frames (so objects that stopped
/// moving, which make no motion, are re-checked); `max_interval` > 0 also re-checks a scene
/// with no objects that often. Its `ALLOW` feeds a `GateCalculator` in front of the detector.
///
/// The tracker behind the detector then sees only the frames the detector ran: a timestamp
/// without detections is a missed frame to `ObjectTrackerCalculator`, so a stationary object's
/// track is kept (lost, not dropped) between re-checks when the tracker's `lost_track_buffer`
/// (frames at 30 fps, scaled by its `frame_rate` / 30) is longer than `stationary_interval`,
/// and the re-check matches it again with its id (`Graphs/people_detection_hog_gated.pbtxt`).
///
/// Inputs:
///   - `MOTION`: `[Detection]`, the frame's motion boxes (pixel boxes; `MotionDetectorCalculator`).
///   - `TRACKS`: `[TrackedObject]` (optional, usually a back edge from the tracker): whether
///     objects exist; the latest packet holds until the next.
/// Outputs:
///   - `ALLOW`: `Bool`, whether the detector runs on this frame.
/// Options: `frameflow.MotionGateCalculatorOptions` { min_motion_area (0 pixels², any box
/// counts; 0…1e12), stationary_interval (25 frames, 1…1000000), max_interval (0 = none,
/// 0…1000000) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "MotionGateCalculator"
///   input_stream: "MOTION:motion"
///   input_stream: "TRACKS:tracks"
///   input_stream_info: { tag_index: "TRACKS" back_edge: true }
///   output_stream: "ALLOW:run_detector"
///   options { [frameflow.MotionGateCalculatorOptions.ext] { stationary_interval: 25 } }
/// }
/// ```
public final class MotionGateCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.MotionGateCalculatorOptions"
        /// Smallest motion box (pixels²) that makes the detector run; 0: any.
        public var minMotionArea = 0.0
        /// While objects exist, the longest run of frames without the detector.
        public var stationaryInterval = 25
        /// The longest run of frames without the detector even with no objects; 0: no limit.
        public var maxInterval = 0
        public init() {}

        public func validate() throws {
            try OptionCheck.range(minMotionArea, 0...1e12, "min_motion_area")
            try OptionCheck.range(stationaryInterval, 1...1_000_000, "stationary_interval")
            try OptionCheck.range(maxInterval, 0...1_000_000, "max_interval")
        }
    }

    /// The decision rule, frame by frame (the calculator's state; usable without a graph).
    public struct Policy: Sendable {
        public let options: Options
        /// Frames since the detector last ran (nil before the first frame).
        public private(set) var framesSinceRun: Int?
        /// Whether objects exist, as last reported.
        public private(set) var objectsPresent = false

        public init(_ options: Options) { self.options = options }

        /// Whether the detector runs on the next frame, given its motion boxes and, when
        /// known, whether tracked objects exist.
        public mutating func decide(motion: [Rect], objectsPresent objects: Bool? = nil) -> Bool {
            if let objects { objectsPresent = objects }
            let run: Bool
            if let since = framesSinceRun {
                let gap = since + 1
                run =
                    motion.contains { $0.width * $0.height >= options.minMotionArea }
                    || (objectsPresent && gap >= options.stationaryInterval)
                    || (options.maxInterval > 0 && gap >= options.maxInterval)
            } else {
                run = true
            }
            framesSinceRun = run ? 0 : framesSinceRun! + 1
            return run
        }
    }

    /// The frame's motion boxes.
    public static let motion = InputPort<[Detection]>("MOTION")
    /// The tracker's objects.
    public static let tracks = InputPort<[TrackedObject]>("TRACKS", optional: true)
    /// Whether the detector runs.
    public static let allow = OutputPort<Bool>("ALLOW")

    /// Each packet is taken as it comes: `TRACKS` comes back from frames already decided.
    public static let contract = CalculatorContract(ports: [motion, tracks, allow], inputPolicy: .immediate, timestampOffset: nil)

    private var policy: Policy

    public init(options: Options) { policy = Policy(options) }

    public func process(_ cc: CalculatorContext) throws {
        let objects = try cc.value(Self.tracks).map { !$0.isEmpty }
        guard let motion = try cc.value(Self.motion) else { return }  // a tracks-only step
        try cc.emit(policy.decide(motion: motion.map(\.box), objectsPresent: objects), to: Self.allow)
    }
}
