import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's GateCalculator: the cases of gate_calculator_test.cc, plus the bounds a closed
/// gate must still pass on, broken nodes, and options from text and binary graphs.
@Suite struct GateCalculatorTests {
    /// A runner for a gate node written as in a graph file.
    func runner(_ body: String) throws -> CalculatorRunner {
        try CalculatorRunner(node: "calculator: \"GateCalculator\"\n" + body, registry: .standard)
    }

    /// Runs data `0…` at `timestamps` with `control` packets on `tag`; the data outputs.
    func gated(_ tag: String, _ control: [(Int64, Bool)], extra: String = "") throws -> [(Int64, Int)] {
        let r = try runner(
            """
            input_stream: "data"
            input_stream: "\(tag):gating"
            output_stream: "out"
            \(extra)
            """)
        for (t, allow) in control {
            r.add(Int(t), at: Timestamp(t))
            r.add(allow, tag: tag, at: Timestamp(t))
        }
        try r.run()
        return try values(r.outputs(), as: Int.self)
    }

    @Test func allowOptionTruePassesEverything() throws {
        let r = try runner(
            """
            input_stream: "data"
            output_stream: "out"
            options { [mediapipe.GateCalculatorOptions.ext] { allow: true } }
            """)
        r.add(true, at: 42)
        r.add(false, at: 43)
        try r.run()
        let got = try values(r.outputs(), as: Bool.self)
        #expect(got.map(\.0) == [42, 43] && got.map(\.1) == [true, false])
    }

    @Test(arguments: ["options { [mediapipe.GateCalculatorOptions.ext] { allow: false } }", ""])
    func allowOptionFalseOrUnsetPassesNothing(options: String) throws {
        let r = try runner("input_stream: \"data\"\noutput_stream: \"out\"\n\(options)")
        r.add(true, at: 42)
        r.add(false, at: 43)
        try r.run()
        #expect(r.outputs().isEmpty)
    }

    @Test(arguments: [("ALLOW", true, true), ("DISALLOW", false, true), ("ALLOW", false, false), ("DISALLOW", true, false)])
    func sidePacketDecides(tag: String, value: Bool, passes: Bool) throws {
        let r = try runner("input_side_packet: \"\(tag):gate\"\ninput_stream: \"data\"\noutput_stream: \"out\"")
        r.setSidePacket(value, tag: tag)
        r.add(1, at: 42)
        r.add(2, at: 43)
        try r.run()
        #expect(try values(r.outputs(), as: Int.self).map(\.1) == (passes ? [1, 2] : []))
    }

