import Foundation
import FrameFlow

/// An ONNX attribute value.
enum AttributeValue: Sendable {
    case float(Float), int(Int64), string(String), tensor(Tensor), floats([Float]), ints([Int64]), strings([String])
    /// A subgraph (If's branches, Loop's body), with the model built from it once.
    case graph(Subgraph)
}

/// One ONNX node.
struct ONNXNode: Sendable {
    var name: String
    var opType: String
    var domain: String
    var inputs: [String]
    var outputs: [String]
    var attributes: [String: AttributeValue]

    func int(_ n: String, _ d: Int64) -> Int64 { if case .int(let v)? = attributes[n] { return v }; return d }
    func float(_ n: String, _ d: Float) -> Float { if case .float(let v)? = attributes[n] { return v }; return d }
    func ints(_ n: String) -> [Int64]? { if case .ints(let v)? = attributes[n] { return v }; return nil }
    func string(_ n: String, _ d: String) -> String { if case .string(let v)? = attributes[n] { return v }; return d }
    /// The subgraph attributes (If's branches, Loop's body), in attribute-name order.
    var subgraphs: [Subgraph] {
        attributes.sorted { $0.key < $1.key }.compactMap { entry in
            if case .graph(let g) = entry.value { return g }
            return nil
        }
    }
}

/// A declared graph input or output: name, element type, shape (nil dims are symbolic).
public struct ValueInfo: Sendable {
    public var name: String
    public var type: ElementType?
    public var shape: [Int?]?
}

/// The parts of an ONNX `ModelProto` FrameFlow runs.
struct ONNXModel: Sendable {
    var opsetVersion: Int64 = 1
    var nodes: [ONNXNode] = []
    var initializers: [String: Tensor] = [:]
    var inputs: [ValueInfo] = []
    var outputs: [ValueInfo] = []

    init(empty: Void) throws {}

    /// Decodes a `ModelProto`. `directory` resolves external data files.
    init(data: Data, file: String, directory: String?) throws {
        try ModelError.mappingDecodeErrors { try decode(data: data, file: file, directory: directory) }
    }

    private mutating func decode(data: Data, file: String, directory: String?) throws {
        try data.withUnsafeBytes { raw in
            var r = ProtoReader(raw, what: file)
            var graphRange: Range<Int>?
            while !r.atEnd {
                let (f, w) = try r.tag()
                switch (f, w) {
                case (7, 2): graphRange = try r.lengthDelimited()
                case (8, 2):
                    var sub = ProtoReader(raw, range: try r.lengthDelimited(), what: file)
                    var domain = "", version: Int64 = 0
                    while !sub.atEnd {
                        let (f2, w2) = try sub.tag()
                        if f2 == 1 && w2 == 2 {
                            domain = try sub.string()
                        } else if f2 == 2 && w2 == 0 {
                            version = Int64(bitPattern: try sub.varint())
                        } else {
                            try sub.skip(w2)
                        }
                    }
                    if domain.isEmpty || domain == "ai.onnx" { opsetVersion = version }
                default: try r.skip(w)
                }
            }
            guard let graphRange else { throw ModelError("\(file): no graph in the model (not an ONNX file?)") }
            try decodeGraph(raw, graphRange, file: file, directory: directory)
        }
    }

    /// Subgraphs nested deeper than this are an error (each level recurses through the
    /// decoder: an untrusted file could otherwise nest until the stack overflows).
    static let maxGraphDepth = 16

    mutating func decodeGraph(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, directory: String?, depth: Int = 0) throws {
        guard depth <= Self.maxGraphDepth else { throw ModelError("\(file): subgraphs nested more than \(Self.maxGraphDepth) deep") }
        var r = ProtoReader(raw, range: range, what: file)
        while !r.atEnd {
            let (f, w) = try r.tag()
            switch (f, w) {
            case (1, 2): nodes.append(try Self.decodeNode(raw, try r.lengthDelimited(), file: file, directory: directory, depth: depth))
            case (5, 2):
                let t = try Self.decodeTensor(raw, try r.lengthDelimited(), file: file, directory: directory)
                initializers[t.name] = t.tensor
            case (11, 2): inputs.append(try Self.decodeValueInfo(raw, try r.lengthDelimited(), file: file))
            case (12, 2): outputs.append(try Self.decodeValueInfo(raw, try r.lengthDelimited(), file: file))
            default: try r.skip(w)
            }
        }
    }

