/// The options of a calculator: a `Codable` struct whose fields are read from the node's
/// `options { [mediapipe.XOptions.ext] { … } }` (or `node_options`) in graph files.
///
/// Field names map from Swift's camelCase to the file's snake_case (`maxInFlight` ↔
/// `max_in_flight`). Fields missing in the file keep the values of `init()`; a field the
/// type does not have, or a value of the wrong type, is an error naming the node, the field
/// and its line and column.
///
/// ```swift
/// struct Options: CalculatorOptions {
///     static let typeName = "mediapipe.FlowLimiterCalculatorOptions"
///     var maxInFlight = 1
///     var maxInQueue = 0
/// }
/// ```
public protocol CalculatorOptions: Codable, Sendable {
    /// The default options.
    init()
    /// The protobuf type name graph files use for these options
    /// (`mediapipe.FlowLimiterCalculatorOptions`), or `nil` to accept any name.
    static var typeName: String? { get }
    /// MediaPipe's protobuf field numbers for these options (`typeName`'s message), so binary
    /// graphs (`.binarypb`) decode them; `nil` (the default) if they have none.
    static var protoSchema: ProtoSchema? { get }
    /// Throws `GraphError(.invalidOption)` naming the field when a value is out of range
    /// (`OptionCheck`). NaN and infinities are refused before it is called, in every field.
    /// The graph calls it when it is built (and so `frameflow validate`), before the
    /// calculator's `init`, and before `update(options:)` while running: calculators get
    /// only options that passed.
    func validate() throws
}

extension CalculatorOptions {
    /// `nil` by default: any options type name is accepted.
    public static var typeName: String? { nil }
    /// No protobuf schema by default: the options are not read from binary graphs.
    public static var protoSchema: ProtoSchema? { nil }
    /// Accepts every value by default.
    public func validate() throws {}

    /// Options read from a text-format message (a graph node's `options { … }` or a block of
    /// another file written in the same format) and validated: the graph's own parser, so
    /// every error names the field and its line and column (`node` names the place in words).
    public static func decode(from message: TextMessage, node: String) throws -> Self {
        let options = try OptionsDecoding.decode(Self.self, from: message, node: node)
        try options.validate(node: node, message: message)
        return options
    }

    /// `validate()`, its error placed at the repeated element's field it names in `message`
    /// (`zone[1].point[0].x`) when it can be found, else at `fallback`.
    func validate(node: String, message: TextMessage?, fallback: SourceLocation? = nil) throws {
        do {
            try validate(node: node, location: nil)
        } catch var e as GraphError {
            if e.location == nil {
                e.location = message.flatMap { OptionsDecoding.location(ofFieldIn: e.message, in: $0) } ?? fallback
            }
            throw e
        }
    }

    /// `validate()`, its error naming `node` and the place the options are written.
    func validate(node: String, location: SourceLocation?) throws {
        do {
            try OptionCheck.finite(self)
            try validate()
        } catch var e as GraphError {
            if e.node == nil { e.node = node }
            if e.location == nil { e.location = location }
            throw e
        } catch {
            throw GraphError(.invalidOption, "\(error)", node: node, location: location)
        }
    }
}

/// Options of a calculator that has none.
public struct NoOptions: CalculatorOptions, Equatable {
    /// The only value.
    public init() {}
}

