/// One tracked object as `ByteTracker` reports it: its id, where it was seen, how well, and
/// whether it stands still — what zones, line counters and events read from a track.
public struct TrackedObject: Sendable, Hashable, Codable {
    /// A track's place in its lifecycle.
    public enum State: String, Sendable, Hashable, Codable {
        /// Matched to a detection in the latest frame.
        case tracked
        /// Unmatched lately; kept (and predicted) for `lost_track_buffer` frames.
        case lost
    }

    /// A box as (x1, y1, x2, y2): left, top, right, bottom.
    public struct Box: Sendable, Hashable, Codable {
        /// Left, top, right, bottom.
        public var x1: Double, y1: Double, x2: Double, y2: Double
        /// The box from its edges.
        public init(x1: Double, y1: Double, x2: Double, y2: Double) { (self.x1, self.y1, self.x2, self.y2) = (x1, y1, x2, y2) }
        /// The box's centre.
        public var center: (x: Double, y: Double) { ((x1 + x2) / 2, (y1 + y2) / 2) }
        /// The middle of the bottom edge (where a person stands, for zones).
        public var bottomCenter: (x: Double, y: Double) { ((x1 + x2) / 2, y2) }
        /// x2 − x1.
        public var width: Double { x2 - x1 }
        /// y2 − y1.
        public var height: Double { y2 - y1 }
    }

    /// A detection the track was matched to.
    public struct Observation: Sendable, Hashable, Codable {
        /// The tracker's frame number.
        public var frame: Int
        /// The caller's time of that frame (`ByteTracker.update`'s `time`).
        public var time: Int64
        /// The detection's box and score.
        public var box: Box
        public var score: Double
    }

    /// The id (1, 2, …; the reference's external id), given when the track is confirmed.
    public var id: Int
    /// Tracked (matched in the latest frame) or lost.
    public var state: State
    /// The latest detection's box and score.
    public var box: Box
    public var score: Double
    /// The Kalman filter's box for the latest frame (predicted when the track is lost).
    public var filteredBox: Box
    /// The best score of any detection matched so far.
    public var topScore: Double
    /// Frame number and time of the first and the latest matched detection.
    public var firstFrame: Int, lastFrame: Int
    public var firstSeen: Int64, lastSeen: Int64
    /// Matched detections so far.
    public var hits: Int
    /// Whether the box's centre stayed within the stationary distance for the stationary number
    /// of frames (see `ByteTracker.Parameters.stationaryThreshold`).
    public var isStationary: Bool
    /// Frames since the centre last moved beyond the stationary distance.
    public var motionlessFrames: Int
    /// The latest matched detections, oldest first, at most `historyLength`.
    public var history: [Observation]
    /// The label and label id of the latest matched detection (as supervision keeps
    /// `class_id`); nil when the detections had none.
    public var label: String?
    public var labelID: Int?

    /// A track with every field given (trackers make them; tests and replays build them).
    public init(
        id: Int, state: State = .tracked, box: Box, score: Double, filteredBox: Box? = nil, topScore: Double? = nil, firstFrame: Int = 1,
        lastFrame: Int = 1, firstSeen: Int64 = 0, lastSeen: Int64 = 0, hits: Int = 1, isStationary: Bool = false, motionlessFrames: Int = 0,
        history: [Observation] = [], label: String? = nil, labelID: Int? = nil
    ) {
        self.id = id
        self.state = state
        self.box = box
        self.score = score
        self.filteredBox = filteredBox ?? box
        self.topScore = topScore ?? score
        self.firstFrame = firstFrame
        self.lastFrame = lastFrame
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.hits = hits
        self.isStationary = isStationary
        self.motionlessFrames = motionlessFrames
        self.history = history
        self.label = label
        self.labelID = labelID
    }
}
