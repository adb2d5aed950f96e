import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Protobuf wire-format bytes written by hand, for binary graphs carrying options.
struct OptionsWire {
    var bytes: [UInt8] = []

    mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
    mutating func tag(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }
    mutating func int(_ field: Int, _ v: Int64) {
        tag(field, 0)
        varint(UInt64(bitPattern: v))
    }
    mutating func double(_ field: Int, _ v: Double) {
        tag(field, 1)
        bytes += withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)
    }
    mutating func float(_ field: Int, _ v: Float) {
        tag(field, 5)
        bytes += withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)
    }
    mutating func data(_ field: Int, _ b: [UInt8]) {
        tag(field, 2)
        varint(UInt64(b.count))
        bytes += b
    }
    mutating func string(_ field: Int, _ s: String) { data(field, Array(s.utf8)) }
    mutating func message(_ field: Int, _ build: (inout OptionsWire) -> Void) {
        var w = OptionsWire()
        build(&w)
        data(field, w.bytes)
    }

    /// A binary graph of one node `node` running `calculator`, with options extension
    /// `ext` built by `options`, and the given ports (`input_stream` 3, `output_stream` 4,
    /// `input_side_packet` 5, `output_side_packet` 6).
    static func graph(
        calculator: String, inputs: [String] = [], outputs: [String] = [], sideInputs: [String] = [],
        sideOutputs: [String] = [], ext: Int, _ options: (inout OptionsWire) -> Void
    ) -> [UInt8] {
        var g = OptionsWire()
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

/// A gray image of the given size.
func grayImage(width: Int, height: Int) throws -> ImageFrame {
    try ImagePool().makeImage(width: width, height: height, format: .gray8).freeze()
}

/// The payloads of `packets` as `T`, with their timestamps.
func values<T>(_ packets: [Packet], as type: T.Type) throws -> [(Int64, T)] {
    try packets.map { ($0.timestamp.microseconds, try $0.get(T.self)) }
}

/// The description of the error `body` throws (a `GraphError`, or the `GraphErrors` a graph's
/// validation lists); records an issue and returns nil when it throws none.
func thrownDescription(_ body: () throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String? {
    do {
        try body()
    } catch {
        return "\(error)"
    }
    Issue.record("expected an error", sourceLocation: sourceLocation)
    return nil
}
