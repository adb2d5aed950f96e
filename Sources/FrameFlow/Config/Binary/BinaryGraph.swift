/// MediaPipe's serialized graphs: a `CalculatorGraphConfig` in protobuf's binary wire format
/// (the `.binarypb` files MediaPipe's apps and Python wheel ship).
///
/// `decode` turns the bytes into the same `TextMessage` tree `TextFormatParser` makes of the
/// graph's text form (field names from the schemas, enums as identifiers, numbers as Swift
/// prints them, options as `[mediapipe.X.ext] { … }` and `node_options`/`graph_options` as
/// `[type.googleapis.com/mediapipe.X] { … }`), so everything after parsing is shared with text
/// graphs. Options are decoded with the schemas in a `ProtoSchemaRegistry`; an options type
/// without one is an error naming the type.
///
/// Locations in the tree (and so in later errors) have line 0 and the byte offset as column.
/// Corrupt or truncated input is a `GraphError(.syntax)` naming the file, the byte offset and
/// the message being read; messages nest at most `ResourceLimits.maxNestingDepth` deep.
public enum BinaryGraph {
    /// Decodes a serialized `CalculatorGraphConfig`; `file` names it in locations and errors.
    public static func decode(
        _ bytes: [UInt8], file: String? = nil, schemas: ProtoSchemaRegistry = .mediaPipe, limits: ResourceLimits = ResourceLimits()
    ) throws -> TextMessage {
        try bytes.withUnsafeBytes { raw in
            var d = Decoder(bytes: raw, file: file, schemas: schemas, maxDepth: limits.maxNestingDepth)
            return try d.run(graphSchema)
        }
    }

    /// Whether `bytes` cannot be a text graph: they hold a byte text never has (NUL and other
    /// control characters but tab, newline, carriage return, form feed, vertical tab) or are
    /// not UTF-8.
    public static func looksBinary(_ bytes: [UInt8]) -> Bool {
        if bytes.contains(where: { $0 < 9 || ($0 > 13 && $0 < 32) || $0 == 127 }) { return true }
        return String(validating: bytes, as: UTF8.self) == nil
    }

    // MARK: The graph's own messages (mediapipe/framework/calculator.proto, stream_handler.proto)

    /// `mediapipe.InputStreamInfo`.
    public static let inputStreamInfoSchema = ProtoSchema(
        "mediapipe.InputStreamInfo",
        fields: [.init(1, "tag_index", .string), .init(2, "back_edge", .bool)])

    /// `mediapipe.InputStreamHandlerConfig`: the handler's name and its options as
    /// `MediaPipeOptions` extensions.
    public static let inputStreamHandlerSchema = ProtoSchema(
        "mediapipe.InputStreamHandlerConfig",
        fields: [.init(1, "input_stream_handler", .string), .init(3, "options", .extensions)])

    /// `mediapipe.OutputStreamHandlerConfig` (FrameFlow ignores it; its options are skipped).
    public static let outputStreamHandlerSchema = ProtoSchema(
        "mediapipe.OutputStreamHandlerConfig",
        fields: [
            .init(1, "output_stream_handler", .string), .repeated(2, "input_side_packet", .string),
            .init(3, "options", .ignored),
        ])

    /// `mediapipe.ExecutorConfig` (FrameFlow keeps one pool; the executor's options are skipped).
    public static let executorSchema = ProtoSchema(
        "mediapipe.ExecutorConfig",
        fields: [.init(1, "name", .string), .init(2, "type", .string), .init(3, "options", .ignored)])

    /// `mediapipe.ProfilerConfig`.
    public static let profilerSchema = ProtoSchema(
        "mediapipe.ProfilerConfig",
        fields: [
            .init(1, "histogram_interval_size_usec", .int64), .init(2, "num_histogram_intervals", .int64),
            .init(3, "enable_input_output_latency", .bool), .init(4, "enable_profiler", .bool),
            .init(5, "enable_stream_latency", .bool), .init(6, "use_packet_timestamp_for_added_packet", .bool),
            .init(7, "trace_log_capacity", .int64), .repeated(8, "trace_event_types_disabled", .int32),
            .init(9, "trace_log_path", .string), .init(10, "trace_log_count", .int32),
            .init(11, "trace_log_interval_usec", .int64), .init(12, "trace_log_margin_usec", .int64),
            .init(13, "trace_log_duration_events", .bool), .init(14, "trace_log_interval_count", .int32),
            .init(15, "trace_log_disabled", .bool), .init(16, "trace_enabled", .bool),
            .init(17, "trace_log_instant_events", .bool), .init(18, "calculator_filter", .string),
        ])