    static func decodeNode(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, directory: String?, depth: Int = 0) throws -> ONNXNode {
        var r = ProtoReader(raw, range: range, what: file)
        var n = ONNXNode(name: "", opType: "", domain: "", inputs: [], outputs: [], attributes: [:])
        while !r.atEnd {
            let (f, w) = try r.tag()
            switch (f, w) {
            case (1, 2): n.inputs.append(try r.string())
            case (2, 2): n.outputs.append(try r.string())
            case (3, 2): n.name = try r.string()
            case (4, 2): n.opType = try r.string()
            case (7, 2): n.domain = try r.string()
            case (5, 2):
                let (name, value) = try decodeAttribute(raw, try r.lengthDelimited(), file: file, directory: directory, depth: depth)
                if let value { n.attributes[name] = value }
            default: try r.skip(w)
            }
        }
        return n
    }

    static func decodeAttribute(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, directory: String?, depth: Int = 0) throws -> (
        String, AttributeValue?
    ) {
        var r = ProtoReader(raw, range: range, what: file)
        var name = ""
        var f: Float?, i: Int64?, s: String?, t: Tensor?, g: ONNXModel?
        var floats: [Float] = [], ints: [Int64] = [], strings: [String] = []
        var type: Int64 = 0
        while !r.atEnd {
            let (field, w) = try r.tag()
            switch (field, w) {
            case (1, 2): name = try r.string()
            case (2, 5): f = Float(bitPattern: try r.fixed32())
            case (3, 0): i = Int64(bitPattern: try r.varint())
            case (4, 2): s = try r.string()
            case (5, 2): t = try decodeTensor(raw, try r.lengthDelimited(), file: file, directory: directory).tensor
            case (7, _): try r.floats(w, into: &floats)
            case (8, _): try r.int64s(w, into: &ints)
            case (9, 2): strings.append(try r.string())
            case (6, 2):
                var sub = try ONNXModel(empty: ())
                try sub.decodeGraph(raw, try r.lengthDelimited(), file: file, directory: directory, depth: depth + 1)
                g = sub
            case (20, 0): type = Int64(bitPattern: try r.varint())
            default: try r.skip(w)
            }
        }
        switch type {
        case 1: return (name, .float(f ?? 0))
        case 2: return (name, .int(i ?? 0))
        case 3: return (name, .string(s ?? ""))
        case 4: return (name, t.map { .tensor($0) })
        case 5: return (name, g.map { .graph(Subgraph($0)) })
        case 6: return (name, .floats(floats))
        case 7: return (name, .ints(ints))
        case 8: return (name, .strings(strings))
        default:
            if let f { return (name, .float(f)) }
            if let i { return (name, .int(i)) }
            if let s { return (name, .string(s)) }
            if let t { return (name, .tensor(t)) }
            if !ints.isEmpty { return (name, .ints(ints)) }
            if !floats.isEmpty { return (name, .floats(floats)) }
            return (name, nil)
        }
    }

