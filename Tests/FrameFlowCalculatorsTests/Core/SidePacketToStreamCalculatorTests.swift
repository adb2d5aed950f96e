import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's SidePacketToStreamCalculator in its tick modes: the side packet at every TICK
/// timestamp (AT_TICK) or the first only (AT_FIRST_TICK); the other modes and mismatched ports
/// refused when the graph starts.
@Suite struct SidePacketToStreamCalculatorTests {
    func runner(_ output: String, tick: Bool = true, outputs: Int = 1) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                node {
                  calculator: "SidePacketToStreamCalculator"
                  \(tick ? "input_stream: \"TICK:tick\"" : "")
                  input_side_packet: "side"
                  \((0..<outputs).map { "output_stream: \"\(output):\($0):out\($0)\"" }.joined(separator: "\n"))
                }
                """, registry: CalculatorRegistry.standard)
    }

    @Test func sendsTheSidePacketAtEveryTick() throws {
        let r = try runner("AT_TICK")
        r.setSidePacket(7)
        for t in [3, 5, 9] { r.add("frame", tag: "TICK", at: Timestamp(Int64(t))) }
        try r.run()
        #expect(try r.outputs("AT_TICK").map { try $0.get(Int.self) } == [7, 7, 7])
        #expect(r.outputs("AT_TICK").map(\.timestamp) == [3, 5, 9])
    }

    @Test func atFirstTickSendsOnce() throws {
        let r = try runner("AT_FIRST_TICK")
        r.setSidePacket("hello")
        for t in [4, 6] { r.add(1.5, tag: "TICK", at: Timestamp(Int64(t))) }
        try r.run()
        #expect(try r.outputs("AT_FIRST_TICK").map { try $0.get(String.self) } == ["hello"])
        #expect(r.outputs("AT_FIRST_TICK").map(\.timestamp) == [4])
    }

    @Test func unsupportedModesAndMismatchedPortsAreRefused() throws {
        for mode in ["AT_PRESTREAM", "AT_POSTSTREAM", "AT_ZERO", "AT_TIMESTAMP"] {
            let r = try runner(mode)
            r.setSidePacket(1)
            r.add(0, tag: "TICK", at: 0)
            #expect { try r.run() } throws: { "\($0)".contains("\(mode) is not supported") }
        }
        let noTick = try runner("AT_TICK", tick: false)
        noTick.setSidePacket(1)
        #expect { try noTick.run() } throws: { "\($0)".contains("needs a TICK input stream") }
        let twoOutputs = try runner("AT_TICK", outputs: 2)
        twoOutputs.setSidePacket(1)
        twoOutputs.add(0, tag: "TICK", at: 0)
        #expect { try twoOutputs.run() } throws: { "\($0)".contains("1 side packet(s) for 2 AT_TICK output(s)") }
    }
}
