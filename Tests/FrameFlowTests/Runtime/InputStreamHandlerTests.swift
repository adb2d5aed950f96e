import FrameFlow
import Foundation
import Testing

/// Records each call as "TIMESTAMP:TAGS" (the tags of the inputs that carried a packet)
/// under the key of its options; optionally sleeps, to let queues fill.
final class InputLogCalculator: Calculator {
    struct Options: CalculatorOptions {
        var key = ""
        var sleepMicroseconds = 0
        init() {}
    }
    static let contract = CalculatorContract(inputs: [
        PortSpec("A", Int.self), PortSpec("B", Int.self, optional: true), PortSpec("C", Int.self, optional: true),
    ])
    static let log = Locked<[String: [String]]>([:])
    let options: Options
    init(options: Options) { self.options = options }
    func process(_ cc: CalculatorContext) throws {
        if options.sleepMicroseconds > 0 { usleep(UInt32(options.sleepMicroseconds)) }
        let tags = ["A", "B", "C"].filter { cc.hasInput($0) && !cc.input($0).isEmpty }
        let entry = "\(cc.inputTimestamp.microseconds):\(tags.joined(separator: ","))"
        Self.log.withLock { $0[options.key, default: []].append(entry) }
    }
    static func entries(_ key: String) -> [String] { log.withLock { $0[key] ?? [] } }
}

/// Like `InputLogCalculator`, and also runs when input bounds settle a timestamp.
final class BoundLogCalculator: Calculator {
    typealias Options = InputLogCalculator.Options
    static let contract = CalculatorContract(
        inputs: [PortSpec("A", Int.self), PortSpec("B", Int.self)], processesTimestampBounds: true)
    let inner: InputLogCalculator
    init(options: Options) { inner = InputLogCalculator(options: options) }
    func process(_ cc: CalculatorContext) throws { try inner.process(cc) }
}

/// MediaPipe's input stream handlers: sync sets, fixed-size queues, timestamp-bound steps.
@Suite struct InputStreamHandlerTests {
    let registry = CalculatorRegistry([InputLogCalculator.self, BoundLogCalculator.self])

    func graph(_ handler: String, key: String, calculator: String = "InputLogCalculator", sleep: Int = 0, inputs: [String] = ["A:a", "B:b", "C:c"])
        throws -> Graph
    {
        let streams = inputs.map { "input_stream: \"\($0.split(separator: ":")[1])\"" }.joined(separator: "\n")
        let ports = inputs.map { "input_stream: \"\($0)\"" }.joined(separator: " ")
        return try Graph(
            GraphConfig(
                parsing: """
                    \(streams)
                    node {
                      calculator: "\(calculator)"
                      \(ports)
                      \(handler)
                      node_options { [type.googleapis.com/x] { key: "\(key)" sleep_microseconds: \(sleep) } }
                    }
                    """), registry: registry)
    }

    @Test func aSyncSetWaitsOnlyForItsOwnInputs() throws {
        let g = try graph(
            """
            input_stream_handler {
              input_stream_handler: "SyncSetInputStreamHandler"
              options { [mediapipe.SyncSetInputStreamHandlerOptions.ext] { sync_set { tag_index: "A" tag_index: "B" } sync_set { tag_index: "C" } } }
            }
            """, key: "sync")
        try g.start()
        try g.send(1, to: "a", at: 1)
        try g.waitUntilIdle()
        #expect(InputLogCalculator.entries("sync") == [], "A and B are one set: A at 1 waits for B")
        try g.send(3, to: "c", at: 1)
        try g.waitUntilIdle()
        #expect(InputLogCalculator.entries("sync") == ["1:C"], "C's set runs alone, without A's packet")
        try g.send(2, to: "b", at: 1)
        try g.waitUntilIdle()
        #expect(InputLogCalculator.entries("sync") == ["1:C", "1:A,B"])
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        // The default policy would have waited for B before running C's packet.
        let d = try graph("", key: "sync-default")
        try d.start()
        try d.send(1, to: "a", at: 1)
        try d.send(3, to: "c", at: 1)
        try d.waitUntilIdle()
        #expect(InputLogCalculator.entries("sync-default") == [])
        try d.closeAllInputStreams()
        try d.waitUntilDone()
    }

