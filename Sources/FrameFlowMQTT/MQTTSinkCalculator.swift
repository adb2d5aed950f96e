import Foundation
import FrameFlow
import FrameFlowSinks

/// Publishes every packet of its inputs to an MQTT broker as JSON (`PacketJSON.object`), one
/// message per packet, on `<topic_prefix>/<input stream name>`; a sink with no outputs.
///
/// Inputs: any number, any tags and types (detections, landmarks, classifications, images'
/// summaries, any `Encodable`). Outputs: none.
/// Options: `frameflow.MQTTSinkCalculatorOptions` { host ("localhost"), port (1883),
/// topic_prefix ("" = `frameflow/<node name>`), qos (1), retain (false), client_id
/// ("" = `frameflow-<host name>-<pid>`), keepalive (30), max_queued (10000),
/// flush_timeout (2 seconds), username (""), password_env ("": the name of an environment
/// variable holding the password, so that graph files carry no secret) }. Ranges: port
/// 1…65535, qos 0…2, keepalive 0…65535, max_queued 1…10000000, flush_timeout 0…3600.
///
/// Nodes naming the same host, port and client id share one connection (`MQTTSharedClients`).
/// Publishing never waits for the broker: a broker that is unreachable or goes away is not an
/// error. Messages wait (at most `max_queued`, then the oldest are dropped) and go out after
/// the reconnection; warnings on standard error say so, and `close` reports what was not
/// delivered. Bad options are errors naming the node when the graph is built.
///
/// Example usage:
/// ```
/// node {
///   calculator: "MQTTSinkCalculator"
///   input_stream: "DETECTIONS:face_detections"
///   input_stream: "landmarks"
///   options { [frameflow.MQTTSinkCalculatorOptions.ext] { host: "127.0.0.1" port: 1883 topic_prefix: "frameflow/door" qos: 1 } }
/// }
/// ```
public final class MQTTSinkCalculator: Calculator {
    /// Where and how to publish.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.MQTTSinkCalculatorOptions"
        /// The broker's host name or address.
        public var host = "localhost"
        /// The broker's TCP port.
        public var port = 1883
        /// Topics are `<topic_prefix>/<stream name>`; empty means `frameflow/<node name>`.
        public var topicPrefix = ""
        /// The messages' QoS: 0, 1 or 2.
        public var qos = 1
        /// Whether the broker keeps each topic's last message for new subscribers.
        public var retain = false
        /// The MQTT client id; empty means `frameflow-<host name>-<pid>`.
        public var clientId = ""
        /// Seconds between keep-alive pings.
        public var keepalive = 30
        /// Messages that may wait for the broker; beyond it the oldest are dropped.
        public var maxQueued = 10_000
        /// Seconds `close` waits for queued messages to go out.
        public var flushTimeout = 2.0
        /// The user name the broker asks for; empty: none.
        public var username = ""
        /// The environment variable that holds the password for `username`; empty: none.
        public var passwordEnv = ""
        public init() {}

        /// The client options these name.
        public var client: MQTTClient.Options {
            var o = MQTTClient.Options(host: host, port: port, clientID: clientId.isEmpty ? nil : clientId)
            o.qos = qos
            o.keepalive = keepalive
            o.maxQueued = maxQueued
            if !username.isEmpty { o.username = username }
            if !passwordEnv.isEmpty { o.password = ProcessInfo.processInfo.environment[passwordEnv] }
            return o
        }

        /// Throws `GraphError(.invalidOption)` naming the field that cannot work.
        public func validate() throws {
            do {
                try client.validate()
                if !topicPrefix.isEmpty { try MQTTTopic.validate(topicPrefix + "/stream") }
            } catch let e as MQTTError {
                throw GraphError(.invalidOption, e.description)
            }
            if !passwordEnv.isEmpty && username.isEmpty {
                throw GraphError(.invalidOption, "MQTT option password_env: needs a username")
            }
            if !passwordEnv.isEmpty && ProcessInfo.processInfo.environment[passwordEnv] == nil {
                throw GraphError(.invalidOption, "MQTT option password_env: the environment variable \(passwordEnv) is not set")
            }
            guard flushTimeout >= 0, flushTimeout <= 3600 else {
                throw GraphError(.invalidOption, "MQTT option flush_timeout: must be 0…3600 seconds (got \(flushTimeout))")
            }
            try OptionCheck.range(maxQueued, 1...10_000_000, "max_queued")
        }
    }

    public static let contract = CalculatorContract(acceptsAnyPorts: true)

    private let options: Options
    private var client: MQTTClient?
    private var topics: [String] = []
    private var streams: [String] = []
    /// Messages this node published.
    public private(set) var published = 0

    public init(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.outputCount == 0 else {
            throw GraphError(.invalidPort, "MQTTSinkCalculator is a sink: it has no output streams", node: cc.nodeName)
        }
        let prefix = options.topicPrefix.isEmpty ? "frameflow/" + MQTTTopic.level(cc.nodeName) : options.topicPrefix
        streams = (0..<cc.inputCount).map { cc.inputStreamName(atPosition: $0) }
        topics = streams.map { (prefix.hasSuffix("/") ? prefix : prefix + "/") + MQTTTopic.level($0) }
        do {
            for t in topics { try MQTTTopic.validate(t) }
            client = try MQTTSharedClients.acquire(options: options.client)
        } catch let e as MQTTError {
            throw GraphError(.invalidOption, e.description, node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let client else { return }
        for i in 0..<cc.inputCount {
            guard let json = try PacketJSON.object(cc.input(at: i), stream: streams[i]) else { continue }
            do {
                try client.publish(topic: topics[i], payload: json, qos: options.qos, retain: options.retain)
            } catch let e as MQTTError {
                throw GraphError(.calculatorFailed, e.description, node: cc.nodeName, stream: streams[i])
            }
            published += 1
        }
    }

    public func close(_ cc: CalculatorContext) throws {
        guard let client else { return }
        self.client = nil
        guard let s = MQTTSharedClients.release(client, timeout: options.flushTimeout) else { return }
        let missed = s.dropped + s.lost + s.unsent + s.failed
        if missed > 0 {
            client.warn(
                "node '\(cc.nodeName)': MQTT broker \(client.broker): \(missed) of \(s.accepted) messages not delivered "
                    + "(\(s.dropped) dropped by max_queued, \(s.unsent) unsent at close, \(s.lost) lost, \(s.failed) refused)"
                    + (s.lastError.map { "; last error: \($0)" } ?? ""))
        }
    }
}
