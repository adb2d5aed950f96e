import CMosquitto
import Foundation

/// A connection to one MQTT broker (libmosquitto) that never blocks its publishers: messages
/// wait in a bounded queue while the broker is away and go out, in order, when it is back.
///
/// `publish` validates the topic, appends the message and returns; a background thread of
/// the client's own connects, reconnects with exponential backoff and jitter
/// (`reconnectDelay` doubling up to `reconnectDelayMax`), and hands queued messages to
/// libmosquitto while connected, at most `maxInFlight` not yet acknowledged at once (QoS 0:
/// written to the socket; QoS 1: PUBACK; QoS 2: PUBCOMP). When `maxQueued` messages wait,
/// the oldest is dropped and counted (`Statistics.dropped`), with one warning per outage.
///
/// What libmosquitto 2.0.11 does on its own, measured: `mosquitto_publish` while
/// disconnected returns `MOSQ_ERR_NO_CONN`, drops a QoS 0 message, and keeps a QoS 1/2 one
/// (unbounded) to resend after a reconnect; a first `mosquitto_connect_async` that fails
/// leaves `mosquitto_loop_start`'s thread without ever retrying. Hence the queue and the loop
/// here: nothing is handed over while disconnected, so the bound holds, and QoS 1/2 messages
/// already handed over are resent by libmosquitto. QoS 0 messages written to a connection
/// that then breaks are gone (`Statistics.lost`): use QoS 1 or 2 when every message matters.
///
/// Thread-safe: any number of threads may publish at once; each thread's messages keep their
/// order. Subscription handlers run on the client's thread. Call `close()` when done: it
/// flushes with a deadline and stops the thread (the thread keeps the client alive until then).
///
/// ```swift
/// let client = try MQTTClient(options: .init(host: "127.0.0.1", port: 1883))
/// try client.publish(topic: "frameflow/door/detections", payload: Data("{}".utf8))
/// let stats = client.close(timeout: 2)
/// print(stats.delivered)
/// // Prints 1
/// ```
///
/// `@unchecked Sendable`: every mutable field is guarded by `state` (an `NSCondition`);
/// libmosquitto calls are made without holding it (its callbacks take it), and calls that
/// hand messages over are serialized by `sendLock`, so their order is the queue's.
public final class MQTTClient: @unchecked Sendable {
    /// Where to connect and how to queue.
    public struct Options: Sendable {
        /// The broker's host name or address.
        public var host: String
        /// The broker's TCP port.
        public var port: Int
        /// The client identifier; a broker keeps one session per identifier.
        public var clientID: String
        /// Seconds between keep-alive pings.
        public var keepalive = 30
        /// Whether the broker forgets this client's session (subscriptions, queued messages)
        /// when it disconnects.
        public var cleanSession = true
        /// User name, if the broker asks for one.
        public var username: String?
        /// Password, with `username`.
        public var password: String?
        /// The QoS of `publish` calls that give none (0, 1 or 2).
        public var qos = 1
        /// Messages that may wait for the broker; beyond it the oldest is dropped.
        public var maxQueued = 10_000
        /// Messages handed to libmosquitto and not yet acknowledged, at most.
        public var maxInFlight = 100
        /// Seconds before the first reconnection attempt; doubles per failed attempt.
        public var reconnectDelay = 0.25
        /// The longest wait between reconnection attempts, in seconds.
        public var reconnectDelayMax = 10.0
        /// Receives the client's warnings (broker unreachable, connection lost, queue full);
        /// `nil` writes them to standard error.
        public var warning: (@Sendable (String) -> Void)?

        /// Options for `host`:`port` as `clientID` (default: `frameflow-<host name>-<pid>`).
        public init(host: String = "localhost", port: Int = 1883, clientID: String? = nil) {
            self.host = host
            self.port = port
            self.clientID = clientID ?? MQTTClient.defaultClientID
        }