    @Test func syncSetErrorsNameTheNode() throws {
        let e = #expect(throws: GraphError.self) {
            try graph(
                """
                input_stream_handler {
                  input_stream_handler: "SyncSetInputStreamHandler"
                  options { [mediapipe.SyncSetInputStreamHandlerOptions.ext] { sync_set { tag_index: "D" } } }
                }
                """, key: "bad"
            ).start()
        }
        #expect(e?.node == "InputLogCalculator" && e?.message.contains("no input 'D'") == true, "\(String(describing: e))")
    }

    @Test func aFixedSizeQueueDropsAllButTheNewest() throws {
        let g = try graph(
            """
            input_stream_handler {
              input_stream_handler: "FixedSizeInputStreamHandler"
              options { [mediapipe.FixedSizeInputStreamHandlerOptions.ext] { trigger_queue_size: 2 target_queue_size: 1 } }
            }
            """, key: "fixed", sleep: 30_000, inputs: ["A:a"])
        try g.start()
        for t in 0..<10 { try g.send(t, to: "a", at: Timestamp(Int64(t))) }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        let processed = InputLogCalculator.entries("fixed").map { Int($0.split(separator: ":")[0])! }
        let dropped = g.statistics.nodes.filter { !$0.isOutput }.map(\.dropped).reduce(0, +)
        #expect(processed.count < 10 && processed.last == 9, "a slow node gets the newest packet: \(processed)")
        #expect(processed == processed.sorted())
        #expect(processed.count + dropped == 10, "every packet is processed or counted as dropped")
    }

    @Test func fixedSizeOptionsAreChecked() {
        #expect(throws: GraphError.self) {
            try GraphConfig(
                parsing: """
                    input_stream: "a"
                    node { calculator: "X" input_stream: "a"
                      input_stream_handler { input_stream_handler: "FixedSizeInputStreamHandler"
                        options { [mediapipe.FixedSizeInputStreamHandlerOptions.ext] { trigger_queue_size: 1 target_queue_size: 1 } } } }
                    """)
        }
        let e = #expect(throws: GraphError.self) {
            try GraphConfig(
                parsing:
                    "input_stream: \"a\"\nnode { calculator: \"X\" input_stream: \"a\" input_stream_handler { input_stream_handler: \"MuxInputStreamHandler\" } }"
            )
        }
        #expect(e?.kind == .unknownField && e?.message.contains("MuxInputStreamHandler") == true)
    }

    @Test func processingTimestampBoundsRunsOnSettledTimestamps() throws {
        for (calculator, key) in [("BoundLogCalculator", "bounds"), ("InputLogCalculator", "no-bounds")] {
            let g = try graph("", key: key, calculator: calculator, inputs: ["A:a", "B:b"])
            try g.start()
            try g.send(1, to: "a", at: 1)
            try g.setTimestampBound(5, on: "b")
            try g.waitUntilIdle()
            try g.setTimestampBound(10, on: "a")
            try g.setTimestampBound(10, on: "b")
            try g.waitUntilIdle()
            try g.closeAllInputStreams()
            try g.waitUntilDone()
            if calculator == "BoundLogCalculator" {
                // A step at 9 once both bounds reach 10 (and maybe one at 4, between the two moves).
                let entries = InputLogCalculator.entries(key)
                #expect(entries.first == "1:A" && entries.last == "9:", "\(entries)")
                #expect(entries.dropFirst().allSatisfy { ["4:", "9:"].contains($0) }, "\(entries)")
            } else {
                #expect(InputLogCalculator.entries(key) == ["1:A"])
            }
        }
    }
}
