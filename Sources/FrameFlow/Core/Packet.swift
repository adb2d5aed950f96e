/// An immutable payload stamped with a timestamp: what flows along a stream.
///
/// A packet holds any `Sendable` value. An *empty* packet has no payload; a calculator
/// sees one on an input that had nothing at the current timestamp.
///
/// ```swift
/// let p = Packet(42, at: 1000)
/// let n = try p.get(Int.self)        // 42
/// _ = try p.get(String.self)         // throws PacketError.typeMismatch
/// ```
public struct Packet: Sendable, CustomStringConvertible {
    /// The payload in a box of its own: copying a packet (queues, contexts, outputs: several
    /// copies per hop) copies one reference, not an existential container.
    @usableFromInline let box: PacketPayloadBox?
    /// The packet's place in stream time.
    public let timestamp: Timestamp

    /// The value carried, or `nil` for an empty packet.
    @inlinable public var payload: (any Sendable)? { box?.value }

    /// A packet carrying `payload` at `timestamp`.
    @inlinable public init(_ payload: any Sendable, at timestamp: Timestamp) {
        self.box = PacketPayloadBox(payload)
        self.timestamp = timestamp
    }

    /// An empty packet at `timestamp`.
    @inlinable public init(emptyAt timestamp: Timestamp) {
        self.box = nil
        self.timestamp = timestamp
    }

    /// Whether the packet carries no payload.
    @inlinable public var isEmpty: Bool { box == nil }

    /// The same payload at another timestamp (the payload is shared, not copied).
    public func at(_ timestamp: Timestamp) -> Packet { Packet(box: box, timestamp: timestamp) }

    @usableFromInline init(payload: (any Sendable)?, timestamp: Timestamp) {
        self.box = payload.map(PacketPayloadBox.init)
        self.timestamp = timestamp
    }

    @usableFromInline init(box: PacketPayloadBox?, timestamp: Timestamp) {
        self.box = box
        self.timestamp = timestamp
    }

    /// The payload as `T`.
    ///
    /// - Parameters:
    ///   - type: the type the payload should have.
    ///   - stream: the stream's name, for the error message.
    /// - Throws: `PacketError.empty` or `PacketError.typeMismatch` naming the stream and
    ///   both types.
    @inlinable public func get<T>(_ type: T.Type, stream: String = "") throws -> T {
        guard let payload = box?.value else { throw PacketError.empty(stream: stream, timestamp: timestamp) }
        guard let value = payload as? T else {
            throw PacketError.typeMismatch(
                stream: stream, expected: String(describing: T.self),
                actual: String(describing: Swift.type(of: payload)), timestamp: timestamp)
        }
        return value
    }

    public var description: String {
        if let payload = box?.value { return "Packet(\(Swift.type(of: payload)) @ \(timestamp))" }
        return "Packet(empty @ \(timestamp))"
    }
}

/// A packet's payload, boxed once when the packet is made and shared by every copy.
@usableFromInline final class PacketPayloadBox: Sendable {
    @usableFromInline let value: any Sendable
    @inlinable init(_ value: any Sendable) { self.value = value }
}

/// Why a packet's payload could not be read.
public enum PacketError: Error, Equatable, CustomStringConvertible {
    /// The packet is empty.
    case empty(stream: String, timestamp: Timestamp)
    /// The payload has another type than the one asked for.
    case typeMismatch(stream: String, expected: String, actual: String, timestamp: Timestamp)

    public var description: String {
        switch self {
        // Side packets carry no timestamp (`.unset`): named as side packets, not as packets in time.
        case let .empty(name, .unset):
            return "side packet '\(name)' is empty"
        case let .typeMismatch(name, expected, actual, .unset):
            return "side packet '\(name)': expected \(expected), got \(actual)"
        case let .empty(stream, ts):
            return "stream '\(stream)': packet at \(ts) is empty"
        case let .typeMismatch(stream, expected, actual, ts):
            return "stream '\(stream)': packet at \(ts) holds \(actual), not the \(expected) that was asked for"
        }
    }
}
