/// Errors of the MQTT client and sinks.
public enum MQTTError: Error, CustomStringConvertible {
    /// A topic that may not be published to, and why.
    case invalidTopic(String, String)
    /// A client setting that cannot work (`port 0`, `qos 3`, an empty host), and why.
    case invalidOption(String, String)
    /// libmosquitto refused a call: what was asked, its error code and message.
    case library(String, Int32, String)
    /// `publish` or `subscribe` after `close()`.
    case closed(String)

    public var description: String {
        switch self {
        case .invalidTopic(let topic, let why): "MQTT topic '\(topic)': \(why)"
        case .invalidOption(let name, let why): "MQTT option \(name): \(why)"
        case .library(let call, let code, let message): "MQTT \(call): \(message) (libmosquitto error \(code))"
        case .closed(let broker): "MQTT client for \(broker) is closed"
        }
    }
}