/// A node's processing step: the unit a graph is built from.
///
/// A calculator declares a static `contract` (its typed ports and side packets) that the
/// graph checks when it is built, never per frame. At run time the graph calls `open`
/// once, `process` for each timestamp the inputs make ready, and `close` once (always, if
/// `open` succeeded). One instance is never called concurrently, but successive calls may
/// come from different worker threads.
///
/// A minimal calculator:
///
/// ```swift
/// final class DoubleCalculator: Calculator {
///     static let contract = CalculatorContract(
///         inputs: [.init("", Int.self)], outputs: [.init("", Int.self)])
///     init(options: NoOptions) {}
///     func process(_ cc: CalculatorContext) throws {
///         try cc.emit(2 * cc.input(as: Int.self))
///     }
/// }
/// ```
public protocol Calculator: AnyObject {
    /// The calculator's options, read from the graph file or given in Swift.
    associatedtype Options: CalculatorOptions = NoOptions
    /// The name graph files use (`SobelEdgesCalculator`); defaults to the type's name.
    static var name: String { get }
    /// Other names graph files may use for it (MediaPipe's `InferenceCalculatorCpu` for
    /// `InferenceCalculator`); none by default.
    static var aliases: [String] { get }
    /// The ports and side packets, with their payload types.
    static var contract: CalculatorContract { get }
    /// Creates the calculator with its options; may reject invalid ones.
    init(options: Options) throws
    /// Creates the calculator for a graph with `environment` (resource roots, limits):
    /// what the graph calls. The default ignores the environment and calls `init(options:)`;
    /// a calculator that loads files or sizes buffers implements it.
    init(options: Options, environment: GraphEnvironment) throws
    /// Called once before the first `process`; side packets are available.
    func open(_ context: CalculatorContext) throws
    /// Called for each ready timestamp (source calculators: repeatedly until they call
    /// `context.finishSource()`).
    func process(_ context: CalculatorContext) throws
    /// Called once after the last `process`, also when the graph is cancelled or fails.
    func close(_ context: CalculatorContext) throws
    /// Takes new options while the graph runs; the graph calls it between two
    /// timestamps. The default throws: a calculator opts in by implementing it.
    func update(options: Options) throws
}

extension Calculator {
    /// The calculator's options type, for tools that list options (`OptionField.fields(of:)`).
    public static var optionsType: any CalculatorOptions.Type { Options.self }

    /// Calls `init(options:)`: the calculator reads nothing from the environment.
    public init(options: Options, environment: GraphEnvironment) throws { try self.init(options: options) }
    /// The type's name, which is the name the calculator is registered under by default.
    public static var name: String { String(describing: self) }
    /// No other names.
    public static var aliases: [String] { [] }
    /// Does nothing by default.
    public func open(_ context: CalculatorContext) throws {}
    /// Does nothing by default.
    public func close(_ context: CalculatorContext) throws {}
    /// Throws `GraphError(.invalidState)` by default: options do not change while running.
    public func update(options: Options) throws {
        throw GraphError(.invalidState, "\(Self.name) does not accept option changes while running")
    }
}

/// A calculator that keeps its options as given and takes new ones while running by storing
/// them: it writes only `init`, and `update(options:)` comes from here.
public protocol OptionsStoringCalculator: Calculator {
    /// The current options; setting them is what `update(options:)` does.
    var options: Options { get set }
}

extension OptionsStoringCalculator {
    /// Stores `options`.
    public func update(options: Options) throws { self.options = options }
}

/// The type of a port's payload, checked between producer and consumer when a graph is
/// built.
public struct PayloadType: Sendable, Equatable, CustomStringConvertible {
    let id: ObjectIdentifier?
    /// The type's name, for messages.
    public let name: String

    /// Any payload.
    public static let any = PayloadType(id: nil, name: "Any")
    /// Payloads of type `T`.
    public static func of<T>(_ type: T.Type) -> PayloadType {
        PayloadType(id: ObjectIdentifier(type), name: String(describing: type))
    }
    /// Whether a producer of `self` may feed a consumer of `other`.
    public func isCompatible(with other: PayloadType) -> Bool { id == nil || other.id == nil || id == other.id }
    public var description: String { name }
}

/// One port in a contract: a tag, a payload type and whether it is optional or repeated.
public struct PortSpec: Sendable {
    /// The tag (`IMAGE`); empty for untagged ports (`input_stream: "name"`).
    public var tag: String
    /// The payload's type (`.any` for untyped ports).
    public var type: PayloadType
    /// Whether a node may leave the port unconnected.
    public var isOptional: Bool
    /// Whether the tag takes several indexes (`IN:0:a`, `IN:1:b`, …).
    public var isRepeated: Bool

