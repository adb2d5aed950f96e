import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's PacketPresenceCalculator: true for packets, false for bounds passed without one.
@Suite struct PacketPresenceCalculatorTests {
    @Test func trueForPacketsFalseForBounds() throws {
        let r = try CalculatorRunner(PacketPresenceCalculator.self, inputs: ["PACKET:p"], outputs: ["PRESENCE:present"])
        try r.start()
        try r.push("x", tag: "PACKET", at: 10)
        try r.runUntilIdle()
        #expect(try values(r.takeOutputs("PRESENCE"), as: Bool.self).map { "\($0.0):\($0.1)" } == ["10:true"])
        try r.setBound(21, tag: "PACKET")
        try r.runUntilIdle()
        #expect(try values(r.takeOutputs("PRESENCE"), as: Bool.self).map { "\($0.0):\($0.1)" } == ["20:false"])
        try r.push(["any", "type"], tag: "PACKET", at: 30)
        try r.runUntilIdle()
        #expect(try values(r.takeOutputs("PRESENCE"), as: Bool.self).map { "\($0.0):\($0.1)" } == ["30:true"])
        #expect(try r.finish().isClean)
    }

    @Test func drivesAGateAsInMediaPipesExample() throws {
        // The frame goes on for detection only when no tracked face is present.
        let text = """
            input_stream: "image"
            input_stream: "tracked"
            node { calculator: "PacketPresenceCalculator" input_stream: "PACKET:tracked" output_stream: "PRESENCE:has_tracked" }
            node {
              calculator: "GateCalculator"
              input_stream: "image"
              input_stream: "DISALLOW:has_tracked"
              output_stream: "for_detection"
              options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: true } }
            }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let out = try PacketCollector(graph, "for_detection")
        try graph.start()
        for t: Int64 in 1...4 {
            try graph.send(Int(t), to: "image", at: Timestamp(t))
            if t % 2 == 0 {
                try graph.send("face", to: "tracked", at: Timestamp(t))
            } else {
                try graph.setTimestampBound(Timestamp(t + 1), on: "tracked")
            }
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try values(out.packets, as: Int.self).map(\.1) == [1, 3])
    }
}
