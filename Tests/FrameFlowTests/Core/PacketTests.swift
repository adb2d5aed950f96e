import FrameFlow
import Testing

@Suite struct PacketTests {
    @Test func typedAccess() throws {
        let p = Packet(42, at: 7)
        #expect(try p.get(Int.self) == 42)
        #expect(p.timestamp == 7 && !p.isEmpty)
        #expect(p.at(9).timestamp == 9)
    }

    @Test func mismatchNamesStreamAndBothTypes() {
        let p = Packet(42, at: 7)
        let e = #expect(throws: PacketError.self) { try p.get(String.self, stream: "luma_video") }
        #expect(e == .typeMismatch(stream: "luma_video", expected: "String", actual: "Int", timestamp: 7))
        #expect(e?.description.contains("luma_video") == true)
        #expect(e?.description.contains("Int") == true && e?.description.contains("String") == true)
    }

    @Test func emptyPacket() {
        let p = Packet(emptyAt: 3)
        #expect(p.isEmpty)
        #expect(throws: PacketError.empty(stream: "s", timestamp: 3)) { try p.get(Int.self, stream: "s") }
    }
}
