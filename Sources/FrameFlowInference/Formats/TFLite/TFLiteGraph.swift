import Foundation
import FrameFlow

/// A TFLite model (the flatbuffer schema: subgraph 0, tensors, buffers, operator codes,
/// builtin options), run with NHWC float kernels. float16 weights are widened on load
/// (`DEQUANTIZE` then passes them through).
struct TFLiteGraph {
    struct Op {
        var code: TFLiteOperator
        var inputs: [Int]
        var outputs: [Int]
        var options: FlatBuffer.Table?
        /// A RELU/RELU6 that followed this op, fused at load (TFLite activation code).
        var fusedActivation: UInt8? = nil

        /// A CONV_2D filter with constant weights, laid out at load for `Microkernel`.
        var filter: PackedFilter? = nil
        /// A residual added to this CONV_2D's output before its activation: the index in
        /// `inputs` of a tensor with the output's shape, or fewer channels (zero-padded).
        var residual: Int? = nil
        /// A PRELU fused into this CONV_2D after its residual: one slope per output channel,
        /// zero-padded to a multiple of 16.
        var channelSlopes: [Float]? = nil
        /// A HARD_SWISH that followed this CONV_2D / DEPTHWISE_CONV_2D, fused at load.
        var hardSwish = false
        /// Zeros around the input of this VALID CONV_2D / DEPTHWISE_CONV_2D (top, bottom, left,
        /// right), from a PAD folded at load.
        var spatialPadding: [Int]? = nil
        /// The 1 × 1 CONV_2D whose output this DEPTHWISE_CONV_2D read, fused at load
        /// (`fuseExpansions`): input 0 is then that convolution's input, expanded band by band.
        var expansion: Expansion? = nil
        /// The 1 × 1 CONV_2D that read this DEPTHWISE_CONV_2D's output, fused at load
        /// (`fuseProjections`): the output is then that convolution's, projected band by band.
        var projection: Projection? = nil

        /// For `CUSTOM`: which custom operator, with its options.
        var custom: TFLiteCustomOperator? = nil

        /// The builtin's name, or the custom operator's ("CONV_2D", "TransformLandmarks").
        var name: String { custom?.name ?? code.name }

        /// The fused activation: the one fused at load, else the builtin option at `field`.
        func activation(field: Int) throws -> UInt8 { try fusedActivation ?? options?.byte(field) ?? 0 }
    }

    /// A 1 × 1, stride-1 CONV_2D folded into the DEPTHWISE_CONV_2D after it: its packed
    /// filter, clamp (TFLite activation code) and PRELU slopes.
    struct Expansion {
        var filter: PackedFilter
        var activation: UInt8
        var slopes: [Float]?
    }

    /// A 1 × 1, stride-1 CONV_2D folded into the DEPTHWISE_CONV_2D before it: its packed
    /// filter, clamp, PRELU slopes, and the index in the depthwise op's inputs of the residual
    /// it adds (nil: none).
    struct Projection {
        var filter: PackedFilter
        var activation: UInt8
        var slopes: [Float]?
        var residual: Int?
    }

    var tensors: [(name: String, shape: [Int], type: ElementType)] = []
    var constants: [Int: Tensor] = [:]
    /// Sparse constants (their non-zero values and layout), made dense by `foldDensify`.
    var sparse: [Int: (values: Tensor, sparsity: TFLiteSparsity)] = [:]
    var ops: [Op] = []
    var inputs: [Int] = []
    var outputs: [Int] = []
    /// For each op, the tensors no later op reads (their storage goes back to the pool).
    var lastUses: [[Int]] = []
    /// The builtin op names the file uses (before fusion).
    var declaredOps: Set<String> = []

    /// The schema's name of each builtin operator FrameFlow runs, by code.
    static let names: [Int32: String] = Dictionary(uniqueKeysWithValues: TFLiteOperator.allCases.map { ($0.rawValue, $0.name) })

