/// Protobuf wire-format bytes written by hand, for tests of binary graphs (`.binarypb`) and
/// the options they carry: each call appends one field.
///
/// ```swift
/// var w = ProtobufWire()
/// w.string(2, "GateCalculator")
/// w.message(7) { o in o.int(1, 1) }
/// let bytes = w.bytes
/// ```
public struct ProtobufWire: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    public init() {}

    /// Appends `v` as a base-128 varint (no tag).
    public mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
    /// Appends the tag of `field` with wire type `wire` (0 varint, 1 64-bit, 2 length-delimited,
    /// 5 32-bit).
    public mutating func tag(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }
    /// Appends varint field `field` (int32, int64, enum or bool; negatives as ten bytes).
    public mutating func int(_ field: Int, _ v: Int64) {
        tag(field, 0)
        varint(UInt64(bitPattern: v))
    }
    /// Appends double field `field`.
    public mutating func double(_ field: Int, _ v: Double) {
        tag(field, 1)
        bytes += withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)
    }
    /// Appends float field `field`.
    public mutating func float(_ field: Int, _ v: Float) {
        tag(field, 5)
        bytes += withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)
    }
    /// Appends length-delimited field `field` holding `b`.
    public mutating func data(_ field: Int, _ b: [UInt8]) {
        tag(field, 2)
        varint(UInt64(b.count))
        bytes += b
    }
    /// Appends string field `field`, UTF-8.
    public mutating func string(_ field: Int, _ s: String) { data(field, Array(s.utf8)) }
    /// Appends message field `field`, its fields written by `build`.
    public mutating func message(_ field: Int, _ build: (inout ProtobufWire) -> Void) {
        var w = ProtobufWire()
        build(&w)
        data(field, w.bytes)
    }
    /// Appends `google.protobuf.Any` field `field` of type `mediapipe.<type>`, its value's fields
    /// written by `build`.
    public mutating func any(_ field: Int, _ type: String, _ build: (inout ProtobufWire) -> Void) {
        message(field) { a in
            a.string(1, "type.googleapis.com/mediapipe.\(type)")
            a.message(2, build)
        }
    }

    /// A binary graph of one node `node` running `calculator`, with options extension
    /// `ext` built by `options`, and the given ports (`input_stream` 3, `output_stream` 4,
    /// `input_side_packet` 5, `output_side_packet` 6); the inputs' stream names are the graph's
    /// input streams.
    public static func graph(
        calculator: String, inputs: [String] = [], outputs: [String] = [], sideInputs: [String] = [],
        sideOutputs: [String] = [], ext: Int, _ options: (inout ProtobufWire) -> Void
    ) -> [UInt8] {
        var g = ProtobufWire()
        for s in inputs { g.string(10, String(s.split(separator: ":").last!)) }
        g.message(1) { n in
            n.string(1, "node")
            n.string(2, calculator)
            for s in inputs { n.string(3, s) }
            for s in outputs { n.string(4, s) }
            for s in sideInputs { n.string(5, s) }
            for s in sideOutputs { n.string(6, s) }
            n.message(7) { o in o.message(ext, options) }
        }
        return g.bytes
    }
}
