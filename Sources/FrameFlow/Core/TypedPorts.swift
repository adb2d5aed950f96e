/// Typed ports: a calculator declares each port once, with its payload type, and derives its
/// contract from the declarations; reading and writing through them is checked by the
/// compiler (MediaPipe's api2 `Input<T>` / `Output<T>` in Swift).
///
/// ```swift
/// final class Invert: Calculator {
///     static let image = InputPort<ImageFrame>("IMAGE")
///     static let inverted = OutputPort<ImageFrame>("IMAGE")
///     static let contract = CalculatorContract(ports: [image, inverted])
///     func process(_ cc: CalculatorContext) throws {
///         let frame = try cc.get(Self.image)
///         try cc.emit(invert(frame), to: Self.inverted)
///     }
/// }
/// ```
public protocol PortDeclaration: Sendable {
    /// Which of a node's port lists the port belongs to.
    var direction: PortDirection { get }
    /// The port as the contract lists it.
    var spec: PortSpec { get }
}

/// The four kinds of a node's ports.
public enum PortDirection: Sendable {
    /// An input stream.
    case input
    /// An output stream.
    case output
    /// An input side packet.
    case inputSidePacket
    /// An output side packet.
    case outputSidePacket
}

/// An input stream port carrying `Payload`.
public struct InputPort<Payload: Sendable>: PortDeclaration {
    /// The port as the contract lists it.
    public let spec: PortSpec
    /// Which of a node's port lists the port belongs to.
    public var direction: PortDirection { .input }
    /// The tag (empty for an untagged port); whether a node may leave it unconnected; whether
    /// it takes several indexes (`TAG:0:a`, `TAG:1:b`).
    public init(_ tag: String = "", optional: Bool = false, repeated: Bool = false) {
        spec = PortSpec(tag, Payload.self, optional: optional, repeated: repeated)
    }
    /// The port's tag.
    public var tag: String { spec.tag }
}

/// An output stream port carrying `Payload`.
public struct OutputPort<Payload: Sendable>: PortDeclaration {
    /// The port as the contract lists it.
    public let spec: PortSpec
    /// Which of a node's port lists the port belongs to.
    public var direction: PortDirection { .output }
    /// See `InputPort.init`.
    public init(_ tag: String = "", optional: Bool = false, repeated: Bool = false) {
        spec = PortSpec(tag, Payload.self, optional: optional, repeated: repeated)
    }
    /// The port's tag.
    public var tag: String { spec.tag }
}

/// An input side packet carrying `Payload`, given once before the first `process`.
public struct InputSidePacket<Payload: Sendable>: PortDeclaration {
    /// The port as the contract lists it.
    public let spec: PortSpec
    /// Which of a node's port lists the port belongs to.
    public var direction: PortDirection { .inputSidePacket }
    /// See `InputPort.init`.
    public init(_ tag: String = "", optional: Bool = false, repeated: Bool = false) {
        spec = PortSpec(tag, Payload.self, optional: optional, repeated: repeated)
    }
    /// The side packet's tag.
    public var tag: String { spec.tag }
}

/// An output side packet carrying `Payload`.
public struct OutputSidePacket<Payload: Sendable>: PortDeclaration {
    /// The port as the contract lists it.
    public let spec: PortSpec
    /// Which of a node's port lists the port belongs to.
    public var direction: PortDirection { .outputSidePacket }
    /// See `InputPort.init`.
    public init(_ tag: String = "", optional: Bool = false, repeated: Bool = false) {
        spec = PortSpec(tag, Payload.self, optional: optional, repeated: repeated)
    }
    /// The side packet's tag.
    public var tag: String { spec.tag }
}

extension CalculatorContract {
    /// A contract whose ports are `ports` (each in the list of its direction, in order); the
    /// other settings as in `init(inputs:outputs:…)`.
    public init(
        ports: [any PortDeclaration], inputPolicy: InputPolicy? = nil, timestampOffset: Int64? = 0,
        concurrentProcess: Bool = false, processesTimestampBounds: Bool = false, waitsForBackEdges: Bool = false,
        runsModel: Bool = false
    ) {
        func specs(_ d: PortDirection) -> [PortSpec] { ports.filter { $0.direction == d }.map(\.spec) }
        self.init(
            inputs: specs(.input), outputs: specs(.output), inputSidePackets: specs(.inputSidePacket),
            outputSidePackets: specs(.outputSidePacket), inputPolicy: inputPolicy, timestampOffset: timestampOffset,
            concurrentProcess: concurrentProcess, processesTimestampBounds: processesTimestampBounds,
            waitsForBackEdges: waitsForBackEdges, runsModel: runsModel)
    }
}

extension CalculatorContext {
    /// The payload on `port` (index `index`) now, as its declared type.
    /// - Throws: `PacketError` naming the stream when it is empty; `GraphError(.invalidPort)`
    ///   when the node does not connect the port.
    public func get<T>(_ port: InputPort<T>, _ index: Int = 0) throws -> T {
        try input(port.tag, index, as: T.self)
    }

    /// The payload on `port` now, or nil when it carries no packet at this timestamp (or is
    /// not connected).
    public func value<T>(_ port: InputPort<T>, _ index: Int = 0) throws -> T? {
        hasInput(port.tag, index) ? try input(port.tag, index, as: T.self) : nil
    }

    /// Whether `port` carries a packet now.
    public func has<T>(_ port: InputPort<T>, _ index: Int = 0) -> Bool { hasInput(port.tag, index) }

    /// Whether the node connects `port`.
    public func isConnected<T>(_ port: InputPort<T>, _ index: Int = 0) -> Bool { hasInputPort(port.tag, index) }

    /// Whether the node connects `port`.
    public func isConnected<T>(_ port: OutputPort<T>, _ index: Int = 0) -> Bool { hasOutputPort(port.tag, index) }

    /// The indexes the node connects for a repeated `port`, ascending.
    public func indexes<T>(_ port: InputPort<T>) -> [Int] { inputIndexes(tag: port.tag) }

    /// Sends `value` on `port` (index `index`) at `timestamp` (default: the input timestamp);
    /// nothing when the node leaves an optional port unconnected.
    public func emit<T>(_ value: T, to port: OutputPort<T>, index: Int = 0, at timestamp: Timestamp? = nil) throws {
        try emit(value, tag: port.tag, index: index, at: timestamp)
    }

    /// The input side packet `port`, as its declared type.
    /// - Throws: `GraphError(.missingSidePacket)` when it was not given; `.typeMismatch`.
    public func get<T>(_ port: InputSidePacket<T>, _ index: Int = 0) throws -> T {
        try sidePacket(port.tag, index, as: T.self)
    }

    /// The input side packet `port`, or nil when the node does not take it or it was not given.
    public func value<T>(_ port: InputSidePacket<T>, _ index: Int = 0) throws -> T? {
        sidePacket(port.tag, index)?.payload == nil ? nil : try sidePacket(port.tag, index, as: T.self)
    }

    /// Sets the output side packet `port`.
    public func set<T>(_ value: T, to port: OutputSidePacket<T>, index: Int = 0) throws {
        try setSidePacket(value, tag: port.tag, index: index)
    }
}
