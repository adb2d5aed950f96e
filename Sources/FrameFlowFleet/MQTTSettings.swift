/// The broker a fleet publishes to: `mqtt { host: "127.0.0.1" port: 1883 qos: 1 client_id: "x" }`.
///
/// Outputs written `to: "mqtt"` are published on `frameflow/<camera>/<stream>`, and each
/// camera's health, retained, on `frameflow/<camera>/health`.
public struct MQTTSettings: Sendable, Equatable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's port.
    public var port: Int
    /// The quality of service of published messages: 0, 1 or 2.
    public var qos: Int
    /// The client identifier; empty: one the library makes up.
    public var clientID: String

    /// A broker at `host`:`port` (defaults: 127.0.0.1:1883, QoS 1, a generated client id).
    public init(host: String = "127.0.0.1", port: Int = 1883, qos: Int = 1, clientID: String = "") {
        self.host = host
        self.port = port
        self.qos = qos
        self.clientID = clientID
    }
}