    /// `mediapipe.CalculatorGraphConfig.Node`.
    public static let nodeSchema = ProtoSchema(
        "mediapipe.CalculatorGraphConfig.Node",
        fields: [
            .init(1, "name", .string), .init(2, "calculator", .string),
            .repeated(3, "input_stream", .string), .repeated(4, "output_stream", .string),
            .repeated(5, "input_side_packet", .string), .repeated(6, "output_side_packet", .string),
            .init(7, "options", .extensions), .repeated(8, "node_options", .any),
            .init(9, "source_layer", .int32), .init(10, "buffer_size_hint", .int32),
            .init(11, "input_stream_handler", .message(inputStreamHandlerSchema)),
            .init(12, "output_stream_handler", .message(outputStreamHandlerSchema)),
            .repeated(13, "input_stream_info", .message(inputStreamInfoSchema)),
            .init(14, "executor", .string), .init(15, "profiler_config", .message(profilerSchema)),
            .init(16, "max_in_flight", .int32), .repeated(17, "option_value", .string),
            .repeated(1005, "external_input", .string),
        ])

    /// `mediapipe.CalculatorGraphConfig`. Packet factories, packet generators, status handlers
    /// and the graph-level `options` are read as `.ignored`: `GraphConfig` refuses them, as it
    /// does in text graphs.
    public static let graphSchema = ProtoSchema(
        "mediapipe.CalculatorGraphConfig",
        fields: [
            .repeated(1, "node", .message(nodeSchema)), .repeated(6, "packet_factory", .ignored),
            .repeated(7, "packet_generator", .ignored), .init(8, "num_threads", .int32),
            .repeated(9, "status_handler", .ignored), .repeated(10, "input_stream", .string),
            .repeated(15, "output_stream", .string), .repeated(16, "input_side_packet", .string),
            .repeated(17, "output_side_packet", .string), .init(11, "max_queue_size", .int32),
            .init(21, "report_deadlock", .bool),
            .init(12, "input_stream_handler", .message(inputStreamHandlerSchema)),
            .init(13, "output_stream_handler", .message(outputStreamHandlerSchema)),
            .repeated(14, "executor", .message(executorSchema)),
            .init(18, "profiler_config", .message(profilerSchema)), .init(19, "package", .string),
            .init(20, "type", .string), .init(1001, "options", .ignored), .repeated(1002, "graph_options", .any),
        ])
}

/// The wire-format walk behind `BinaryGraph.decode`.
private struct Decoder {
    let bytes: UnsafeRawBufferPointer
    let file: String?
    let schemas: ProtoSchemaRegistry
    let maxDepth: Int
    var depth = 0
    /// The innermost message being read when the reader failed, for the error.
    var failedIn: String?

    init(bytes: UnsafeRawBufferPointer, file: String?, schemas: ProtoSchemaRegistry, maxDepth: Int) {
        self.bytes = bytes
        self.file = file
        self.schemas = schemas
        self.maxDepth = maxDepth
    }

    mutating func run(_ schema: ProtoSchema) throws -> TextMessage {
        do {
            return try message(0..<bytes.count, schema)
        } catch let e as ProtoReader.DecodeError {
            throw GraphError(.syntax, "\(e.reason) at byte \(e.offset) in \(failedIn ?? schema.name)", location: location(e.offset))
        }
    }

    func location(_ offset: Int) -> SourceLocation { SourceLocation(file: file, line: 0, column: offset) }

    func error(_ message: String, at offset: Int) -> GraphError { error(.syntax, message, at: offset) }

    func error(_ kind: GraphError.Kind, _ message: String, at offset: Int) -> GraphError {
        GraphError(kind, "\(message) at byte \(offset)", location: location(offset))
    }

    func reader(_ range: Range<Int>) -> ProtoReader { ProtoReader(bytes, range: range, what: file ?? "<graph>") }

