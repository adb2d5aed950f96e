/// One message of a tracked object's event, in the shape Frigate publishes on `frigate/events`
/// (`type` new → update… → end, with the object's state `before` and `after` the change), so
/// integrations written for Frigate read FrameFlow's events as they are.
///
/// Encoded with `JSONEncoder` it gives Frigate's keys (`top_score`, `current_zones`, …); times
/// are seconds since the Unix epoch (or since the stream's start for files), boxes are pixels
/// `[x1, y1, x2, y2]`. The same value is what `EventBuilderCalculator` emits, what JSON Lines
/// and MQTT outputs write and what snapshot and clip writers key on (`after.id`).
public struct ObjectEvent: Sendable, Hashable, Codable {
    /// Where an event is in its lifecycle.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The object was confirmed: the first message of its event.
        case new
        /// Something that matters changed: a zone entered or left, a better score or snapshot,
        /// stationary or moving again, a snapshot or clip now available.
        case update
        /// The object is gone (lost for longer than the tracker keeps it, or the stream ended):
        /// the last message, with `end_time` set.
        case end
    }

    /// A tracked object's state at one moment.
    public struct State: Sendable, Hashable, Codable {
        /// The event's id: unique per camera and run (`"<start_time>-<camera>-<track id>"`).
        public var id: String
        /// The camera (or graph) that saw it.
        public var camera: String
        /// The time of the frame this state describes (seconds).
        public var frameTime: Double
        /// The time of the frame the current snapshot was taken from, if any.
        public var snapshotTime: Double?
        /// The object's label ("person").
        public var label: String
        /// A finer label from a second stage (a recognised face's name), if any.
        public var subLabel: String?
        /// The best score so far.
        public var topScore: Double
        /// Whether the object is not (yet) believed real; FrameFlow publishes only confirmed
        /// tracks, so this is false in every message it sends.
        public var falsePositive: Bool
        /// When the object was first seen.
        public var startTime: Double
        /// When its event ended (nil while open).
        public var endTime: Double?
        /// The latest detection's score.
        public var score: Double
        /// The latest detection's box (pixels `[x1, y1, x2, y2]`).
        public var box: [Double]
        /// The box's area in pixels.
        public var area: Double
        /// The box's width ÷ height.
        public var ratio: Double
        /// The part of the frame the detector looked at for it (the whole frame when the
        /// detector ran on whole frames).
        public var region: [Double]
        /// Zones the object is in now.
        public var currentZones: [String]
        /// Every zone it has entered, in order of entry.
        public var enteredZones: [String]
        /// Whether a snapshot of the event exists.
        public var hasSnapshot: Bool
        /// Whether a clip of the event exists.
        public var hasClip: Bool
        /// Whether the object stands still.
        public var stationary: Bool
        /// `!stationary` (Frigate's convenience field).
        public var active: Bool
        /// Frames the object has been motionless.
        public var motionlessCount: Int
        /// How often it moved again after stopping.
        public var positionChanges: Int

        /// A state with every field given.
        public init(
            id: String, camera: String, frameTime: Double, snapshotTime: Double? = nil, label: String, subLabel: String? = nil,
            topScore: Double, falsePositive: Bool = false, startTime: Double, endTime: Double? = nil, score: Double, box: [Double],
            area: Double, ratio: Double, region: [Double], currentZones: [String] = [], enteredZones: [String] = [],
            hasSnapshot: Bool = false, hasClip: Bool = false, stationary: Bool = false, motionlessCount: Int = 0, positionChanges: Int = 0
        ) {
            self.id = id
            self.camera = camera
            self.frameTime = frameTime
            self.snapshotTime = snapshotTime
            self.label = label
            self.subLabel = subLabel
            self.topScore = topScore
            self.falsePositive = falsePositive
            self.startTime = startTime
            self.endTime = endTime
            self.score = score
            self.box = box
            self.area = area
            self.ratio = ratio
            self.region = region
            self.currentZones = currentZones
            self.enteredZones = enteredZones
            self.hasSnapshot = hasSnapshot
            self.hasClip = hasClip
            self.stationary = stationary
            self.active = !stationary
            self.motionlessCount = motionlessCount
            self.positionChanges = positionChanges
        }

        enum CodingKeys: String, CodingKey {
            case id, camera, label, score, box, area, ratio, region, stationary, active
            case frameTime = "frame_time"
            case snapshotTime = "snapshot_time"
            case subLabel = "sub_label"
            case topScore = "top_score"
            case falsePositive = "false_positive"
            case startTime = "start_time"
            case endTime = "end_time"
            case currentZones = "current_zones"
            case enteredZones = "entered_zones"
            case hasSnapshot = "has_snapshot"
            case hasClip = "has_clip"
            case motionlessCount = "motionless_count"
            case positionChanges = "position_changes"
        }

        /// Writes every key, nulls included, as Frigate does (a reader may expect `end_time`).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(camera, forKey: .camera)
            try c.encode(frameTime, forKey: .frameTime)
            try c.encode(snapshotTime, forKey: .snapshotTime)
            try c.encode(label, forKey: .label)
            try c.encode(subLabel, forKey: .subLabel)
            try c.encode(topScore, forKey: .topScore)
            try c.encode(falsePositive, forKey: .falsePositive)
            try c.encode(startTime, forKey: .startTime)
            try c.encode(endTime, forKey: .endTime)
            try c.encode(score, forKey: .score)
            try c.encode(box, forKey: .box)
            try c.encode(area, forKey: .area)
            try c.encode(ratio, forKey: .ratio)
            try c.encode(region, forKey: .region)
            try c.encode(currentZones, forKey: .currentZones)
            try c.encode(enteredZones, forKey: .enteredZones)
            try c.encode(hasSnapshot, forKey: .hasSnapshot)
            try c.encode(hasClip, forKey: .hasClip)
            try c.encode(stationary, forKey: .stationary)
            try c.encode(active, forKey: .active)
            try c.encode(motionlessCount, forKey: .motionlessCount)
            try c.encode(positionChanges, forKey: .positionChanges)
        }
    }

    /// new, update or end.
    public var type: Kind
    /// The object's state at the previous message (the same as `after` in a `new` message).
    public var before: State
    /// The object's state now.
    public var after: State

    /// The message `type` taking the object from `before` to `after`.
    public init(type: Kind, before: State, after: State) {
        self.type = type
        self.before = before
        self.after = after
    }
}
