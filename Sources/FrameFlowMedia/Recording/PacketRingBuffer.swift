import Foundation

/// The most recent encoded packets of one stream, in the order they were read, bounded by
/// seconds and by bytes: when either bound is passed the oldest whole GOP (a keyframe and the
/// packets up to the next one) goes, so what remains always starts at a keyframe.
///
/// ```swift
/// var ring = PacketRingBuffer(maxSeconds: 10, maxBytes: 64 << 20)
/// ring.append(packet)
/// let preRoll = ring.packets(fromKeyframeAtOrBefore: eventStart - 5)
/// ```
///
/// Not thread-safe: one owner appends and reads.
public struct PacketRingBuffer: Sendable {
    /// The span (seconds, by decoding time) kept: whole GOPs go once at least this much is
    /// left without them.
    public let maxSeconds: Double
    /// The most bytes kept (the newest GOP stays even when larger).
    public let maxBytes: Int
    /// The packets kept, oldest first; the first is a keyframe unless nothing was.
    public private(set) var packets: [EncodedPacket] = []
    /// The bytes of `packets`.
    public private(set) var byteCount = 0
    /// Indexes in `packets` of the keyframes, in order.
    private var keyframes: [Int] = []

    /// A buffer keeping at most `maxSeconds` and `maxBytes` (each > 0); the newest GOP is
    /// always kept, whatever its size, so a pre-roll can start at its keyframe.
    public init(maxSeconds: Double, maxBytes: Int) {
        self.maxSeconds = maxSeconds
        self.maxBytes = maxBytes
    }

    /// Adds the next packet as read. Packets before the first keyframe are dropped: nothing
    /// could decode them.
    public mutating func append(_ packet: EncodedPacket) {
        if keyframes.isEmpty && !packet.isKeyframe { return }
        if packet.isKeyframe { keyframes.append(packets.count) }
        packets.append(packet)
        byteCount += packet.data.count
        trim()
    }

    /// Forgets everything (the stream restarted: new codec parameters, new times).
    public mutating func removeAll() {
        packets.removeAll()
        keyframes.removeAll()
        byteCount = 0
    }

    /// The packets from the last keyframe whose presentation time is at or before `time`
    /// (seconds) to the newest; from the oldest keyframe kept when none is that old.
    public func packets(fromKeyframeAtOrBefore time: Double) -> ArraySlice<EncodedPacket> {
        guard let first = keyframes.first else { return [] }
        var start = first
        for k in keyframes where packets[k].seconds <= time { start = k }
        return packets[start...]
    }

    /// The presentation time of the oldest packet kept, if any.
    public var oldestSeconds: Double? { packets.first?.seconds }

    /// Drops whole GOPs from the front: while the next keyframe is still at least
    /// `maxSeconds` before the newest packet (so at least `maxSeconds` stay), or while over
    /// `maxBytes`; the newest GOP always stays.
    private mutating func trim() {
        guard let newest = packets.last?.decodeSeconds else { return }
        var k = 0
        var bytes = byteCount
        while k + 1 < keyframes.count {
            let next = keyframes[k + 1]
            guard newest - packets[next].decodeSeconds >= maxSeconds || bytes > maxBytes else { break }
            for i in keyframes[k]..<next { bytes -= packets[i].data.count }
            k += 1
        }
        guard k > 0 else { return }
        let drop = keyframes[k]
        packets.removeFirst(drop)
        keyframes = keyframes[k...].map { $0 - drop }
        byteCount = bytes
    }
}
