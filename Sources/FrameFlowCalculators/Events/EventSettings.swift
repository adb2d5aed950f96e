import FrameFlow
import Foundation

/// A camera's zones, lines, object filters and masks: the options of the events calculators
/// (`[frameflow.EventSettings.ext] { … }`), the `EVENT_SETTINGS` side packet they also take (the
/// same text), and a fleet camera's `events { … }` block. All three are read by one parser,
/// `EventSettings.decode(from:node:)` (the graph's options parser), so a field means the same
/// everywhere and every error names the field, its line and column.
///
/// ```
/// zone { name: "door" units: "normalized" inertia: 3 label: "person"
///        point { x: 0.1 y: 0.5 } point { x: 0.5 y: 0.5 } point { x: 0.5 y: 1 } point { x: 0.1 y: 1 } }
/// line { name: "gate" point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } min_frames: 2 }
/// filter { label: "person" min_area: 1500 max_area: 100000 min_score: 0.5 min_ratio: 0.2 max_ratio: 1 }
/// mask { point { x: 0 y: 0 } point { x: 0.2 y: 0 } point { x: 0.2 y: 0.1 } }
/// track: "person"
/// ```
///
/// Geometry: an object is placed at its box's bottom centre (where it stands). Points are
/// `normalized` (fractions of the frame, 0…1, the default) or `pixels` (0…100000); a polygon
/// has at least 3 points and a non-zero area; a line has 2 distinct points. Names are letters,
/// digits, `_` and `-` (they become MQTT topic levels), unique among zones and among lines.
public struct EventSettings: CalculatorOptions, Equatable {
    public static let typeName: String? = "frameflow.EventSettings"

    /// A point of a polygon or line.
    public struct Point: CalculatorOptions, Equatable {
        /// Across (0 = left edge) and down (0 = top edge).
        public var x = 0.0
        public var y = 0.0
        public init() {}
        /// The point (x, y).
        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    }

    /// A named area: an object is in it once its bottom centre has been inside for `inertia`
    /// frames in a row, and out of it once it has been outside for as many.
    public struct Zone: CalculatorOptions, Equatable {
        /// The zone's name (topic-safe, unique).
        public var name = ""
        /// The polygon's corners, in order (at least 3).
        public var point: [Point] = []
        /// `normalized` (0…1) or `pixels`.
        public var units = "normalized"
        /// Frames in a row (1…1000) before entering or leaving counts.
        public var inertia = 3
        /// Only objects with these labels are placed in the zone; empty: every label.
        public var label: [String] = []
        public init() {}
    }

    /// A counting line from `point[0]` (A) to `point[1]` (B): an object whose bottom centre
    /// crosses it between A and B is counted `in` when it goes from the left of A→B to its right
    /// (as seen on the image, y down), `out` the other way, once it has stayed on the new side
    /// for `min_frames` frames.
    public struct Line: CalculatorOptions, Equatable {
        /// The line's name (topic-safe, unique).
        public var name = ""
        /// A and B.
        public var point: [Point] = []
        /// `normalized` (0…1) or `pixels`.
        public var units = "normalized"
        /// Frames (1…1000) an object must stay on its new side before the crossing counts.
        public var minFrames = 2
        /// Only objects with these labels are counted; empty: every label.
        public var label: [String] = []
        public init() {}
    }

    /// Limits a detection must meet (Frigate's object filters): the filter whose `label` is the
    /// detection's, else the one with an empty label, else none.
    public struct ObjectFilter: CalculatorOptions, Equatable {
        /// The label it applies to; empty: every label without its own filter.
        public var label = ""
        /// Box area in pixels (0…1e8, max at least 1).
        public var minArea = 0.0
        public var maxArea = 100_000_000.0
        /// The lowest score (0…1).
        public var minScore = 0.0
        /// Box width ÷ height (0…10000, max at least 0.0001).
        public var minRatio = 0.0
        public var maxRatio = 10_000.0
        public init() {}
    }

    /// An area where nothing is detected: detections whose bottom centre is inside are dropped.
    public struct Mask: CalculatorOptions, Equatable {
        /// The polygon's corners (at least 3).
        public var point: [Point] = []
        /// `normalized` (0…1) or `pixels`.
        public var units = "normalized"
        public init() {}
    }

    /// The zones, lines, filters and masks.
    public var zone: [Zone] = []
    public var line: [Line] = []
    public var filter: [ObjectFilter] = []
    public var mask: [Mask] = []
    /// The labels kept by `ObjectFilterCalculator` (Frigate's `objects.track`); empty: every label.
    public var track: [String] = []

    /// No zones, lines, filters or masks.
    public init() {}

    /// Reads settings written in the protobuf text format (the `EVENT_SETTINGS` side packet, or a
    /// file's text); `what` names the source in errors.
    public static func parse(_ text: String, what: String) throws -> EventSettings {
        let message = try TextFormatParser.parse(text, file: what)
        return try decode(from: message, node: what)
    }