    /// Reads the message in `range` with `schema`. Singular fields given twice keep the last,
    /// as protobuf parsers do.
    mutating func message(_ range: Range<Int>, _ schema: ProtoSchema) throws -> TextMessage {
        guard depth < maxDepth else {
            throw error("messages nested more than \(maxDepth) deep (ResourceLimits.maxNestingDepth) in \(schema.name)", at: range.lowerBound)
        }
        depth += 1
        defer { depth -= 1 }
        var r = reader(range)
        var msg = TextMessage(fields: [], location: location(range.lowerBound))
        var singular: [Int: Int] = [:]
        do {
            while !r.atEnd {
                let at = r.pos
                let (number, wire) = try r.tag()
                guard let field = schema.field(number: number) else {
                    throw error("unknown field \(number) (wire type \(wire)) in \(schema.name)", at: at)
                }
                for v in try values(field, wire: wire, &r, in: schema, at: at) {
                    let f = TextField(name: field.name, isExtension: false, value: v, location: location(at))
                    if !field.isRepeated, let i = singular[number] {
                        msg.fields[i] = f
                    } else {
                        singular[number] = msg.fields.count
                        msg.fields.append(f)
                    }
                }
            }
        } catch let e as ProtoReader.DecodeError {
            if failedIn == nil { failedIn = schema.name }
            throw e
        }
        return msg
    }

