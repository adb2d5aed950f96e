import Foundation
import FrameFlowMedia
import Testing

/// Synthetic packets at 10 fps, a keyframe every `gop` packets, 100 + i bytes each: what the
/// buffer keeps is computed here from the rule (whole GOPs from the front, at least the span
/// asked for, at most the bytes unless only the newest GOP is left).
@Suite("PacketRingBuffer")
struct PacketRingBufferTests {
    static let tb = EncodedTimeBase(numerator: 1, denominator: 10)

    static func packet(_ i: Int, gop: Int) -> EncodedPacket {
        EncodedPacket(
            data: Data(repeating: UInt8(i % 256), count: 100 + i), pts: Int64(i), dts: Int64(i), duration: 1, isKeyframe: i % gop == 0,
            timeBase: tb)
    }

    @Test("drops whole GOPs: it starts at a keyframe, keeps the span asked for, and holds the byte bound")
    func boundsBySecondsAndBytes() {
        for (maxSeconds, maxBytes, gop) in [(3.0, 1 << 30, 10), (0.5, 1 << 30, 7), (100.0, 5000, 10), (2.0, 3000, 4), (100.0, 10, 5)] {
            var ring = PacketRingBuffer(maxSeconds: maxSeconds, maxBytes: maxBytes)
            for i in 0..<200 {
                ring.append(Self.packet(i, gop: gop))
                // The reference: the first kept keyframe k is the latest one such that every
                // earlier GOP could go (its successor ≥ maxSeconds before i, or over the bytes).
                var start = 0
                var bytes = (0...i).reduce(0) { $0 + 100 + $1 }
                while true {
                    let next = start + gop
                    guard next <= i else { break }
                    guard Double(i) / 10 - Double(next) / 10 >= maxSeconds || bytes > maxBytes else { break }
                    bytes -= (start..<next).reduce(0) { $0 + 100 + $1 }
                    start = next
                }
                #expect(ring.packets.first?.pts == Int64(start), "\(maxSeconds) s, \(maxBytes) B, GOP \(gop), packet \(i)")
                #expect(ring.packets.count == i - start + 1)
                #expect(ring.byteCount == bytes)
                #expect(ring.packets.first?.isKeyframe == true)
            }
        }
    }

    @Test("the packets from the last keyframe at or before a time")
    func fromKeyframe() {
        var ring = PacketRingBuffer(maxSeconds: 100, maxBytes: 1 << 30)
        // Before any keyframe: dropped.
        ring.append(EncodedPacket(data: Data([1]), pts: 0, dts: 0, duration: 1, isKeyframe: false, timeBase: Self.tb))
        for i in 1...50 { ring.append(Self.packet(i, gop: 10)) }
        #expect(ring.packets.first?.pts == 10)
        #expect(ring.packets(fromKeyframeAtOrBefore: 2.5).first?.pts == 20)
        #expect(ring.packets(fromKeyframeAtOrBefore: 3.0).first?.pts == 30)
        #expect(ring.packets(fromKeyframeAtOrBefore: -5).first?.pts == 10)  // older than the buffer: its oldest keyframe
        #expect(ring.packets(fromKeyframeAtOrBefore: 99).first?.pts == 50)
        #expect(ring.packets(fromKeyframeAtOrBefore: 99).count == 1)
        ring.removeAll()
        #expect(ring.packets.isEmpty && ring.byteCount == 0 && ring.packets(fromKeyframeAtOrBefore: 1).isEmpty)
    }
}
