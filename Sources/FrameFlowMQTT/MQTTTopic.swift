import Foundation

/// MQTT topic names as FrameFlow publishes them (MQTT 3.1.1, section 4.7).
public enum MQTTTopic {
    /// Throws unless `topic` may be published to: not empty, at most 65 535 bytes of UTF-8,
    /// no NUL and no wildcard (`+`, `#`), which only subscriptions may use.
    public static func validate(_ topic: String) throws {
        let bytes = topic.utf8.count
        guard bytes > 0 else { throw MQTTError.invalidTopic(topic, "a topic may not be empty") }
        guard bytes <= 65_535 else { throw MQTTError.invalidTopic(topic, "a topic is at most 65535 bytes (this one has \(bytes))") }
        if topic.contains("\u{0}") { throw MQTTError.invalidTopic(topic, "a topic may not contain NUL") }
        if topic.contains("+") || topic.contains("#") {
            throw MQTTError.invalidTopic(topic, "'+' and '#' are wildcards, for subscriptions only")
        }
    }

    /// A topic level made from a camera or stream name: characters MQTT reserves (`/`, `+`, `#`,
    /// NUL) become `_`, so a name cannot add levels or wildcards.
    public static func level(_ name: String) -> String {
        let mapped = name.map { c -> Character in "/+#\u{0}".contains(c) ? "_" : c }
        return mapped.isEmpty ? "_" : String(mapped)
    }
}
