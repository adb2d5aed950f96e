import FrameFlow
import Testing

/// A side packet of the wrong type is reported as one, not as a packet at `Timestamp.unset`.
@Suite struct SidePacketTypeTests {
    @Test func wrongInputSidePacketTypeNamesPacketNodeAndTypes() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            SidePacket("offset")
            Node(SideCalculator.self, name: "side", in: ["x"], out: ["y"], sideIn: ["OFFSET:offset"])
        }
        let e = #expect(throws: GraphError.self) { try graph.start(sidePackets: ["offset": "seven"]) }
        let text = e.map { "\($0)" } ?? ""
        #expect(e?.node == "side", "\(text)")
        #expect(text.contains("input side packet 'offset': expected Int, got String"), "\(text)")
        #expect(!text.contains("Timestamp.unset"), "\(text)")
    }

    /// A calculator that reads the packet itself (`cc.sidePacket(tag)?.get(T.self)`) gets the
    /// same wording: side packets carry no timestamp.
    @Test func sidePacketErrorsHaveNoTimestamp() {
        let p = Packet("seven", at: .unset)
        let e = #expect(throws: PacketError.self) { try p.get(Int.self, stream: "offset") }
        #expect(e?.description == "side packet 'offset': expected Int, got String")
        let empty = #expect(throws: PacketError.self) { try Packet(emptyAt: .unset).get(Int.self, stream: "offset") }
        #expect(empty?.description == "side packet 'offset' is empty")
    }
}
