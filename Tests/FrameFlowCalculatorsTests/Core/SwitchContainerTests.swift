import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Adds `amount` to each Int (the channels the container switches between).
private final class AddAmountCalculator: OptionsStoringCalculator {
    struct Options: CalculatorOptions {
        static let typeName: String? = "test.AddAmountOptions"
        var amount = 0
    }
    static let contract = CalculatorContract(inputs: [.init("", Int.self)], outputs: [.init("", Int.self)])
    var options: Options
    init(options: Options) { self.options = options }
    func process(_ cc: CalculatorContext) throws { try cc.emit(cc.input(as: Int.self) + options.amount) }
}

/// Gives its option `value` as output side packet `PACKET` (a model loader's constant).
private final class SideValueCalculator: OptionsStoringCalculator {
    struct Options: CalculatorOptions {
        static let typeName: String? = "test.SideValueOptions"
        var value = ""
    }
    static let contract = CalculatorContract(outputSidePackets: [.init("PACKET", String.self)])
    var options: Options
    init(options: Options) { self.options = options }
    func open(_ cc: CalculatorContext) throws { try cc.setSidePacket(options.value, tag: "PACKET") }
    func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}

/// MediaPipe's SwitchContainer: the channel chosen by options, side packet or stream; the
/// others see nothing; output side packets from the chosen channel; broken containers refused.
@Suite struct SwitchContainerTests {
    let registry = CalculatorRegistry.standard.adding([AddAmountCalculator.self, SideValueCalculator.self])

