import FrameFlow

/// Gives constants from its options as output side packets, as MediaPipe's
/// `ConstantSidePacketCalculator`: the `i`-th `packet` of the options becomes side packet
/// `PACKET:i`.
///
/// Payload types: `int_value` → Int (a protobuf int32), `float_value` → Float,
/// `double_value` → Double, `bool_value` → Bool, `string_value` → String, `uint64_value` →
/// UInt64, `int64_value` → Int64, `string_vector_value { string_value: … }` → [String]. The
/// message-valued ones (`classification_list_value`, `landmark_list_value`,
/// `time_series_header_value`, `matrix_data_value`) are refused, naming the field.
///
/// Inputs: none. Outputs: none.
/// Side packets out: `PACKET:0`, `PACKET:1`, …: one per `packet` in the options, in order.
/// Options: `mediapipe.ConstantSidePacketCalculatorOptions` { repeated packet { one value } };
/// `float_value` and `double_value` must be finite (a NaN or infinity side packet would reach
/// calculators that take their options from side packets unchecked).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ConstantSidePacketCalculator"
///   output_side_packet: "PACKET:0:num_faces"
///   output_side_packet: "PACKET:1:with_attention"
///   options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] {
///     packet { int_value: 1 }
///     packet { bool_value: true }
///   } }
/// }
/// ```
public final class ConstantSidePacketCalculator: Calculator {
    /// MediaPipe's `ConstantSidePacketCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ConstantSidePacketCalculatorOptions"
        /// The side packets, in `PACKET` index order.
        public var packet: [ConstantSidePacket] = []

        public init() {}
        public init(packet: [ConstantSidePacket]) { self.packet = packet }

        /// Float and double constants are finite (the generic check does not look into enums).
        public func validate() throws {
            for (i, p) in packet.enumerated() {
                switch p.value {
                case .float(let v) where !v.isFinite:
                    throw GraphError(.invalidOption, "packet[\(i)].float_value must be a finite number, not \(v)")
                case .double(let v) where !v.isFinite:
                    throw GraphError(.invalidOption, "packet[\(i)].double_value must be a finite number, not \(v)")
                default: break
                }
            }
        }
    }

    public static let contract = CalculatorContract(outputSidePackets: [.init("PACKET", repeated: true)])

    private let options: Options

    public init(options: Options) { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        let ports = cc.outputSidePacketPorts
        guard ports.allSatisfy({ $0.tag == "PACKET" }), ports.count == options.packet.count,
            Set(ports.map(\.index)) == Set(options.packet.indices)
        else {
            throw GraphError(
                .invalidPort,
                "ConstantSidePacketCalculator needs one output side packet PACKET:i per option packet "
                    + "(\(options.packet.count) packets, side packets: \(ports))",
                node: cc.nodeName)
        }
        for (i, constant) in options.packet.enumerated() {
            try cc.setSidePacket(constant.value.payload, tag: "PACKET", index: i)
        }
    }

    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}

/// One constant of `ConstantSidePacketCalculator`'s options (MediaPipe's
/// `ConstantSidePacketCalculatorOptions.ConstantSidePacket`): exactly one value field.
public struct ConstantSidePacket: Codable, Sendable, Equatable {
    /// The value, by the options field that holds it.
    public enum Value: Sendable, Equatable {
        case int(Int)
        case float(Float)
        case double(Double)
        case bool(Bool)
        case string(String)
        case uint64(UInt64)
        case int64(Int64)
        case stringVector([String])

        /// The side packet's payload.
        public var payload: any Sendable {
            switch self {
            case .int(let v): v
            case .float(let v): v
            case .double(let v): v
            case .bool(let v): v
            case .string(let v): v
            case .uint64(let v): v
            case .int64(let v): v
            case .stringVector(let v): v
            }
        }
    }

    public var value: Value

    public init(_ value: Value) { self.value = value }

    /// The message-valued fields of MediaPipe's oneof, which FrameFlow does not read.
    static let unsupportedFields = [
        "classificationListValue", "landmarkListValue", "timeSeriesHeaderValue", "matrixDataValue",
    ]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let keys = c.allKeys
        func corrupt(_ key: Key?, _ message: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: c.codingPath + (key.map { [$0] } ?? []), debugDescription: message))
        }
        guard keys.count == 1, let key = keys.first else {
            let names = keys.map { OptionsNames.snake($0.stringValue) }
            throw corrupt(nil, keys.isEmpty ? "a packet needs one value field" : "a packet takes one value field, got \(names)")
        }
        switch key.stringValue {
        case "intValue":
            let v = try c.decode(Int.self, forKey: key)
            guard Int(Int32.min)...Int(Int32.max) ~= v else { throw corrupt(key, "\(v) is out of int32 range") }
            value = .int(v)
        case "floatValue": value = .float(try c.decode(Float.self, forKey: key))
        case "doubleValue": value = .double(try c.decode(Double.self, forKey: key))
        case "boolValue": value = .bool(try c.decode(Bool.self, forKey: key))
        case "stringValue": value = .string(try c.decode(String.self, forKey: key))
        case "uint64Value": value = .uint64(try c.decode(UInt64.self, forKey: key))
        case "int64Value": value = .int64(try c.decode(Int64.self, forKey: key))
        case "stringVectorValue":
            let inner = try c.nestedContainer(keyedBy: Key.self, forKey: key)
            let strings = Key("stringValue")
            if let many = try? inner.decode([String].self, forKey: strings) {
                value = .stringVector(many)
            } else if inner.contains(strings) {
                value = .stringVector([try inner.decode(String.self, forKey: strings)])
            } else {
                value = .stringVector([])
            }
        case let name where Self.unsupportedFields.contains(name):
            throw corrupt(key, "FrameFlow does not support message-valued constants")
        default:
            throw corrupt(key, "not a ConstantSidePacket value field")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch value {
        case .int(let v): try c.encode(v, forKey: Key("intValue"))
        case .float(let v): try c.encode(v, forKey: Key("floatValue"))
        case .double(let v): try c.encode(v, forKey: Key("doubleValue"))
        case .bool(let v): try c.encode(v, forKey: Key("boolValue"))
        case .string(let v): try c.encode(v, forKey: Key("stringValue"))
        case .uint64(let v): try c.encode(v, forKey: Key("uint64Value"))
        case .int64(let v): try c.encode(v, forKey: Key("int64Value"))
        case .stringVector(let v):
            var inner = c.nestedContainer(keyedBy: Key.self, forKey: Key("stringVectorValue"))
            try inner.encode(v, forKey: Key("stringValue"))
        }
    }
}

/// `lowerCamel` → `lower_camel`, for messages naming options fields.
private enum OptionsNames {
    static func snake(_ s: String) -> String {
        var out = ""
        for ch in s {
            if ch.isUppercase {
                out += "_" + ch.lowercased()
            } else {
                out.append(ch)
            }
        }
        return out
    }
}

extension ConstantSidePacketCalculator.Options {
    /// mediapipe/calculators/core/constant_side_packet_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.constantSidePacketCalculatorOptions }
}
