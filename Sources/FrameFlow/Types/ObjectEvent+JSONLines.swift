import Foundation

extension ObjectEvent: JSONLinesRepresentable, JSONLinesArrayElement {
    /// The event's own JSON (`type`, `before`, `after`, Frigate's keys), so a `.jsonl` line holds
    /// the message an MQTT subscriber gets, after `stream` and `timestamp_us`.
    public var jsonObject: [String: Any] {
        guard let data = try? JSONEncoder().encode(self), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return [:]
        }
        return object
    }

    /// `events`: one frame's events, each as above.
    public static func jsonObject(for elements: [Self]) -> [String: Any] { ["events": elements.map(\.jsonObject)] }
}
