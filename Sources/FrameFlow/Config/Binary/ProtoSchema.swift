/// The protobuf layout of one message type: its full name, its fields by number, and for an
/// options type the number it extends `mediapipe.CalculatorOptions` (or
/// `mediapipe.MediaPipeOptions`) with.
///
/// Binary graphs (`.binarypb`) carry field numbers, text graphs carry field names; a schema
/// maps one to the other, so a binary graph decodes to the same text-format tree as its text
/// form. Declare one for an options type with `CalculatorOptions.protoSchema`, or register one
/// for an options type that only graphs use with `ProtoSchemaRegistry.register(_:)`.
///
/// ```swift
/// ProtoSchema("mediapipe.FlowLimiterCalculatorOptions", extension: 326963320, fields: [
///     .init(1, "max_in_flight", .int32),
///     .init(2, "max_in_queue", .int32),
///     .init(3, "in_flight_timeout", .int64),
/// ])
/// ```
public struct ProtoSchema: Sendable {
    /// The message's full name (`mediapipe.FlowLimiterCalculatorOptions`).
    public var name: String
    /// The extension number of `[name.ext]` in `CalculatorOptions`/`MediaPipeOptions`, if any.
    public var extensionNumber: Int?
    /// The fields, in declaration order.
    public var fields: [ProtoField] {
        didSet { index = Self.index(fields) }
    }
    private var index: [Int: Int]

    /// A schema for message `name` with `fields`; `extensionNumber` for an options extension.
    public init(_ name: String, extension extensionNumber: Int? = nil, fields: [ProtoField]) {
        self.name = name
        self.extensionNumber = extensionNumber
        self.fields = fields
        index = Self.index(fields)
    }

    /// The field numbered `number`, if the message has one.
    public func field(number: Int) -> ProtoField? { index[number].map { fields[$0] } }

    private static func index(_ fields: [ProtoField]) -> [Int: Int] {
        var index: [Int: Int] = [:]
        for (i, f) in fields.enumerated() { index[f.number] = i }
        return index
    }
}

/// One field of a `ProtoSchema`: its number, its text-format name and what it holds.
///
/// Repeated scalar fields are read packed or unpacked, whichever the bytes use, as protobuf
/// parsers do.
public struct ProtoField: Sendable {
    /// What a field holds, as its `.proto` type says.
    public indirect enum Kind: Sendable {
        /// Integers as varints (`sint` zigzag-encoded).
        case int32, int64, uint32, uint64, sint32, sint64
        /// Integers in 4 or 8 little-endian bytes.
        case fixed32, fixed64, sfixed32, sfixed64
        /// A boolean, IEEE floats, UTF-8 text and raw bytes.
        case bool, float, double, string, bytes
        /// An enum: its value names by number (unknown numbers come out as numbers).
        case enumeration([Int: String])
        /// A nested message.
        case message(ProtoSchema)
        /// `mediapipe.CalculatorOptions` or `MediaPipeOptions`: extensions by number, each
        /// decoded with the schema registered for that number.
        case extensions
        /// `google.protobuf.Any`: a type URL and the message's bytes, decoded with the schema
        /// registered for the type's name.
        case any
        /// A message FrameFlow does not read (`packet_factory`, an executor's options): its
        /// bytes are checked to be well-formed and skipped; the field stays, with an empty body.
        case ignored
    }

    /// The field number on the wire.
    public var number: Int
    /// The name text-format graphs use (`max_in_flight`).
    public var name: String
    /// What the field holds.
    public var kind: Kind
    /// Whether the field may occur several times (`repeated`).
    public var isRepeated: Bool

    /// Field `number`, named `name`, holding `kind`; `repeated` for a repeated field.
    public init(_ number: Int, _ name: String, _ kind: Kind, repeated: Bool = false) {
        self.number = number
        self.name = name
        self.kind = kind
        isRepeated = repeated
    }

    /// A repeated field.
    public static func repeated(_ number: Int, _ name: String, _ kind: Kind) -> ProtoField {
        ProtoField(number, name, kind, repeated: true)
    }
}

/// Protobuf schemas by message name and by extension number: what binary graphs are decoded
/// with.
///
/// `mediaPipe` holds the graph structure's own messages' options (stream handlers) and the
/// MediaPipe options types that MediaPipe's graphs carry but no FrameFlow calculator reads
/// (`mediapipe.FaceDetectionOptions`, …). Each `CalculatorRegistry` has its own registry
/// (`schemas`): those plus its calculators' options, which `GraphConfig(contentsOfFile:registry:)`
/// decodes with.
public final class ProtoSchemaRegistry: Sendable {
    private struct Tables {
        var byName: [String: ProtoSchema] = [:]
        var byExtension: [Int: ProtoSchema] = [:]
    }
    private let tables = Locked(Tables())

    /// A new registry with MediaPipe's graph-only options types: what a graph decoded
    /// without a calculator registry is read with.
    public static var mediaPipe: ProtoSchemaRegistry {
        let r = ProtoSchemaRegistry()
        for s in MediaPipeSchemas.all { r.register(s) }
        return r
    }

    /// An empty registry.
    public init() {}

    /// A registry holding `other`'s schemas; later registrations do not touch `other`.
    public init(copying other: ProtoSchemaRegistry) {
        let t = other.tables.withLock { $0 }
        tables.withLock { $0 = t }
    }

    /// Registers `schema` under its name and, if it has one, its extension number (later
    /// registrations of either win).
    public func register(_ schema: ProtoSchema) {
        tables.withLock { t in
            t.byName[schema.name] = schema
            if let n = schema.extensionNumber { t.byExtension[n] = schema }
        }
    }

    /// Registers the schema of `calculator`'s options, if they declare one.
    public func register(optionsOf calculator: any Calculator.Type) {
        func schema<C: Calculator>(_: C.Type) -> ProtoSchema? { C.Options.protoSchema }
        if let s = schema(calculator) { register(s) }
    }

    /// Registers the options schemas of every calculator in `registry`.
    public func register(calculatorsIn registry: CalculatorRegistry) {
        for name in registry.names {
            if let t = registry.calculator(named: name) { register(optionsOf: t) }
        }
    }

    /// The schema of the message named `name` (`mediapipe.FaceDetectionOptions`).
    public func schema(named name: String) -> ProtoSchema? { tables.withLock { $0.byName[name] } }

    /// The schema of the options type that extends `CalculatorOptions` with `number`.
    public func schema(extension number: Int) -> ProtoSchema? { tables.withLock { $0.byExtension[number] } }

    /// Every registered message name, sorted.
    public var names: [String] { tables.withLock { $0.byName.keys.sorted() } }
}
