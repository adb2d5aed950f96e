@testable import FrameFlowInference
import Testing

/// The FlexBuffer reader on buffers written out byte by byte here (the layout of the format's
/// documentation: root width last, packed type before it, offsets counting back). Maps and
/// vectors as flatbuffers' own writers lay them out are read in TFLiteMediaPipeCustomOpsTests.
@Suite struct FlexBufferTests {
    static func root(_ bytes: [UInt8]) throws -> FlexBuffer.Reference { try FlexBuffer(bytes: bytes, context: "test").root() }

    @Test func scalars() throws {
        #expect(try Self.root([0x05, 0x04, 0x01]).int() == 5)  // INT inline, root width 1
        #expect(try Self.root([0xFE, 0xFF, 0x05, 0x02]).int() == -2)  // 16-bit INT, sign-extended
        #expect(try Self.root([0x07, 0x08, 0x01]).double() == 7)  // UINT read as a number
        // INDIRECT_FLOAT: the root slot (at 4) points 4 bytes back to a 4-byte 1.5.
        #expect(try Self.root([0x00, 0x00, 0xC0, 0x3F, 0x04, 0x22, 0x01]).double() == 1.5)
        // INDIRECT_INT of 2 bytes, -300.
        #expect(try Self.root([0xD4, 0xFE, 0x02, 0x19, 0x01]).int() == -300)
    }

    @Test func vectors() throws {
        // VECTOR_INT3 (fixed length, no size): three bytes, then the slot pointing 3 back.
        #expect(try Self.root([0x01, 0x02, 0x03, 0x03, 0x4C, 0x01]).ints() == [1, 2, 3])
        // VECTOR_UINT of 2-byte elements: size 2, then 500 and 7.
        #expect(try Self.root([0x02, 0x00, 0xF4, 0x01, 0x07, 0x00, 0x04, 0x31, 0x01]).ints() == [500, 7])
    }

    /// Each buffer is broken in one way; each is a ModelError naming the buffer's context.
    @Test(
        arguments: [
            [], [0x01], [0x05, 0x04],  // too short
            [0x05, 0x04, 0x03],  // root width 3
            [0x05, 0x04, 0x09],  // root width past the buffer
            [0x05, 0xC8, 0x01],  // unknown type 50
            [0x05, 0x0C, 0x01],  // a float of 1 byte
            [0xC8, 0x18, 0x01],  // INDIRECT_INT 200 bytes before the start
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0B, 0x08],  // UINT past Int64
            [0xFF, 0x01, 0x01, 0x2C, 0x01],  // VECTOR_INT of 255 elements in 5 bytes
            [0x05, 0x14, 0x01],  // a string where a number belongs
        ] as [[UInt8]])
    func brokenBuffers(_ bytes: [UInt8]) {
        #expect {
            let r = try Self.root(bytes)
            _ = try r.type == .vectorInt ? Double(try r.ints().count) : r.double()
        } throws: { ($0 as? ModelError)?.message.hasPrefix("test: custom_options") == true }
    }

    @Test func mapsNeedMaps() {
        #expect(throws: ModelError.self) { try Self.root([0x05, 0x04, 0x01]).map() }
        #expect(throws: ModelError.self) { try Self.root([0x01, 0x02, 0x03, 0x03, 0x4C, 0x01]).int() }
    }
}