    /// A graph `x` → SwitchContainer(+1 | +10 | +100) → `y`, with `extra` lines on the node.
    func graph(_ extra: String, options: String = "", top: String = "") throws -> Graph {
        try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "x"
                    output_stream: "y"
                    \(top)
                    node {
                      calculator: "SwitchContainer"
                      input_stream: "x"
                      output_stream: "y"
                      \(extra)
                      options { [mediapipe.SwitchContainerOptions.ext] {
                        \(options)
                        contained_node { calculator: "AddAmountCalculator" options { [test.AddAmountOptions.ext] { amount: 1 } } }
                        contained_node { calculator: "AddAmountCalculator" options { [test.AddAmountOptions.ext] { amount: 10 } } }
                        contained_node { calculator: "AddAmountCalculator" options { [test.AddAmountOptions.ext] { amount: 100 } } }
                      } }
                    }
                    """, file: "switch.pbtxt"), registry: registry)
    }

    func run(_ g: Graph, _ values: [Int], sidePackets: [String: any Sendable] = [:], select: [(Int64, any Sendable)] = []) throws -> [Packet] {
        let out = try PacketCollector(g, "y")
        try g.start(sidePackets: sidePackets)
        for (t, v) in select { try g.send(v, to: "sel", at: Timestamp(t)) }
        for (t, v) in values.enumerated() { try g.send(v, to: "x", at: Timestamp(Int64(t))) }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        return out.packets
    }

    func values(_ packets: [Packet]) throws -> [Int] { try packets.map { try $0.get(Int.self) } }

    @Test func optionsChooseTheChannel() throws {
        #expect(try values(run(graph(""), [1, 2])) == [2, 3], "channel 0 by default")
        #expect(try values(run(graph("", options: "select: 2"), [1, 2])) == [101, 102])
        #expect(try values(run(graph("", options: "enable: true"), [1])) == [11])
        #expect(try values(run(graph("", options: "enable: false"), [1])) == [2])
    }

    @Test func aSidePacketChoosesTheChannel() throws {
        let bySelect = try graph("input_side_packet: \"SELECT:which\"", options: "select: 0", top: "input_side_packet: \"which\"")
        #expect(try values(run(bySelect, [1, 2, 3], sidePackets: ["which": 2])) == [101, 102, 103], "the side packet beats the option")
        func byEnable() throws -> Graph { try graph("input_side_packet: \"ENABLE:on\"", top: "input_side_packet: \"on\"") }
        #expect(try values(run(byEnable(), [5], sidePackets: ["on": true])) == [15])
        #expect(try values(run(byEnable(), [5], sidePackets: ["on": false])) == [6])
        // The CLI types --side values by the consuming port: SELECT takes Int, ENABLE Bool.
        let selectTypes = bySelect.inputSidePacketTypes(named: "which"), enableTypes = try byEnable().inputSidePacketTypes(named: "on")
        #expect(!selectTypes.isEmpty && selectTypes.allSatisfy { $0 == .of(Int.self) }, "\(selectTypes)")
        #expect(!enableTypes.isEmpty && enableTypes.allSatisfy { $0 == .of(Bool.self) }, "\(enableTypes)")
    }

    @Test func aSelectStreamSwitchesFromItsTimestampOn() throws {
        let g = try graph("input_stream: \"SELECT:sel\"", top: "input_stream: \"sel\"")
        // Channel 1 from t=2, channel 2 from t=4; sent before the data, and only at changes.
        let out = try run(g, [0, 1, 2, 3, 4, 5], select: [(0, 1), (2, 1), (4, 2)])
        #expect(try values(out) == [10, 11, 12, 13, 104, 105])
        #expect(out.map(\.timestamp) == [0, 1, 2, 3, 4, 5])
    }

    @Test func manySwitchesGiveEachPacketItsChannel() throws {
        // 300 packets, the channel changing every 7 timestamps, the selection sent now ahead
        // of the data and now behind it: each output is x + the amount of its channel then.
        let amounts = [1, 10, 100]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            let g = try graph("input_stream: \"SELECT:sel\"", top: "input_stream: \"sel\"")
            let out = try PacketCollector(g, "y")
            try g.start()
            var channel: [Int] = []
            var selectSent = 0
            for t in 0..<300 {
                if t % 7 == 0 { channel.append(Int.random(in: 0..<3, using: &rng)) } else { channel.append(channel[t - 1]) }
                // Selection packets go out in bursts, so data often arrives first.
                if Bool.random(using: &rng) {
                    while selectSent <= t {
                        if selectSent % 7 == 0 { try g.send(channel[selectSent], to: "sel", at: Timestamp(Int64(selectSent))) }
                        selectSent += 1
                    }
                }
                try g.send(t, to: "x", at: Timestamp(Int64(t)))
            }
            while selectSent < 300 {
                if selectSent % 7 == 0 { try g.send(channel[selectSent], to: "sel", at: Timestamp(Int64(selectSent))) }
                selectSent += 1
            }
            try g.closeAllInputStreams()
            try g.waitUntilDone()
            #expect(try values(out.packets) == (0..<300).map { $0 + amounts[channel[$0]] })
        }
    }

    @Test func dataWaitsForTheSelectStreamToSettleItsTimestamp() throws {
        let g = try graph("input_stream: \"ENABLE:sel\"", top: "input_stream: \"sel\"")
        let out = try PacketCollector(g, "y")
        try g.start()
        for t in 0..<4 { try g.send(t, to: "x", at: Timestamp(Int64(t))) }
        try g.waitUntilIdle()
        #expect(out.packets.isEmpty, "no selection settles t=0 yet")
        try g.send(false, to: "sel", at: 0)
        try g.send(true, to: "sel", at: 2)
        try g.waitUntilIdle()
        #expect(try values(out.packets) == [1, 2, 12], "t=3 waits: the selection stream may still change it")
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(try values(out.packets) == [1, 2, 12, 13])
    }

    @Test func theOtherChannelsProcessNothing() throws {
        let g = try graph("", options: "select: 1")
        _ = try run(g, [1, 2, 3])
        let calls = Dictionary(uniqueKeysWithValues: g.statistics.nodes.map { ($0.name, $0.calls) })
        let channels = calls.filter { $0.key.contains("c0__") || $0.key.contains("c1__") || $0.key.contains("c2__") }
        #expect(channels.count == 3, "\(calls)")
        // Calls count process steps: the chosen channel ran three times, the others never.
        #expect(channels.allSatisfy { $0.value == ($0.key.contains("c1__") ? 3 : 0) }, "\(channels)")
    }

    @Test func outputSidePacketsComeFromTheChosenChannel() throws {
        func loader(_ select: Int) throws -> Graph {
            try Graph(
                GraphConfig(
                    parsing: """
                        input_side_packet: "complexity"
                        output_side_packet: "model_path"
                        node {
                          calculator: "SwitchContainer"
                          input_side_packet: "SELECT:complexity"
                          output_side_packet: "PACKET:model_path"
                          options { [mediapipe.SwitchContainerOptions.ext] {
                            contained_node { calculator: "SideValueCalculator" options { [test.SideValueOptions.ext] { value: "lite.tflite" } } }
                            contained_node { calculator: "SideValueCalculator" options { [test.SideValueOptions.ext] { value: "full.tflite" } } }
                          } }
                        }
                        """), registry: registry)
        }
        for (select, expected) in [(0, "lite.tflite"), (1, "full.tflite")] {
            let g = try loader(select)
            try g.start(sidePackets: ["complexity": select])
            try g.waitUntilDone()
            #expect(try g.outputSidePacket("model_path")?.get(String.self) == expected)
        }
    }

    @Test func aContainedNodeMayBeASubgraph() throws {
        let r = registry.adding([])
        try r.registerSubgraph(
            GraphConfig(
                parsing: """
                    type: "AddTwice"
                    input_stream: "in"
                    output_stream: "out"
                    node { calculator: "AddAmountCalculator" input_stream: "in" output_stream: "mid" options { [test.AddAmountOptions.ext] { amount: 1000 } } }
                    node { calculator: "AddAmountCalculator" input_stream: "mid" output_stream: "out" options { [test.AddAmountOptions.ext] { amount: 1000 } } }
                    """))
        let g = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "x"
                    output_stream: "y"
                    node { calculator: "SwitchContainer" input_stream: "x" output_stream: "y"
                      options { [mediapipe.SwitchContainerOptions.ext] { enable: true
                        contained_node { calculator: "PassThroughCalculator" }
                        contained_node { calculator: "AddTwice" } } } }
                    """), registry: r)
        #expect(try values(run(g, [1])) == [2001])
    }

    @Test func brokenContainersAreErrors() throws {
        func error(_ node: String, sidePackets: [String: any Sendable] = [:]) -> GraphError? {
            do {
                let g = try Graph(
                    GraphConfig(parsing: "input_stream: \"x\"\ninput_side_packet: \"s\"\ninput_side_packet: \"e\"\n" + node, file: "bad.pbtxt"),
                    registry: registry)
                try g.start(sidePackets: sidePackets)
                g.cancel()
                return nil
            } catch let e as GraphError {
                return e
            } catch let e as GraphErrors {
                return e.errors.first
            } catch {
                Issue.record("not a GraphError: \(error)")
                return nil
            }
        }
        let noNodes = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" options { [mediapipe.SwitchContainerOptions.ext] { select: 0 } } }"#)
        #expect(noNodes?.message.contains("no contained_node") == true, "\(String(describing: noNodes))")
        #expect(noNodes?.location?.line == 4)
        let both = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" options { [mediapipe.SwitchContainerOptions.ext] { select: 0 enable: true contained_node { calculator: "PassThroughCalculator" } } } }"#
        )
        #expect(both?.message.contains("exclude each other") == true, "\(String(describing: both))")
        let twoControls = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" input_side_packet: "SELECT:s" input_side_packet: "ENABLE:e" options { [mediapipe.SwitchContainerOptions.ext] { contained_node { calculator: "PassThroughCalculator" } } } }"#
        )
        #expect(twoControls?.message.contains("SELECT and ENABLE") == true, "\(String(describing: twoControls))")
        let ownPorts = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" options { [mediapipe.SwitchContainerOptions.ext] { contained_node { calculator: "PassThroughCalculator" input_stream: "x" } } } }"#
        )
        #expect(ownPorts?.message.contains("lists none of its own") == true, "\(String(describing: ownPorts))")
        let noOptions = error(#"node { calculator: "SwitchContainer" input_stream: "x" }"#)
        #expect(noOptions?.message.contains("SwitchContainerOptions") == true, "\(String(describing: noOptions))")
        let outOfRange = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" input_side_packet: "SELECT:s" options { [mediapipe.SwitchContainerOptions.ext] { contained_node { calculator: "PassThroughCalculator" } } } }"#,
            sidePackets: ["s": 3, "e": true])
        #expect(outOfRange?.message.contains("channel 3 selected") == true, "\(String(describing: outOfRange))")
        let unknown = error(
            #"node { calculator: "SwitchContainer" input_stream: "x" options { [mediapipe.SwitchContainerOptions.ext] { contained_node { calculator: "NoSuchCalculator" } } } }"#
        )
        #expect(unknown?.message.contains("NoSuchCalculator") == true, "\(String(describing: unknown))")
    }
}