    /// The value(s) of one occurrence of `field`: several for a packed repeated scalar.
    mutating func values(_ field: ProtoField, wire: Int, _ r: inout ProtoReader, in schema: ProtoSchema, at: Int) throws -> [TextValue] {
        let expected: Int
        switch field.kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration: expected = 0
        case .fixed64, .sfixed64, .double: expected = 1
        case .fixed32, .sfixed32, .float: expected = 5
        case .string, .bytes, .message, .extensions, .any, .ignored: expected = 2
        }
        if wire == 2, expected != 2, field.isRepeated {
            // Packed: the scalars one after another in a length-delimited run.
            let run = try r.lengthDelimited()
            var p = reader(run)
            var out: [TextValue] = []
            while !p.atEnd {
                let vat = p.pos
                out.append(TextValue(try scalar(field.kind, wire: expected, &p), at: location(vat)))
            }
            return out
        }
        guard wire == expected else {
            throw error("field '\(field.name)' (\(field.number)) of \(schema.name) has wire type \(wire), expected \(expected)", at: at)
        }
        let vat = r.pos
        switch field.kind {
        case .string, .bytes:
            let run = try r.lengthDelimited()
            guard let s = String(validating: UnsafeRawBufferPointer(rebasing: bytes[run]), as: UTF8.self) else {
                throw error("field '\(field.name)' of \(schema.name) is not valid UTF-8", at: vat)
            }
            return [TextValue(.string(s), at: location(vat))]
        case .message(let inner):
            let run = try r.lengthDelimited()
            return [TextValue(.message(try message(run, inner)), at: location(vat))]
        case .extensions:
            let run = try r.lengthDelimited()
            return [TextValue(.message(try extensions(run, in: "\(schema.name).\(field.name)")), at: location(vat))]
        case .any:
            let run = try r.lengthDelimited()
            return [TextValue(.message(try any(run)), at: location(vat))]
        case .ignored:
            // Checked to be well-formed (every tag and length in range), then left out.
            var p = reader(try r.lengthDelimited())
            while !p.atEnd {
                let (_, w) = try p.tag()
                try p.skip(w)
            }
            return [TextValue(.message(TextMessage(fields: [], location: location(vat))), at: location(vat))]
        default:
            return [TextValue(try scalar(field.kind, wire: wire, &r), at: location(vat))]
        }
    }

    /// One scalar, written as the text parser would read it back to the same value.
    func scalar(_ kind: ProtoField.Kind, wire: Int, _ r: inout ProtoReader) throws -> TextValue.Kind {
        switch kind {
        case .int32: return .number(String(Int32(truncatingIfNeeded: try r.varint())))
        case .int64: return .number(String(Int64(bitPattern: try r.varint())))
        case .uint32: return .number(String(UInt32(truncatingIfNeeded: try r.varint())))
        case .uint64: return .number(String(try r.varint()))
        case .sint32:
            let n = UInt32(truncatingIfNeeded: try r.varint())
            return .number(String(Int32(bitPattern: (n >> 1) ^ (0 &- (n & 1)))))
        case .sint64:
            let n = try r.varint()
            return .number(String(Int64(bitPattern: (n >> 1) ^ (0 &- (n & 1)))))
        case .bool: return .identifier(try r.varint() != 0 ? "true" : "false")
        case .enumeration(let names):
            let n = Int(Int32(truncatingIfNeeded: try r.varint()))
            return names[n].map { .identifier($0) } ?? .number(String(n))
        case .fixed32: return .number(String(try r.fixed32()))
        case .sfixed32: return .number(String(Int32(bitPattern: try r.fixed32())))
        case .fixed64: return .number(String(try r.fixed64()))
        case .sfixed64: return .number(String(Int64(bitPattern: try r.fixed64())))
        case .float: return .number(Self.text(Float(bitPattern: try r.fixed32())))
        case .double: return .number(Self.text(Double(bitPattern: try r.fixed64())))
        default: throw r.fail("not a scalar field")  // unreachable: callers pass scalars only
        }
    }

    /// The shortest text that reads back as `f` (through `Double`, as options decoding reads
    /// numbers, then to `Float`); NaN of any sign or payload as `nan`.
    static func text(_ f: Float) -> String {
        if f.isNaN { return "nan" }
        let s = f.description
        if let d = Double(s), Float(d) == f { return s }
        return Double(f).description  // exact; only if the short form rounds twice wrongly
    }

    static func text(_ d: Double) -> String { d.isNaN ? "nan" : d.description }

    /// `CalculatorOptions` / `MediaPipeOptions`: `merge_fields` and extensions by number, each
    /// as `[mediapipe.X.ext] { … }`.
    mutating func extensions(_ range: Range<Int>, in container: String) throws -> TextMessage {
        var r = reader(range)
        var msg = TextMessage(fields: [], location: location(range.lowerBound))
        do {
            while !r.atEnd {
                let at = r.pos
                let (number, wire) = try r.tag()
                if number == 1, wire == 0 {
                    let v = r.pos
                    msg.fields.append(
                        TextField(
                            name: "merge_fields", isExtension: false,
                            value: TextValue(.identifier(try r.varint() != 0 ? "true" : "false"), at: location(v)), location: location(at)))
                    continue
                }
                guard number >= 20000 else { throw error("unknown field \(number) (wire type \(wire)) in \(container)", at: at) }
                guard let schema = schemas.schema(extension: number) else {
                    throw error(
                        .unknownOption,
                        "unknown options extension \(number) in \(container): no protobuf schema is registered for it (pass the calculators' registry, or register its ProtoSchema with ProtoSchemaRegistry)",
                        at: at)
                }
                guard wire == 2 else { throw error("extension [\(schema.name).ext] (\(number)) has wire type \(wire), expected 2", at: at) }
                let v = r.pos
                let body = try message(try r.lengthDelimited(), schema)
                msg.fields.append(
                    TextField(
                        name: "\(schema.name).ext", isExtension: true, value: TextValue(.message(body), at: location(v)), location: location(at)))
            }
        } catch let e as ProtoReader.DecodeError {
            if failedIn == nil { failedIn = container }
            throw e
        }
        return msg
    }

    /// `google.protobuf.Any`: `[type_url] { … }`, the value decoded with the schema registered
    /// for the type's name (the URL's last `/`-separated part).
    mutating func any(_ range: Range<Int>) throws -> TextMessage {
        var r = reader(range)
        var url: String?
        var value: Range<Int> = range.upperBound..<range.upperBound
        var valueAt = range.upperBound
        do {
            while !r.atEnd {
                let at = r.pos
                let (number, wire) = try r.tag()
                guard wire == 2, number == 1 || number == 2 else {
                    throw error("unexpected field \(number) (wire type \(wire)) in google.protobuf.Any", at: at)
                }
                if number == 1 {
                    let s = r.pos
                    guard let u = String(validating: UnsafeRawBufferPointer(rebasing: bytes[try r.lengthDelimited()]), as: UTF8.self) else {
                        throw error("google.protobuf.Any's type_url is not valid UTF-8", at: s)
                    }
                    url = u
                } else {
                    valueAt = r.pos
                    value = try r.lengthDelimited()
                }
            }
        } catch let e as ProtoReader.DecodeError {
            if failedIn == nil { failedIn = "google.protobuf.Any" }
            throw e
        }
        guard let url, !url.isEmpty else { throw error("google.protobuf.Any without a type_url", at: range.lowerBound) }
        let typeName = url.split(separator: "/").last.map(String.init) ?? url
        guard let schema = schemas.schema(named: typeName) else {
            throw error(
                .unknownOption,
                "unknown options type '\(typeName)' (type URL '\(url)'): no protobuf schema is registered for it (pass the calculators' registry, or register its ProtoSchema with ProtoSchemaRegistry)",
                at: range.lowerBound)
        }
        let body = try message(value, schema)
        let field = TextField(
            name: url, isExtension: true, value: TextValue(.message(body), at: location(valueAt)), location: location(range.lowerBound))
        return TextMessage(fields: [field], location: location(range.lowerBound))
    }
}