    @Test func disallowingSidePacketClosesTheOutputsAtOnce() throws {
        let text = """
            input_stream: "data"
            input_side_packet: "gate"
            node {
              calculator: "GateCalculator"
              input_side_packet: "DISALLOW:gate"
              input_stream: "data"
              output_stream: "out"
            }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let out = try PacketCollector(graph, "out")
        try graph.start(sidePackets: ["gate": true])
        try graph.send(1, to: "data", at: 1)
        try graph.waitUntilIdle()
        #expect(out.isClosed, "a side packet's DISALLOW holds for the run: the output must end before the input does")
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.packets.isEmpty)
    }

    @Test func allowStreamPassesOnlyAllowedTimestamps() throws {
        let got = try gated("ALLOW", [(42, true), (43, false), (44, true), (45, false)])
        #expect(got.map(\.0) == [42, 44] && got.map(\.1) == [42, 44])
    }

    @Test func disallowStreamPassesOnlyUndisallowedTimestamps() throws {
        let got = try gated("DISALLOW", [(42, true), (43, false), (44, true), (45, false)])
        #expect(got.map(\.0) == [43, 45])
    }

    @Test(arguments: [false, true])
    func timestampsWithoutControlPacketFollowEmptyPacketsAsAllow(emptyAllows: Bool) throws {
        let r = try runner(
            """
            input_stream: "data"
            input_stream: "ALLOW:gating"
            output_stream: "out"
            options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: \(emptyAllows) } }
            """)
        for t: Int64 in 1...3 { r.add(Int(t), at: Timestamp(t)) }
        r.add(false, tag: "ALLOW", at: 2)
        try r.run()
        #expect(try values(r.outputs(), as: Int.self).map(\.0) == (emptyAllows ? [1, 3] : []))
    }

    /// `STATE_CHANGE` for the control sequence `control` on `tag`, with or without a data stream.
    func stateChanges(_ tag: String, _ control: [Bool], data: Bool = true, extra: String = "") throws -> [(Int64, Bool)] {
        let r = try runner(
            """
            \(data ? "input_stream: \"data\"" : "")
            input_stream: "\(tag):gating"
            \(data ? "output_stream: \"out\"" : "")
            output_stream: "STATE_CHANGE:changed"
            \(extra)
            """)
        for (i, c) in control.enumerated() {
            let t = Timestamp(Int64(42 + i))
            if data { r.add(i, at: t) }
            r.add(c, tag: tag, at: t)
        }
        try r.run()
        return try values(r.outputs("STATE_CHANGE"), as: Bool.self)
    }

    @Test(arguments: [true, false])
    func stateChangeMarksEachTransition(withData: Bool) throws {
        let allow = try stateChanges("ALLOW", [false, true, true, false], data: withData)
        #expect(allow.map(\.0) == [43, 45] && allow.map(\.1) == [true, false])
        let disallow = try stateChanges("DISALLOW", [true, false, false, true], data: withData)
        #expect(disallow.map(\.0) == [43, 45] && disallow.map(\.1) == [true, false])
    }

    @Test func firstDecisionIsNoTransitionUnlessAnInitialStateIsGiven() throws {
        #expect(try stateChanges("DISALLOW", [false]).isEmpty)
        #expect(try stateChanges("ALLOW", [true]).isEmpty)
        let options = "options { [mediapipe.GateCalculatorOptions.ext] { initial_gate_state: GATE_DISALLOW } }"
        let changed = try stateChanges("ALLOW", [true], extra: options)
        #expect(changed.map(\.0) == [42] && changed.map(\.1) == [true])
        let allowFirst = "options { [mediapipe.GateCalculatorOptions.ext] { initial_gate_state: GATE_ALLOW } }"
        #expect(try stateChanges("ALLOW", [true, true], extra: allowFirst).isEmpty)
    }

    @Test func aClosedGateStillAdvancesItsOutputsBound() throws {
        // Downstream PacketPresenceCalculator (default policy) must hear at once that the gated
        // stream has nothing at a disallowed timestamp, without the inputs closing.
        let text = """
            input_stream: "data"
            input_stream: "allow"
            node {
              calculator: "GateCalculator"
              input_stream: "data"
              input_stream: "ALLOW:allow"
              output_stream: "gated"
            }
            node { calculator: "PacketPresenceCalculator" input_stream: "PACKET:gated" output_stream: "PRESENCE:present" }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let gated = try PacketCollector(graph, "gated")
        let present = try PacketCollector(graph, "present")
        try graph.start()
        for (t, allow) in [(Int64(1), false), (2, true), (3, false)] {
            try graph.send(Int(t), to: "data", at: Timestamp(t))
            try graph.send(allow, to: "allow", at: Timestamp(t))
            try graph.waitUntilIdle()
            #expect(present.timestamps.last == Timestamp(t), "the presence at \(t) must not wait for the next input")
        }
        #expect(try values(present.packets, as: Bool.self).map(\.1) == [false, true, false])
        #expect(try values(gated.packets, as: Int.self).map(\.0) == [2], "a disallowed packet leaked")
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    @Test(arguments: [
        "input_stream: \"ALLOW:g\"\ninput_stream: \"DISALLOW:h\"",
        "input_side_packet: \"ALLOW:g\"\ninput_side_packet: \"DISALLOW:h\"",
        "input_stream: \"ALLOW:g\"\ninput_side_packet: \"ALLOW:h\"",
        "input_stream: \"DISALLOW:g\"\ninput_side_packet: \"ALLOW:h\"",
    ])
    func refusesMoreThanOneControl(ports: String) throws {
        let text = """
            input_stream: "data"
            input_stream: "g"
            input_stream: "h"
            input_side_packet: "g"
            input_side_packet: "h"
            node { calculator: "GateCalculator" input_stream: "data" \(ports) output_stream: "out" }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let error = #expect(throws: GraphError.self) {
            try graph.start(sidePackets: ["g": true, "h": true])
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
        }
        #expect(error?.description.contains("one ALLOW or DISALLOW") == true, "\(String(describing: error))")
    }

    @Test func refusesUnequalDataPorts() throws {
        let r = try runner("input_stream: \"a\"\ninput_stream: \"b\"\noutput_stream: \"out\"")
        let error = #expect(throws: GraphError.self) { try r.run() }
        #expect(error?.description.contains("one data output per data input") == true, "\(String(describing: error))")
    }

    @Test func aNonBoolControlPacketIsAnErrorNamingTheStream() throws {
        let r = try runner("input_stream: \"data\"\ninput_stream: \"ALLOW:gating\"\noutput_stream: \"out\"")
        r.add(1, at: 1)
        r.add("yes", tag: "ALLOW", at: 1)
        let error = #expect(throws: (any Error).self) { try r.run() }
        #expect("\(String(describing: error))".contains("gating"), "\(String(describing: error))")
    }

    @Test func badOptionValueIsAnErrorNamingTheField() throws {
        let text = """
            input_stream: "data"
            node {
              calculator: "GateCalculator"
              input_stream: "data"
              output_stream: "out"
              options { [mediapipe.GateCalculatorOptions.ext] { initial_gate_state: GATE_OPEN } }
            }
            """
        let error = thrownDescription {
            let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
            try graph.start()
        }
        #expect(error?.contains("initial_gate_state") == true, "\(String(describing: error))")
    }

    @Test func optionsReadFromTextAndBinaryGraphs() throws {
        let text = """
            input_stream: "data"
            node {
              name: "node"
              calculator: "GateCalculator"
              input_stream: "data"
              output_stream: "out"
              options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: true initial_gate_state: GATE_DISALLOW } }
            }
            """
        let expected = GateCalculator.Options(emptyPacketsAsAllow: true, initialGateState: .disallow)
        let fromText = try Graph(GraphConfig(parsing: text), registry: .standard)
        #expect(fromText.options(ofNode: "node") as? GateCalculator.Options == expected)
        let bytes = ProtobufWire.graph(calculator: "GateCalculator", inputs: ["data"], outputs: ["out"], ext: 261754847) { o in
            o.int(1, 1)
            o.int(3, 3)
        }
        let fromBinary = try Graph(GraphConfig(binary: bytes, file: "gate.binarypb", registry: .standard), registry: .standard)
        #expect(fromBinary.options(ofNode: "node") as? GateCalculator.Options == expected)
    }

    /// A side packet the graph declares and does not get: named as the graph names it, with
    /// the port that reads it, the graph's side packets, and the declaration's line.
    @Test func aMissingSidePacketIsNamedAsTheGraphNamesIt() throws {
        let text = """
            input_stream: "in"
            input_side_packet: "use_prev_landmarks"
            input_side_packet: "num_faces"
            node { calculator: "GateCalculator" input_stream: "in" output_stream: "out" input_side_packet: "ALLOW:use_prev_landmarks" }
            """
        let graph = try Graph(GraphConfig(parsing: text, file: "g.pbtxt"), registry: .standard)
        let e = #expect(throws: GraphError.self) { try graph.start(sidePackets: ["num_faces": 1]) }
        let message = e.map { "\($0)" } ?? ""
        #expect(message.hasPrefix("g.pbtxt:2:"), "\(message)")
        #expect(message.contains("'use_prev_landmarks' was not given") && message.contains("as ALLOW"), "\(message)")
        #expect(message.contains("input side packets: num_faces, use_prev_landmarks"), "\(message)")
    }
}