    init(bytes: [UInt8], file: String) throws {
        let fb = FlatBuffer(bytes: bytes, file: file)
        guard bytes.count >= 8, String(decoding: bytes[4..<8], as: UTF8.self) == "TFL3" else {
            throw ModelError("\(file): not a TFLite (FlatBuffers) model (no TFL3 identifier\(bytes.isEmpty ? "; the file is empty" : ""))")
        }
        let model = try fb.root()
        let codes = try model.tables(1).map { c -> Int32 in
            let dep = Int32(Int8(bitPattern: try c.byte(0)))
            let code = try c.int(3)
            return max(dep, code)
        }
        let customCodes = try model.tables(1).map { (try $0.string(1), Int(try $0.int(2, 1))) }  // custom_code, version
        let buffers = try model.tables(4)
        guard let sg = try model.tables(2).first else { throw ModelError("\(file): no subgraph") }
        for (i, t) in try sg.tables(0).enumerated() {
            let shape = try t.ints(0).map { Int($0) }
            guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 24 }), ONNXModel.elementCount(shape) != nil else {
                throw ModelError("\(file): tensor \(i) has an invalid shape \(shape)")
            }
            let rawType = try t.byte(1)
            let type: ElementType
            switch rawType {
            case 0: type = .float32
            case 1: type = .float16
            case 2: type = .int32
            case 3: type = .uint8
            case 4: type = .int64
            case 6: type = .bool
            case 9: type = .int8
            default: throw ModelError("\(file): tensor '\(try t.string(3))' has unsupported type \(rawType)")
            }
            let name = try t.string(3)
            tensors.append((name, shape, type))
            let b = Int(try t.uint(2))
            if b > 0 {
                guard b < buffers.count else { throw ModelError("\(file): tensor '\(name)' refers to buffer \(b) of \(buffers.count)") }
                var data = try buffers[b].bytesVector(0)
                if data.isEmpty, let off = try buffers[b].field(1) {
                    let o = try fb.u64(off), size = try fb.u64(try buffers[b].field(2) ?? off)
                    guard o <= UInt64(bytes.count), size <= UInt64(bytes.count) - o else {
                        throw ModelError("\(file): buffer \(b) runs past the end")
                    }
                    data = bytes[Int(o)..<Int(o + size)]
                }
                if let s = try t.table(6), !data.isEmpty {  // sparsity: the values of the non-zero entries
                    let width = [ElementType.float16: 2, .uint8: 1, .int8: 1, .bool: 1, .int64: 8][type] ?? 4
                    let values = try ONNXModel.fromRaw(Array(data), type: type, shape: [data.count / width], name: name, file: file)
                    sparse[i] = (values, try TFLiteSparsity(s, context: "\(file): tensor '\(name)'"))
                } else if !data.isEmpty {
                    constants[i] = try ONNXModel.fromRaw(Array(data), type: type, shape: shape, name: name, file: file)
                } else if shape.contains(0) {  // no values to store (an empty axes list): a constant all the same
                    constants[i] = try ONNXModel.fromRaw([], type: type, shape: shape, name: name, file: file)
                }
            }
        }
        inputs = try sg.ints(1).map { Int($0) }
        outputs = try sg.ints(2).map { Int($0) }
        let count = tensors.count
        guard (inputs + outputs).allSatisfy({ $0 >= 0 && $0 < count }) else {
            throw ModelError("\(file): subgraph inputs \(inputs) / outputs \(outputs) refer to missing tensors (\(count) tensors)")
        }
        for (k, o) in try sg.tables(3).enumerated() {
            let idx = Int(try o.uint(0))
            guard idx < codes.count else { throw ModelError("\(file): operator \(k) uses opcode \(idx) of \(codes.count)") }
            let ins = try o.ints(1).map { Int($0) }, outs = try o.ints(2).map { Int($0) }
            guard (ins + outs).allSatisfy({ $0 >= -1 && $0 < tensors.count }) else {
                throw ModelError("\(file): operator \(k) refers to a missing tensor")
            }
            guard !outs.isEmpty, outs.allSatisfy({ $0 >= 0 }) else { throw ModelError("\(file): operator \(k) has no output tensor") }
            guard let code = TFLiteOperator(rawValue: codes[idx]) else {
                throw ModelError("\(file): operator \(k) uses builtin op \(codes[idx]), which FrameFlow does not implement")
            }
            let custom =
                code != .custom
                ? nil
                : try TFLiteCustomOperator(
                    code: customCodes[idx].0, version: customCodes[idx].1, options: try o.bytesVector(5), context: "\(file): operator \(k)")
            guard custom.map({ $0.inputCount == ins.count && outs.count == 1 }) ?? true else {
                throw ModelError("\(file): operator \(k) (\(custom!.name)) has \(ins.count) inputs and \(outs.count) outputs")
            }
            ops.append(Op(code: code, inputs: ins, outputs: outs, options: try o.table(4), custom: custom))
        }
        declaredOps = Set(ops.map(\.name))
        fuseActivations()
        try foldDensify(file: file)
        foldDequantize()
        foldSpatialPads()
        packFilters()
        fuseResiduals()
        fusePRelu()
        fuseHardSwish()
        fuseExpansions()
        fuseProjections()
        var seen = Set(outputs).union(constants.keys)
        lastUses = Array(repeating: [], count: ops.count)
        for (k, op) in ops.enumerated().reversed() {
            for i in op.inputs where i >= 0 && !seen.contains(i) {
                seen.insert(i)
                lastUses[k].append(i)
            }
        }
    }
}