        /// Throws `MQTTError.invalidOption` naming the first setting that cannot work.
        public func validate() throws {
            if host.isEmpty { throw MQTTError.invalidOption("host", "may not be empty") }
            if !(1...65_535).contains(port) { throw MQTTError.invalidOption("port", "must be 1…65535 (got \(port))") }
            if clientID.isEmpty || clientID.utf8.count > 65_535 {
                throw MQTTError.invalidOption("client_id", "must have 1…65535 bytes (got \(clientID.utf8.count))")
            }
            if !(0...65_535).contains(keepalive) { throw MQTTError.invalidOption("keepalive", "must be 0…65535 seconds (got \(keepalive))") }
            if !(0...2).contains(qos) { throw MQTTError.invalidOption("qos", "must be 0, 1 or 2 (got \(qos))") }
            if maxQueued < 1 { throw MQTTError.invalidOption("max_queued", "must be ≥ 1 (got \(maxQueued))") }
            if maxInFlight < 1 { throw MQTTError.invalidOption("max_in_flight", "must be ≥ 1 (got \(maxInFlight))") }
            if !(reconnectDelay > 0) || !(reconnectDelayMax >= reconnectDelay) {
                throw MQTTError.invalidOption("reconnect_delay", "needs 0 < delay ≤ max (got \(reconnectDelay), \(reconnectDelayMax))")
            }
            if password != nil && username == nil { throw MQTTError.invalidOption("password", "needs a username") }
        }
    }

    /// What happened to the messages so far. Once closed:
    /// `accepted == delivered + dropped + lost + failed + unsent`.
    public struct Statistics: Sendable, Equatable {
        /// Messages `publish` took.
        public var accepted = 0
        /// Messages written (QoS 0) or acknowledged by the broker (QoS 1 and 2).
        public var delivered = 0
        /// Messages dropped because `maxQueued` were waiting.
        public var dropped = 0
        /// QoS 0 messages written to a connection that broke before they were out.
        public var lost = 0
        /// Messages libmosquitto refused (too large for the broker, …).
        public var failed = 0
        /// Messages still queued or unacknowledged when `close` gave up.
        public var unsent = 0
        /// Messages waiting now.
        public var queued = 0
        /// Messages handed over and not yet acknowledged now.
        public var inFlight = 0
        /// Successful connections (the first and every reconnection).
        public var connects = 0
        /// The last connection or publishing error, if any.
        public var lastError: String?
    }

    /// A message a subscription received.
    public struct Message: Sendable {
        /// The topic it was published to.
        public var topic: String
        /// Its payload.
        public var payload: Data
        /// The QoS it was delivered with.
        public var qos: Int
        /// Whether the broker sent it as its retained message.
        public var retained: Bool
    }

