import FrameFlow
import FrameFlowCalculators

/// Tracks for the events tests: a person-sized box whose bottom centre is at (`x`, `y`).
enum EventTracks {
    static func standing(
        id: Int, x: Double, y: Double, frame: Int, state: TrackedObject.State = .tracked, label: String? = "person", score: Double = 0.9
    ) -> TrackedObject {
        TrackedObject(
            id: id, state: state, box: .init(x1: x - 10, y1: y - 40, x2: x + 10, y2: y), score: score, firstFrame: 1, lastFrame: frame,
            firstSeen: 0, lastSeen: Int64(frame) * 100_000, label: label)
    }

    /// The settings text `body` parsed.
    static func settings(_ body: String) throws -> EventSettings { try EventSettings.parse(body, what: "test") }
}