    /// Decodes a `TensorProto` (typed fields, `raw_data`, or external data files).
    static func decodeTensor(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, directory: String?) throws -> (
        name: String, tensor: Tensor
    ) {
        var r = ProtoReader(raw, range: range, what: file)
        var dims: [Int64] = [], dataType: Int64 = 1, name = ""
        var floatData: [Float] = [], int64Data: [Int64] = [], int32Data: [Int64] = [], doubleData: [Double] = []
        var rawData: Range<Int>?
        var external: [String: String] = [:]
        var location: Int64 = 0
        while !r.atEnd {
            let (f, w) = try r.tag()
            switch (f, w) {
            case (1, _): try r.int64s(w, into: &dims)
            case (2, 0): dataType = Int64(bitPattern: try r.varint())
            case (4, _): try r.floats(w, into: &floatData)
            case (5, _): try r.int64s(w, into: &int32Data)
            case (7, _): try r.int64s(w, into: &int64Data)
            case (8, 2): name = try r.string()
            case (9, 2): rawData = try r.lengthDelimited()
            case (10, _): try r.doubles(w, into: &doubleData)
            case (11, _): try r.int64s(w, into: &int64Data)
            case (13, 2):
                var sub = ProtoReader(raw, range: try r.lengthDelimited(), what: file)
                var k = "", v = ""
                while !sub.atEnd {
                    let (f2, w2) = try sub.tag()
                    if f2 == 1 && w2 == 2 { k = try sub.string() } else if f2 == 2 && w2 == 2 { v = try sub.string() } else { try sub.skip(w2) }
                }
                external[k] = v
            case (14, 0): location = Int64(bitPattern: try r.varint())
            default: try r.skip(w)
            }
        }
        guard let type = ElementType(rawValue: Int(dataType)) else {
            throw ModelError("\(file): tensor '\(name)' has unsupported data type \(dataType)")
        }
        guard dims.allSatisfy({ $0 >= 0 && $0 < 1 << 31 }) else { throw ModelError("\(file): tensor '\(name)' has invalid dims \(dims)") }
        let shape = dims.map { Int($0) }
        guard let count = elementCount(shape) else { throw ModelError("\(file): tensor '\(name)' is too large (\(shape))") }
        var bytes: [UInt8]?
        if location == 1 {
            guard let loc = external["location"], let directory else {
                throw ModelError("\(file): tensor '\(name)' has external data without a location")
            }
            let path = (directory as NSString).appendingPathComponent(loc)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ModelError("\(file): external data file '\(path)' for tensor '\(name)' is missing")
            }
            let offset = Int(external["offset"] ?? "0") ?? 0
            let length = Int(external["length"] ?? "") ?? (data.count - offset)
            guard offset >= 0, length >= 0, offset <= data.count, length <= data.count - offset else {
                throw ModelError("\(file): external data for '\(name)' (offset \(offset), length \(length)) runs past the end of '\(path)'")
            }
            bytes = [UInt8](data[offset..<(offset + length)])
        } else if let rawData {
            bytes = [UInt8](UnsafeRawBufferPointer(rebasing: raw[rawData]))
        }
        let tensor: Tensor
        if let bytes {
            tensor = try fromRaw(bytes, type: type, shape: shape, name: name, file: file)
        } else {
            switch type {
            case .float32, .float16:
                tensor = Tensor(
                    shape: shape, floats: type == .float16 ? int32Data.map { halfToFloat(UInt16(truncatingIfNeeded: $0)) } : floatData, type: type)
            case .double: tensor = Tensor(shape: shape, floats: doubleData.map { Float($0) }, type: .double)
            case .int64, .uint64: tensor = Tensor(shape: shape, ints: int64Data, type: type)
            default: tensor = Tensor(shape: shape, ints: int32Data, type: type)
            }
            let n = tensor.isFloat ? tensor.floats.count : tensor.ints.count
            guard n == count else { throw ModelError("\(file): tensor '\(name)' has \(n) values for shape \(shape)") }
        }
        return (name, tensor)
    }

    /// The number of elements of `shape`, or nil when a dimension is negative or the product
    /// reaches 2³¹ or `Checked.maxElements` (shapes come from untrusted
    /// files; the product must not overflow).
    static func elementCount(_ shape: [Int]) -> Int? {
        guard let count = ResourceLimits.elementCount(shape), count < 1 << 31, count <= Checked.maxElements else { return nil }
        return count
    }

    static func fromRaw(_ b: [UInt8], type: ElementType, shape: [Int], name: String, file: String) throws -> Tensor {
        guard let count = elementCount(shape) else { throw ModelError("\(file): tensor '\(name)' is too large (\(shape))") }
        let size: Int
        switch type {
        case .float32, .int32, .uint32: size = 4
        case .int64, .double, .uint64: size = 8
        case .float16, .uint16, .int16: size = 2
        case .uint8, .int8, .bool: size = 1
        }
        guard b.count == count * size else {
            throw ModelError("\(file): tensor '\(name)' has \(b.count) bytes of raw data, shape \(shape) of \(type) needs \(count * size)")
        }
        return b.withUnsafeBytes { p in
            switch type {
            case .float32:
                return Tensor(
                    shape: shape,
                    floats: (0..<count).map { Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) })
            case .double:
                return Tensor(
                    shape: shape,
                    floats: (0..<count).map {
                        Float(Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self))))
                    }, type: .double)
            case .float16:
                return Tensor(
                    shape: shape,
                    floats: (0..<count).map { halfToFloat(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))) },
                    type: .float16)
            case .int64, .uint64:
                return Tensor(
                    shape: shape, ints: (0..<count).map { Int64(littleEndian: p.loadUnaligned(fromByteOffset: 8 * $0, as: Int64.self)) }, type: type)
            case .uint32:
                return Tensor(
                    shape: shape, ints: (0..<count).map { Int64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) },
                    type: .uint32)
            case .uint16:
                return Tensor(
                    shape: shape, ints: (0..<count).map { Int64(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))) },
                    type: .uint16)
            case .int16:
                return Tensor(
                    shape: shape, ints: (0..<count).map { Int64(Int16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self))) },
                    type: .int16)
            case .int32:
                return Tensor(
                    shape: shape, ints: (0..<count).map { Int64(Int32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self))) },
                    type: .int32)
            case .uint8: return Tensor(shape: shape, ints: b.map { Int64($0) }, type: .uint8)
            case .int8: return Tensor(shape: shape, ints: b.map { Int64(Int8(bitPattern: $0)) }, type: .int8)
            case .bool: return Tensor(shape: shape, ints: b.map { $0 != 0 ? 1 : 0 }, type: .bool)
            }
        }
    }

    static func decodeValueInfo(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String) throws -> ValueInfo {
        var r = ProtoReader(raw, range: range, what: file)
        var info = ValueInfo(name: "", type: nil, shape: nil)
        while !r.atEnd {
            let (f, w) = try r.tag()
            if f == 1 && w == 2 { info.name = try r.string(); continue }
            guard f == 2 && w == 2 else { try r.skip(w); continue }
            var tr = ProtoReader(raw, range: try r.lengthDelimited(), what: file)
            while !tr.atEnd {
                let (f2, w2) = try tr.tag()
                guard f2 == 1 && w2 == 2 else { try tr.skip(w2); continue }
                var tt = ProtoReader(raw, range: try tr.lengthDelimited(), what: file)
                while !tt.atEnd {
                    let (f3, w3) = try tt.tag()
                    if f3 == 1 && w3 == 0 {
                        info.type = ElementType(rawValue: Int(truncatingIfNeeded: try tt.varint()))
                    } else if f3 == 2 && w3 == 2 {
                        var sh = ProtoReader(raw, range: try tt.lengthDelimited(), what: file)
                        var dims: [Int?] = []
                        while !sh.atEnd {
                            let (f4, w4) = try sh.tag()
                            guard f4 == 1 && w4 == 2 else { try sh.skip(w4); continue }
                            var d = ProtoReader(raw, range: try sh.lengthDelimited(), what: file)
                            var v: Int?
                            while !d.atEnd {
                                let (f5, w5) = try d.tag()
                                if f5 == 1 && w5 == 0 { v = Int(truncatingIfNeeded: try d.varint()) } else { try d.skip(w5) }
                            }
                            dims.append(v)
                        }
                        info.shape = dims
                    } else {
                        try tt.skip(w3)
                    }
                }
            }
        }
        return info
    }
}