    /// `frameflow-<host name>-<pid>`: unique per process on a machine and per pod in a cluster.
    public static var defaultClientID: String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0 ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "host"
        return "frameflow-\(host)-\(getpid())"
    }

    /// The options the client was made with.
    public let options: Options
    /// `host:port`, for messages.
    public var broker: String { "\(options.host):\(options.port)" }

    private struct Pending {
        var topic: String
        var payload: Data
        var qos: Int32
        var retain: Bool
    }

    private struct Subscription {
        var filter: String
        var qos: Int32
        var handler: @Sendable (Message) -> Void
    }

    private let mosq: OpaquePointer
    private let state = NSCondition()
    private let sendLock = NSLock()
    // Guarded by `state`.
    private var queue: [Pending] = []
    private var head = 0
    private var inFlight: [Int32: Int32] = [:]
    private var acknowledgedEarly: Set<Int32> = []
    private var connected = false
    /// Whether the broker accepted the current socket (`connected` may already be cleared by
    /// the disconnect callback when the loop reports the broken socket).
    private var accepted = false
    /// Why the broker refused the last connection (CONNACK), until the loop reports it.
    private var refusal: String?
    private var failures = 0
    private var stopping = false
    private var deadline = Date.distantFuture
    private var finished = false
    private var stats = Statistics()
    private var subscriptions: [Subscription] = []
    private var subscriptionsAcknowledged = 0
    private var warnedOutage = false
    private var warnedFull = false

    private static let libraryReady: Int32 = mosquitto_lib_init()

    /// Creates the client and starts connecting in the background; a broker that is not
    /// reachable yet is not an error (messages wait, a warning says so).
    ///
    /// - Throws: `MQTTError.invalidOption` for settings that cannot work,
    ///   `MQTTError.library` if libmosquitto cannot make a client.
    public init(options: Options) throws {
        try options.validate()
        guard Self.libraryReady == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError.library("mosquitto_lib_init", Self.libraryReady, String(cString: mosquitto_strerror(Self.libraryReady)))
        }
        guard let m = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw MQTTError.library("mosquitto_new", Int32(errno), String(cString: strerror(errno)))
        }
        mosq = m
        self.options = options
        mosquitto_threaded_set(m, true)
        if let user = options.username {
            let rc = mosquitto_username_pw_set(m, user, options.password)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {  // deinit destroys `m`
                throw MQTTError.library("mosquitto_username_pw_set", rc, String(cString: mosquitto_strerror(rc)))
            }
        }
        mosquitto_user_data_set(m, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(m) { _, obj, rc in MQTTClient.client(obj).didConnect(rc) }
        mosquitto_disconnect_callback_set(m) { _, obj, rc in MQTTClient.client(obj).didDisconnect(rc) }
        mosquitto_publish_callback_set(m) { _, obj, mid in MQTTClient.client(obj).didPublish(mid) }
        mosquitto_subscribe_callback_set(m) { _, obj, _, _, _ in MQTTClient.client(obj).didSubscribe() }
        mosquitto_message_callback_set(m) { _, obj, message in
            if let message { MQTTClient.client(obj).didReceive(message.pointee) }
        }
        let thread = Thread { [self] in run() }
        thread.name = "MQTT \(broker)"
        thread.start()
    }

    deinit { mosquitto_destroy(mosq) }

    private static func client(_ obj: UnsafeMutableRawPointer?) -> MQTTClient {
        Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue()
    }

    /// Whether the broker has accepted the connection (and it has not broken since).
    public var isConnected: Bool {
        state.lock()
        defer { state.unlock() }
        return connected
    }

    /// The counts so far.
    public var statistics: Statistics {
        state.lock()
        defer { state.unlock() }
        return snapshot()
    }

    /// Queues `payload` for `topic` and returns at once (never waits for the network).
    ///
    /// - Parameters:
    ///   - qos: 0, 1 or 2; `nil` takes `options.qos`.
    ///   - retain: whether the broker keeps it as the topic's last message.
    /// - Throws: `MQTTError.invalidTopic` (empty, wildcards, NUL, too long),
    ///   `MQTTError.invalidOption` for a QoS other than 0…2, `MQTTError.closed` after `close()`.
    public func publish(topic: String, payload: Data, qos: Int? = nil, retain: Bool = false) throws {
        try MQTTTopic.validate(topic)
        let q = qos ?? options.qos
        guard (0...2).contains(q) else { throw MQTTError.invalidOption("qos", "must be 0, 1 or 2 (got \(q))") }
        var warning: String?
        state.lock()
        guard !stopping else {
            state.unlock()
            throw MQTTError.closed(broker)
        }
        if queue.count - head >= options.maxQueued {
            head += 1
            compact()
            stats.dropped += 1
            if !warnedFull {
                warnedFull = true
                warning = "MQTT broker \(broker): \(options.maxQueued) messages waiting, dropping the oldest"
            }
        }
        queue.append(Pending(topic: topic, payload: payload, qos: Int32(q), retain: retain))
        stats.accepted += 1
        let send = connected && inFlight.count < options.maxInFlight
        state.unlock()
        if let warning { warn(warning) }
        if send { drain() }
    }

    /// Subscribes to `filter` (wildcards allowed) and calls `handler` on the client's thread
    /// for each message; the subscription is renewed after every reconnection.
    ///
    /// - Throws: `MQTTError.invalidTopic` for a malformed filter, `MQTTError.invalidOption`
    ///   for a QoS other than 0…2, `MQTTError.closed` after `close()`.
    public func subscribe(_ filter: String, qos: Int = 1, handler: @escaping @Sendable (Message) -> Void) throws {
        guard mosquitto_sub_topic_check(filter) == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError.invalidTopic(filter, "not a valid subscription filter ('#' only last, '+' a whole level)")
        }
        guard (0...2).contains(qos) else { throw MQTTError.invalidOption("qos", "must be 0, 1 or 2 (got \(qos))") }
        state.lock()
        guard !stopping else {
            state.unlock()
            throw MQTTError.closed(broker)
        }
        subscriptions.append(Subscription(filter: filter, qos: Int32(qos), handler: handler))
        let now = connected
        state.unlock()
        if now { mosquitto_subscribe(mosq, nil, filter, Int32(qos)) }
    }

    /// Waits until the broker has accepted the connection, at most `timeout` seconds.
    /// - Returns: whether it is connected.
    @discardableResult
    public func waitUntilConnected(timeout: Double) -> Bool {
        wait(timeout: timeout) { connected }
    }

    /// Waits until connected and every subscription is acknowledged on this connection, at
    /// most `timeout` seconds. - Returns: whether they are.
    @discardableResult
    public func waitUntilSubscribed(timeout: Double) -> Bool {
        wait(timeout: timeout) { connected && subscriptionsAcknowledged >= subscriptions.count }
    }

    /// Waits until nothing is queued or in flight, at most `timeout` seconds.
    /// - Returns: whether everything published so far is delivered (or dropped).
    @discardableResult
    public func flush(timeout: Double) -> Bool {
        wait(timeout: timeout) { queue.count == head && inFlight.isEmpty }
    }

    /// Stops accepting messages, sends what is queued for at most `timeout` seconds,
    /// disconnects and stops the thread. Calling it again returns the same counts.
    /// - Returns: the final counts; what was not sent is `unsent`.
    @discardableResult
    public func close(timeout: Double = 2) -> Statistics {
        state.lock()
        if !stopping {
            stopping = true
            deadline = Date(timeIntervalSinceNow: max(0, timeout))
            state.broadcast()
        }
        while !finished { state.wait() }
        let s = snapshot()
        state.unlock()
        return s
    }

    // MARK: - The client's thread

    private func run() {
        var opened = false
        var socketOpen = false
        var nextAttempt = Date()
        while true {
            state.lock()
            if stopping && ((queue.count == head && inFlight.isEmpty) || Date() >= deadline) {
                state.unlock()
                break
            }
            if !socketOpen && Date() < nextAttempt {
                _ = state.wait(until: stopping ? min(nextAttempt, deadline) : nextAttempt)
                state.unlock()
                continue
            }
            state.unlock()
            if !socketOpen {
                let rc =
                    opened
                    ? mosquitto_reconnect_async(mosq) : mosquitto_connect_async(mosq, options.host, Int32(options.port), Int32(options.keepalive))
                opened = true
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    socketOpen = true
                } else {
                    nextAttempt = connectionFailed(rc)
                }
                continue
            }
            let rc = mosquitto_loop(mosq, 50, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                socketOpen = false
                nextAttempt = connectionFailed(rc)
            } else {
                drain()
            }
        }
        if socketOpen {
            mosquitto_disconnect(mosq)
            for _ in 0..<4 where mosquitto_want_write(mosq) { mosquitto_loop(mosq, 10, 1) }
        }
        state.lock()
        connected = false
        stats.unsent = (queue.count - head) + inFlight.count
        queue.removeAll()
        head = 0
        inFlight.removeAll()
        finished = true
        state.broadcast()
        state.unlock()
    }

    /// Records a failed attempt or a broken connection and returns when to try again.
    private func connectionFailed(_ rc: Int32) -> Date {
        let error = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
        state.lock()
        let why = refusal ?? error
        let refused = refusal != nil
        refusal = nil
        let wasConnected = accepted
        accepted = false
        markDisconnected()
        failures += 1
        let delay = min(options.reconnectDelayMax, options.reconnectDelay * pow(2, Double(min(failures - 1, 30))))
        let retry = Date(timeIntervalSinceNow: delay * Double.random(in: 0.75...1.25))
        stats.lastError = "\(wasConnected ? "connection lost" : refused ? "refused" : "cannot connect"): \(why)"
        let say = !warnedOutage || wasConnected
        warnedOutage = true
        let waiting = queue.count - head
        state.unlock()
        if say {
            let what = wasConnected ? "connection lost" : refused ? "refused the connection" : "unreachable"
            warn(
                "MQTT broker \(broker) \(what) (\(why)); retrying with backoff, keeping up to \(options.maxQueued) messages "
                    + "(\(waiting) waiting)")
        }
        return retry
    }

    /// Hands queued messages to libmosquitto while connected and the in-flight window allows.
    private func drain() {
        sendLock.lock()
        defer { sendLock.unlock() }
        while true {
            state.lock()
            guard connected, head < queue.count, inFlight.count < options.maxInFlight else {
                state.unlock()
                return
            }
            let message = queue[head]
            head += 1
            compact()
            state.unlock()
            var mid: Int32 = 0
            let rc = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish(mosq, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, message.qos, message.retain)
            }
            state.lock()
            if rc == MOSQ_ERR_SUCCESS.rawValue || (rc == MOSQ_ERR_NO_CONN.rawValue && message.qos > 0 && mid != 0) {
                // A QoS 1/2 message libmosquitto refused for want of a connection is still
                // kept by it and resent after the reconnection (measured with 2.0.11).
                if acknowledgedEarly.remove(mid) != nil {
                    stats.delivered += 1
                } else {
                    inFlight[mid] = message.qos
                }
            } else if rc == MOSQ_ERR_NO_CONN.rawValue {
                queue.insert(message, at: head)  // back in front, for the next connection
                state.unlock()
                return
            } else {
                stats.failed += 1
                let why = "publishing to '\(message.topic)': \(String(cString: mosquitto_strerror(rc)))"
                stats.lastError = why
                state.unlock()
                warn("MQTT broker \(broker): \(why)")
                continue
            }
            state.unlock()
        }
    }

    // MARK: - libmosquitto callbacks (on the client's thread)

    private func didConnect(_ rc: Int32) {
        state.lock()
        guard rc == 0 else {
            refusal = String(cString: mosquitto_connack_string(rc))
            state.unlock()
            return
        }
        connected = true
        accepted = true
        failures = 0
        warnedOutage = false
        warnedFull = false
        stats.connects += 1
        subscriptionsAcknowledged = 0
        let renew = subscriptions.map { ($0.filter, $0.qos) }
        state.broadcast()
        state.unlock()
        for (filter, qos) in renew { mosquitto_subscribe(mosq, nil, filter, qos) }
    }

    private func didDisconnect(_ rc: Int32) {
        state.lock()
        markDisconnected()
        state.unlock()
    }

    /// QoS 0 messages libmosquitto had not written are discarded with the connection.
    private func markDisconnected() {
        connected = false
        for (mid, qos) in inFlight where qos == 0 {
            inFlight[mid] = nil
            stats.lost += 1
        }
        state.broadcast()
    }

    private func didPublish(_ mid: Int32) {
        state.lock()
        if inFlight.removeValue(forKey: mid) != nil {
            stats.delivered += 1
        } else {
            acknowledgedEarly.insert(mid)  // before `drain` recorded it
        }
        state.broadcast()
        state.unlock()
    }

    private func didSubscribe() {
        state.lock()
        subscriptionsAcknowledged += 1
        state.broadcast()
        state.unlock()
    }

    private func didReceive(_ m: mosquitto_message) {
        let topic = String(cString: m.topic)
        let payload = m.payloadlen > 0 ? Data(bytes: m.payload, count: Int(m.payloadlen)) : Data()
        state.lock()
        let handlers = subscriptions.filter { s in
            var matches = false
            mosquitto_topic_matches_sub(s.filter, topic, &matches)
            return matches
        }.map(\.handler)
        state.unlock()
        let message = Message(topic: topic, payload: payload, qos: Int(m.qos), retained: m.retain)
        for h in handlers { h(message) }
    }

    // MARK: - Helpers

    /// Frees the consumed front of `queue` once it is most of it (amortized O(1) per message).
    private func compact() {
        if head >= 1024 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    private func snapshot() -> Statistics {
        var s = stats
        s.queued = queue.count - head
        s.inFlight = inFlight.count
        return s
    }

    private func wait(timeout: Double, until condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        while !condition() {
            if finished || !state.wait(until: end) { return condition() }
        }
        return true
    }

    /// Gives `message` to `options.warning`, or writes it to standard error.
    func warn(_ message: String) {
        if let handler = options.warning {
            handler(message)
        } else {
            FileHandle.standardError.write(Data("frameflow: warning: \(message)\n".utf8))
        }
    }
}
