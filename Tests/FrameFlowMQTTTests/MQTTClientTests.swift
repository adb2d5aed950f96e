import Foundation
import FrameFlowTestSupport
import Testing

@testable import FrameFlowMQTT

/// MQTTClient against a real mosquitto: what a subscriber receives is the reference.
@Suite struct MQTTClientTests {
    static func options(
        _ broker: MosquittoBroker, id: String = "pub-\(UUID().uuidString)", qos: Int = 1, login: (user: String, password: String)? = nil
    ) -> MQTTClient.Options {
        var o = MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: id)
        o.qos = qos
        o.username = login?.user
        o.password = login?.password
        o.warning = { _ in }
        return o
    }

    /// A subscriber to `filter` collecting (topic, payload text).
    static func subscriber(
        _ broker: MosquittoBroker, _ filter: String, qos: Int, id: String = "sub-\(UUID().uuidString)", cleanSession: Bool = true,
        options given: MQTTClient.Options? = nil
    ) throws -> (MQTTClient, Received<(String, String)>) {
        var o = given ?? options(broker, id: id)
        o.clientID = id
        o.cleanSession = cleanSession
        let client = try MQTTClient(options: o)
        let got = Received<(String, String)>()
        try client.subscribe(filter, qos: qos) { m in got.append((m.topic, String(decoding: m.payload, as: UTF8.self))) }
        #expect(client.waitUntilSubscribed(timeout: 5), "subscriber did not connect to port \(broker.port)")
        return (client, got)
    }

    /// Four threads publish 100 messages each on their own topic: all arrive, in order per topic.
    @Test(arguments: [0, 1, 2])
    func everyMessageArrivesInOrderPerTopic(qos: Int) throws {
        let broker = try MosquittoBroker()
        defer { broker.stop(removing: true) }
        let (sub, got) = try Self.subscriber(broker, "order/#", qos: qos)
        defer { sub.close(timeout: 0) }
        let publisher = try MQTTClient(options: Self.options(broker, qos: qos))
        #expect(publisher.waitUntilConnected(timeout: 5))
        let threads = 4, perThread = 100
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread { try? publisher.publish(topic: "order/\(t)", payload: Data("\(i)".utf8)) }
        }
        let stats = publisher.close(timeout: 5)
        #expect(stats.accepted == threads * perThread)
        #expect(stats.delivered == threads * perThread && stats.dropped == 0 && stats.lost == 0 && stats.unsent == 0)
        #expect(got.wait(timeout: 10) { $0.count >= threads * perThread }, "received \(got.all.count)")
        for t in 0..<threads {
            let payloads = got.all.filter { $0.0 == "order/\(t)" }.map(\.1)
            #expect(payloads == (0..<perThread).map { "\($0)" }, "topic order/\(t)")
        }
    }

    /// The broker stops and starts again mid-stream: publishing never blocks or fails, the
    /// publisher reconnects, and with QoS 1 and a persistent subscriber session (clean session
    /// off, broker persistence on) the subscriber gets every message.
    @Test func brokerRestartLosesNothing() throws {
        let broker = try MosquittoBroker(persistent: true)
        defer { broker.stop(removing: true) }
        let (sub, got) = try Self.subscriber(broker, "restart/#", qos: 1, cleanSession: false)
        defer { sub.close(timeout: 0) }
        let publisher = try MQTTClient(options: Self.options(broker, qos: 1))
        #expect(publisher.waitUntilConnected(timeout: 5))
        let total = 300
        var slowest = 0.0
        for i in 0..<total {
            if i == 100 { broker.stop() }
            if i == 200 { try broker.launch() }
            let t0 = Date()
            try publisher.publish(topic: "restart/a", payload: Data("\(i)".utf8))
            slowest = max(slowest, Date().timeIntervalSince(t0))
            usleep(2_000)
        }
        #expect(slowest < 0.05, "a publish call took \(slowest) s")
        #expect(publisher.flush(timeout: 15), "\(publisher.statistics)")
        let stats = publisher.close(timeout: 1)
        #expect(stats.connects >= 2, "no reconnection: \(stats)")
        #expect(stats.accepted == total && stats.delivered == total && stats.dropped == 0 && stats.lost == 0 && stats.unsent == 0, "\(stats)")
        let all = Set((0..<total).map { "\($0)" })
        #expect(got.wait(timeout: 15) { Set($0.map(\.1)).isSuperset(of: all) }, "missing \(all.subtracting(got.all.map(\.1)).count) of \(total)")
    }

    /// With the broker away, the queue keeps the newest `maxQueued` messages and counts the
    /// rest as dropped; after the broker comes back exactly those arrive, in order.
    @Test func theQueueBoundDropsTheOldest() throws {
        let broker = try MosquittoBroker(persistent: true)
        defer { broker.stop(removing: true) }
        let (sub, got) = try Self.subscriber(broker, "bound/#", qos: 1, cleanSession: false)
        defer { sub.close(timeout: 0) }
        broker.stop()
        let warnings = Received<String>()
        var o = Self.options(broker, qos: 1)
        o.maxQueued = 10
        o.warning = { warnings.append($0) }
        let publisher = try MQTTClient(options: o)
        for i in 0..<25 { try publisher.publish(topic: "bound/a", payload: Data("\(i)".utf8)) }
        var stats = publisher.statistics
        #expect(stats.accepted == 25 && stats.dropped == 15 && stats.queued == 10, "\(stats)")
        #expect(!publisher.isConnected)
        #expect(warnings.wait(timeout: 5) { w in w.contains { $0.contains("unreachable") && $0.contains("\(broker.port)") } }, "\(warnings.all)")
        #expect(warnings.all.contains { $0.contains("10 messages waiting, dropping the oldest") }, "\(warnings.all)")
        try broker.launch()
        #expect(publisher.flush(timeout: 10), "\(publisher.statistics)")
        try publisher.publish(topic: "bound/a", payload: Data("end".utf8))
        stats = publisher.close(timeout: 5)
        #expect(stats.delivered == 11 && stats.dropped == 15 && stats.unsent == 0, "\(stats)")
        #expect(got.wait(timeout: 10) { $0.contains { $0.1 == "end" } })
        #expect(got.all.map(\.1) == (15..<25).map { "\($0)" } + ["end"])
    }

    /// No broker at all: publishing returns at once, nothing is sent, a warning names the
    /// broker, and close gives up at its deadline counting everything as unsent.
    @Test func anUnreachableBrokerNeverBlocks() throws {
        let port = try LoopbackPort.free()
        let warnings = Received<String>()
        var o = MQTTClient.Options(host: "127.0.0.1", port: port, clientID: "lonely")
        o.warning = { warnings.append($0) }
        let client = try MQTTClient(options: o)
        let t0 = Date()
        for i in 0..<50 { try client.publish(topic: "nobody/listens", payload: Data("\(i)".utf8)) }
        #expect(Date().timeIntervalSince(t0) < 0.5)
        #expect(warnings.wait(timeout: 5) { $0.contains { $0.contains("127.0.0.1:\(port) unreachable") } }, "\(warnings.all)")
        let t1 = Date()
        let stats = client.close(timeout: 0.3)
        #expect(Date().timeIntervalSince(t1) < 2)
        #expect(stats.accepted == 50 && stats.delivered == 0 && stats.unsent == 50 && stats.connects == 0, "\(stats)")
        #expect(stats.lastError?.contains("cannot connect") == true, "\(stats)")
        #expect(throws: MQTTError.self) { try client.publish(topic: "nobody/listens", payload: Data()) }
    }

    /// A broker that wants a password: the right one connects and publishes, a wrong one is
    /// refused with the broker's reason, retried, and never crashes or blocks.
    @Test func credentialsAreSentAndRefusalsSaid() throws {
        let broker = try MosquittoBroker(users: ["cam": "s3cret"])
        defer { broker.stop(removing: true) }
        let (sub, got) = try Self.subscriber(broker, "auth/#", qos: 1, options: Self.options(broker, login: ("cam", "s3cret")))
        defer { sub.close(timeout: 0) }
        let publisher = try MQTTClient(options: Self.options(broker, login: ("cam", "s3cret")))
        try publisher.publish(topic: "auth/ok", payload: Data("1".utf8))
        #expect(publisher.close(timeout: 5).delivered == 1)
        #expect(got.wait(timeout: 5) { $0.count == 1 })

        let warnings = Received<String>()
        var bad = Self.options(broker, login: ("cam", "wrong"))
        bad.warning = { warnings.append($0) }
        let refused = try MQTTClient(options: bad)
        try refused.publish(topic: "auth/no", payload: Data("2".utf8))
        #expect(
            warnings.wait(timeout: 5) { w in w.contains { $0.contains("refused the connection") && $0.contains("not authorised") } },
            "\(warnings.all)")
        let stats = refused.close(timeout: 0.2)
        #expect(stats.connects == 0 && stats.unsent == 1 && stats.lastError?.contains("not authorised") == true, "\(stats)")
    }

    @Test func badInputIsAClearError() throws {
        var o = MQTTClient.Options(host: "127.0.0.1", port: 0)
        #expect(throws: MQTTError.self) { _ = try MQTTClient(options: o) }
        do {
            _ = try MQTTClient(options: o)
        } catch {
            #expect("\(error)".contains("port") && "\(error)".contains("65535"), "\(error)")
        }
        o.port = 1883
        o.qos = 3
        #expect(throws: MQTTError.self) { _ = try MQTTClient(options: o) }
        o.qos = 1
        o.host = ""
        #expect(throws: MQTTError.self) { _ = try MQTTClient(options: o) }
        o.host = "127.0.0.1"
        o.port = try LoopbackPort.free()
        o.warning = { _ in }
        let client = try MQTTClient(options: o)
        defer { client.close(timeout: 0) }
        #expect(throws: MQTTError.self) { try client.publish(topic: "a/#", payload: Data()) }
        #expect(throws: MQTTError.self) { try client.publish(topic: "", payload: Data()) }
        #expect(throws: MQTTError.self) { try client.publish(topic: "a", payload: Data(), qos: 5) }
        #expect(throws: MQTTError.self) { try client.subscribe("a/#/b") { _ in } }
        #expect(client.statistics.accepted == 0)
    }
}