    /// A port with tag `tag` carrying `type`.
    public init(_ tag: String, _ type: PayloadType = .any, optional: Bool = false, repeated: Bool = false) {
        self.tag = tag
        self.type = type
        self.isOptional = optional
        self.isRepeated = repeated
    }

    /// A port with tag `tag` carrying values of type `T`.
    public init<T>(_ tag: String, _ type: T.Type, optional: Bool = false, repeated: Bool = false) {
        self.init(tag, .of(type), optional: optional, repeated: repeated)
    }
}

/// What a calculator takes and gives: its ports and side packets.
public struct CalculatorContract: Sendable {
    /// Input stream ports.
    public var inputs: [PortSpec]
    /// Output stream ports.
    public var outputs: [PortSpec]
    /// Input side packets, given once before the first `process`.
    public var inputSidePackets: [PortSpec]
    /// Output side packets.
    public var outputSidePackets: [PortSpec]
    /// Accept any input and output ports, untyped (e.g. `PassThroughCalculator`).
    public var acceptsAnyPorts: Bool
    /// The input policy the calculator needs, unless the graph file sets one.
    public var inputPolicy: InputPolicy?
    /// How far output timestamps lead input timestamps, or `nil` when they are not tied.
    /// With an offset the graph advances output bounds as input bounds advance, even when
    /// `process` is not called.
    public var timestampOffset: Int64?
    /// Whether `process` may run for several timestamps at once, on different workers, when
    /// a graph asks for it (a node's `concurrency`). Only for calculators that keep no state
    /// between calls (or guard it): the graph still delivers each call's outputs in
    /// timestamp order, but the calls themselves overlap.
    public var concurrentProcess: Bool
    /// Whether `process` also runs, with empty inputs, when the inputs' bounds settle a
    /// timestamp that no packet carries (MediaPipe's `SetProcessTimestampBounds(true)`), so
    /// the calculator can pass the bound on (gates, loops, presence checks).
    public var processesTimestampBounds: Bool
    /// Whether the node stays open after its forward inputs finish, until its back-edge inputs
    /// finish too or it has closed every output (`PreviousLoopbackCalculator`: answers still
    /// owed to the last frames wait for the loop's results). Otherwise back edges are not
    /// waited for.
    public var waitsForBackEdges: Bool
    /// Whether `process` runs a model (inference): the runtime then times every call, not a
    /// sample, into the node's `LatencyHistogram` (`NodeStatistics.latency`), which the
    /// fleet's `/metrics` reports as `frameflow_camera_inference_seconds`.
    public var runsModel: Bool

    /// A contract; the defaults: no ports, checked types, no input policy of its own, outputs at the input timestamp, one call at a time.
    public init(
        inputs: [PortSpec] = [], outputs: [PortSpec] = [], inputSidePackets: [PortSpec] = [],
        outputSidePackets: [PortSpec] = [], acceptsAnyPorts: Bool = false, inputPolicy: InputPolicy? = nil,
        timestampOffset: Int64? = 0, concurrentProcess: Bool = false, processesTimestampBounds: Bool = false,
        waitsForBackEdges: Bool = false, runsModel: Bool = false
    ) {
        self.inputs = inputs
        self.outputs = outputs
        self.inputSidePackets = inputSidePackets
        self.outputSidePackets = outputSidePackets
        self.acceptsAnyPorts = acceptsAnyPorts
        self.inputPolicy = inputPolicy
        self.timestampOffset = timestampOffset
        self.concurrentProcess = concurrentProcess
        self.processesTimestampBounds = processesTimestampBounds
        self.waitsForBackEdges = waitsForBackEdges
        self.runsModel = runsModel
    }
}
