/// The zones one tracked object is in, as `ZoneCalculator` reports it each frame.
public struct ZonePresence: Sendable, Hashable, Codable {
    /// The track's id (`TrackedObject.id`).
    public var trackID: Int
    /// The zones it is in now, in the settings' order.
    public var currentZones: [String]
    /// Every zone it has entered since it was first seen, in order of entry.
    public var enteredZones: [String]

    /// A track's zones.
    public init(trackID: Int, currentZones: [String] = [], enteredZones: [String] = []) {
        self.trackID = trackID
        self.currentZones = currentZones
        self.enteredZones = enteredZones
    }

    enum CodingKeys: String, CodingKey {
        case trackID = "track_id"
        case currentZones = "current_zones"
        case enteredZones = "entered_zones"
    }
}

/// One object crossing one line, as `LineCounterCalculator` reports it.
public struct LineCrossing: Sendable, Hashable, Codable {
    /// The line's name.
    public var line: String
    /// The track's id and label (`"object"` when it has none).
    public var trackID: Int
    public var label: String
    /// `"in"` (from the left of A→B to its right, as seen on the image) or `"out"`.
    public var direction: String

    /// A crossing.
    public init(line: String, trackID: Int, label: String, direction: String) {
        (self.line, self.trackID, self.label, self.direction) = (line, trackID, label, direction)
    }

    enum CodingKeys: String, CodingKey {
        case line, label, direction
        case trackID = "track_id"
    }
}

/// A line's crossings so far, by direction, in all and per label.
public struct LineCount: Sendable, Hashable, Codable {
    /// The line's name.
    public var line: String
    /// Crossings `in` and `out`, every label.
    public var inCount: Int
    public var outCount: Int
    /// Crossings by label.
    public var inByLabel: [String: Int]
    public var outByLabel: [String: Int]

    /// A line with no crossing yet.
    public init(line: String) {
        self.line = line
        (inCount, outCount, inByLabel, outByLabel) = (0, 0, [:], [:])
    }

    enum CodingKeys: String, CodingKey {
        case line
        case inCount = "in"
        case outCount = "out"
        case inByLabel = "in_by_label"
        case outByLabel = "out_by_label"
    }
}