    /// Checks every value; each error names the field (`zone[1].point[0].x`) so the graph can
    /// point at its line.
    public func validate() throws {
        var zoneNames = Set<String>()
        for (i, z) in zone.enumerated() {
            let field = "zone[\(i)]"
            try Self.checkName(z.name, field)
            guard zoneNames.insert(z.name).inserted else { throw GraphError(.invalidOption, "\(field).name '\(z.name)' is used by two zones") }
            try Self.checkPolygon(z.point, units: z.units, field)
            try OptionCheck.range(z.inertia, 1...1000, "\(field).inertia")
            try Self.checkLabels(z.label, "\(field).label")
        }
        var lineNames = Set<String>()
        for (i, l) in line.enumerated() {
            let field = "line[\(i)]"
            try Self.checkName(l.name, field)
            guard lineNames.insert(l.name).inserted else { throw GraphError(.invalidOption, "\(field).name '\(l.name)' is used by two lines") }
            try Self.checkUnits(l.units, field)
            guard l.point.count == 2 else {
                throw GraphError(.invalidOption, "\(field).point: a line has exactly 2 points, not \(l.point.count)")
            }
            try Self.checkPoints(l.point, units: l.units, field)
            guard l.point[0] != l.point[1] else { throw GraphError(.invalidOption, "\(field).point: the line's 2 points are the same") }
            try OptionCheck.range(l.minFrames, 1...1000, "\(field).min_frames")
            try Self.checkLabels(l.label, "\(field).label")
        }
        var filterLabels = Set<String>()
        for (i, f) in filter.enumerated() {
            let field = "filter[\(i)]"
            guard filterLabels.insert(f.label).inserted else {
                throw GraphError(.invalidOption, "\(field).label '\(f.label)' has two filters")
            }
            try OptionCheck.range(f.minArea, 0...1e8, "\(field).min_area")
            try OptionCheck.range(f.maxArea, 1...1e8, "\(field).max_area")
            try OptionCheck.range(f.minScore, 0...1, "\(field).min_score")
            try OptionCheck.range(f.minRatio, 0...10_000, "\(field).min_ratio")
            try OptionCheck.range(f.maxRatio, 0.0001...10_000, "\(field).max_ratio")
            guard f.minArea <= f.maxArea else {
                throw GraphError(.invalidOption, "\(field).min_area (\(f.minArea)) is above max_area (\(f.maxArea))")
            }
            guard f.minRatio <= f.maxRatio else {
                throw GraphError(.invalidOption, "\(field).min_ratio (\(f.minRatio)) is above max_ratio (\(f.maxRatio))")
            }
        }
        for (i, m) in mask.enumerated() { try Self.checkPolygon(m.point, units: m.units, "mask[\(i)]") }
        try Self.checkLabels(track, "track")
    }

    private static func checkName(_ name: String, _ field: String) throws {
        guard !name.isEmpty else { throw GraphError(.invalidOption, "\(field).name is missing or empty") }
        guard name.count <= 64,
            name.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-" })
        else {
            throw GraphError(.invalidOption, "\(field).name '\(name)' must be 1 to 64 letters, digits, '_' or '-' (it names MQTT topics)")
        }
    }

    private static func checkLabels(_ labels: [String], _ field: String) throws {
        for l in labels where l.isEmpty { throw GraphError(.invalidOption, "\(field) has an empty label") }
    }

    private static func checkUnits(_ units: String, _ field: String) throws {
        guard units == "normalized" || units == "pixels" else {
            throw GraphError(.invalidOption, "\(field).units must be \"normalized\" or \"pixels\", not \"\(units)\"")
        }
    }

    private static func checkPoints(_ points: [Point], units: String, _ field: String) throws {
        let range = units == "pixels" ? 0.0...100_000 : 0.0...1
        for (j, p) in points.enumerated() {
            try OptionCheck.range(p.x, range, "\(field).point[\(j)].x")
            try OptionCheck.range(p.y, range, "\(field).point[\(j)].y")
        }
    }

    private static func checkPolygon(_ points: [Point], units: String, _ field: String) throws {
        try checkUnits(units, field)
        guard points.count >= 3 else {
            throw GraphError(.invalidOption, "\(field).point: a polygon needs at least 3 points, not \(points.count)")
        }
        guard points.count <= 1000 else { throw GraphError(.invalidOption, "\(field).point: at most 1000 points, not \(points.count)") }
        try checkPoints(points, units: units, field)
        let polygon = Polygon(points.map { ($0.x, $0.y) })
        guard abs(polygon.signedArea) > 0 else {
            throw GraphError(.invalidOption, "\(field).point: the polygon has no area (its points are on one line)")
        }
    }

    /// The settings' text in the protobuf text format (what `parse` reads back).
    public var textFormat: String {
        func q(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func pts(_ p: [Point]) -> String { p.map { "point { x: \($0.x) y: \($0.y) }" }.joined(separator: " ") }
        func labels(_ name: String, _ l: [String]) -> String { l.map { " \(name): \(q($0))" }.joined() }
        var lines: [String] = []
        for z in zone {
            lines.append("zone { name: \(q(z.name)) units: \(q(z.units)) inertia: \(z.inertia)\(labels("label", z.label)) \(pts(z.point)) }")
        }
        for l in line {
            lines.append("line { name: \(q(l.name)) units: \(q(l.units)) min_frames: \(l.minFrames)\(labels("label", l.label)) \(pts(l.point)) }")
        }
        for f in filter {
            lines.append(
                "filter { label: \(q(f.label)) min_area: \(f.minArea) max_area: \(f.maxArea) min_score: \(f.minScore)"
                    + " min_ratio: \(f.minRatio) max_ratio: \(f.maxRatio) }")
        }
        for m in mask { lines.append("mask { units: \(q(m.units)) \(pts(m.point)) }") }
        if !track.isEmpty { lines.append(labels("track", track).trimmingCharacters(in: .whitespaces)) }
        return lines.joined(separator: "\n")
    }
}