/// IEEE half → float.
func halfToFloat(_ h: UInt16) -> Float {
    let sign = UInt32(h >> 15) << 31
    let exp = Int((h >> 10) & 0x1F), frac = UInt32(h & 0x3FF)
    if exp == 0 {
        if frac == 0 { return Float(bitPattern: sign) }
        let v = Float(frac) / 1024 * pow2f(-14)
        return sign != 0 ? -v : v
    }
    if exp == 31 { return Float(bitPattern: sign | 0x7F80_0000 | (frac << 13)) }
    return Float(bitPattern: sign | UInt32(exp - 15 + 127) << 23 | (frac << 13))
}

@inline(__always) func pow2f(_ e: Int) -> Float { Float(sign: .plus, exponent: e, significand: 1) }

/// Reads a serialized `TensorProto` file (the ONNX test suite's `input_0.pb`).
public func loadTensorProto(contentsOfFile path: String) throws -> (name: String, tensor: Tensor) {
    guard let data = FileManager.default.contents(atPath: path) else { throw ModelError("\(path): cannot read") }
    return try ModelError.mappingDecodeErrors {
        try data.withUnsafeBytes { raw in
            try ONNXModel.decodeTensor(raw, 0..<raw.count, file: path, directory: (path as NSString).deletingLastPathComponent)
        }
    }
}

extension ModelError {
    /// Runs `body`, reporting the wire reader's errors as `ModelError`s with the same words.
    static func mappingDecodeErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as ProtoReader.DecodeError { throw ModelError(e.description) }
    }
}
