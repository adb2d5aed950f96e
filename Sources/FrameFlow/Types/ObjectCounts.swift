/// How many tracked objects a camera sees now, by label, in the whole frame and in each zone:
/// what `EventBuilderCalculator` emits on `COUNTS` when a number changes, and what MQTT
/// outputs publish, retained, as Frigate does (`frameflow/<camera>/<label>` and
/// `frameflow/<zone>/<label>`, the payload the number).
///
/// Every label seen since the start stays in the maps (with 0 once its objects are gone), and
/// `"all"` counts every label, so a retained topic is set back to 0 rather than left stale.
public struct ObjectCounts: Sendable, Hashable, Codable {
    /// The camera (or graph) counted.
    public var camera: String
    /// Objects in the frame by label, `"all"` included.
    public var objects: [String: Int]
    /// Per zone name: objects in the zone by label, `"all"` included.
    public var zones: [String: [String: Int]]

    /// Counts from their parts.
    public init(camera: String, objects: [String: Int] = [:], zones: [String: [String: Int]] = [:]) {
        self.camera = camera
        self.objects = objects
        self.zones = zones
    }
}

extension ObjectCounts: JSONLinesRepresentable {
    /// `{"camera": …, "objects": {label: n}, "zones": {zone: {label: n}}}`.
    public var jsonObject: [String: Any] { ["camera": camera, "objects": objects, "zones": zones] }
}
