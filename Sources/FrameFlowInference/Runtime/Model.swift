import Foundation
import FrameFlow

/// A neural network loaded from an ONNX or TFLite file, run on the CPU in Swift.
///
/// ```swift
/// let model = try Model(contentsOf: URL(fileURLWithPath: "digits.onnx"))
/// let outputs = try model.run(["input": Tensor(shape: [1, 1, 28, 28], floats: pixels)])
/// print(model.inputs.map(\.name), outputs["output"]!.shape)
/// ```
///
/// Two front-ends of one engine: an ONNX graph is planned once at load (`ONNXPlan`: topological
/// order, each node with its kernel from `Ops.table`), a TFLite graph runs its operators in
/// the file's order through `TFLiteKernels.table`; both on the same operator families and
/// kernels. An op FrameFlow does not implement is an error at load that names it.
public final class Model: @unchecked Sendable {  // immutable after init; run() allocates its own values
    /// The front-end the model was loaded by: both run on the same operators and kernels.
    enum Program {
        case onnx(ONNXPlan)
        case tflite(TFLiteGraph)
    }
    let program: Program
    /// The graph's inputs (initializers excluded) and outputs.
    public let inputs: [ValueInfo]
    public let outputs: [ValueInfo]
    /// The element limit the model was loaded under (`Checked.maxElements` then), which
    /// each run checks computed shapes against.
    let maxTensorElements = Checked.maxElements
    /// Float storage kept between runs, one pool per concurrent run (see `Scratch`).
    private let pools = Locked<[FloatPool]>([])

    /// Loads an ONNX or TFLite model, by extension (.onnx, .tflite), else by content; ONNX
    /// external data files are looked up beside it. Tensors are held to
    /// `limits.maxTensorElements`, when loading and in every run.
    public static func load(contentsOf url: URL, limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(contentsOf: url) }
    }

    /// Loads a TFLite flatbuffer held to `limits.maxTensorElements`.
    public static func load(tflite bytes: [UInt8], file: String = "<model>", limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(tflite: bytes, file: file) }
    }

    /// Loads an ONNX model held to `limits.maxTensorElements`.
    public static func load(onnx data: Data, file: String = "<model>", directory: String? = nil, limits: ResourceLimits) throws -> Model {
        try load(limits) { try Model(onnx: data, file: file, directory: directory) }
    }

    /// `body`'s model, loaded (and so run) under `limits`.
    private static func load(_ limits: ResourceLimits, _ body: () throws -> Model) throws -> Model {
        try Checked.$maxElements.withValue(limits.maxTensorElements) { try body() }
    }

    /// Loads an ONNX or TFLite model, by extension (.onnx, .tflite), else by content; ONNX
    /// external data files are looked up beside it. Tensors are held to the default
    /// `ResourceLimits` (`load(contentsOf:limits:)` takes others).
    public convenience init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ModelError("\(url.path): cannot read the model file", cause: .missingFile(path: url.path))
        }
        let ext = url.pathExtension.lowercased()
        let isTFLite = data.count >= 8 && data[data.startIndex + 4..<data.startIndex + 8].elementsEqual("TFL3".utf8)
        if ext == "tflite" || (ext != "onnx" && isTFLite) {
            try self.init(tflite: [UInt8](data), file: url.path)
        } else if ext == "onnx" || Self.hasONNXSignature(data) {
            try self.init(onnx: data, file: url.path, directory: url.deletingLastPathComponent().path)
        } else {
            throw ModelError("\(url.path): not a TFLite (FlatBuffers) model (no TFL3 identifier) nor an ONNX (protobuf) model (\(data.count) bytes)")
        }
    }

    /// Whether `data` starts as an ONNX ModelProto does: with the tag of one of its fields
    /// (ir_version's 0x08 as every exporter writes it first; graph, opset_import, names, …).
    static func hasONNXSignature(_ data: Data) -> Bool {
        guard let first = data.first else { return false }
        return [0x08, 0x12, 0x1A, 0x22, 0x28, 0x32, 0x3A, 0x42, 0x72, 0x7A, 0x82].contains(first)
    }

    /// The flatbuffer the model was built from, kept when `ModelCache` built it (to tell
    /// equal bytes from a hash collision); the array shares the caller's storage.
    let sourceBytes: [UInt8]?

    /// Loads a TFLite flatbuffer.
    public convenience init(tflite bytes: [UInt8], file: String = "<model>") throws {
        try self.init(tflite: bytes, file: file, keepingBytes: false)
    }

    /// Loads a TFLite flatbuffer, keeping `bytes` in `sourceBytes` when asked.
    convenience init(tflite bytes: [UInt8], file: String, keepingBytes: Bool) throws {
        self.init(tflite: try TFLiteGraph(bytes: bytes, file: file), sourceBytes: keepingBytes ? bytes : nil)
    }

    /// A decoded TFLite graph (a file's, or one rewritten by `batched`).
    init(tflite g: TFLiteGraph, sourceBytes: [UInt8]?) {
        self.sourceBytes = sourceBytes
        program = .tflite(g)
        inputs = g.inputs.map { ValueInfo(name: g.tensors[$0].name, type: g.tensors[$0].type, shape: g.tensors[$0].shape.map { $0 }) }
        outputs = g.outputs.map { ValueInfo(name: g.tensors[$0].name, type: g.tensors[$0].type, shape: g.tensors[$0].shape.map { $0 }) }
    }

    public convenience init(onnx data: Data, file: String = "<model>", directory: String? = nil) throws {
        try self.init(graph: try ONNXModel(data: data, file: file, directory: directory), file: file)
    }

    /// Op types the model uses.
    public var opTypes: Set<String> {
        switch program {
        case .onnx(let plan): plan.declaredOpTypes
        case .tflite(let graph): graph.declaredOps
        }
    }

    /// The ONNX plan (nil for a TFLite model): what fusion left, for tests.
    var onnxPlan: ONNXPlan? {
        if case .onnx(let plan) = program { return plan }
        return nil
    }

    /// Runs the model on `feeds` (by input name); returns every graph output by name.
    ///
    /// Safe to call from several threads at once. Intermediate tensors' storage is reused
    /// between runs, so a model run over and over stops allocating after its first runs.
    ///
    /// With `parallelism`, large convolutions and matrix products are split across its
    /// threads (a graph passes its workers; outside graphs, `Parallelism(pool)` with a pool
    /// of one worker fewer than the threads wanted, the calling thread being the last).
    public func run(_ feeds: [String: Tensor], parallelism: Parallelism? = nil) throws -> [String: Tensor] {
        try run(feeds, parallelism: parallelism, timing: nil)
    }

    /// One run with a storage pool of this model's (made current for the run's ops).
    private func run(_ feeds: [String: Tensor], parallelism: Parallelism?, timing: Timing?) throws -> [String: Tensor] {
        let pool = pools.withLock { $0.popLast() } ?? FloatPool()
        defer { pools.withLock { $0.append(pool) } }
        return try Checked.$maxElements.withValue(maxTensorElements) {
            try Scratch.$parallelism.withValue(parallelism) {
                try Scratch.$pool.withValue(pool) { try runPlan(feeds, timing: timing) }
            }
        }
    }

    /// Called after each op of a profiled run: op type, which op (its node name, or index and
    /// output shape), nanoseconds.
    typealias Timing = (_ op: String, _ which: () -> String, _ nanoseconds: UInt64) -> Void

    /// Time spent in each op type over `iterations` runs on `feeds` (after one warm-up run),
    /// slowest first: where a model spends its time. With `eachOp`, one row per op instead
    /// of per type ("CONV_2D #0 [1, 64, 64, 24]"); with `parallelism`, the ops as split across it.
    public func profile(
        _ feeds: [String: Tensor], iterations: Int = 10, eachOp: Bool = false, parallelism: Parallelism? = nil
    ) throws -> [(op: String, calls: Int, milliseconds: Double)] {
        _ = try run(feeds)
        var table: [String: (calls: Int, ns: UInt64)] = [:]
        for _ in 0..<max(1, iterations) {
            _ = try run(feeds, parallelism: parallelism) { op, which, ns in
                let key = eachOp ? "\(op) \(which())" : op
                table[key, default: (0, 0)].calls += 1
                table[key, default: (0, 0)].ns += ns
            }
        }
        return table.map {
            (op: $0.key, calls: $0.value.calls / max(1, iterations), milliseconds: Double($0.value.ns) / 1e6 / Double(max(1, iterations)))
        }
        .sorted { $0.milliseconds > $1.milliseconds }
    }

    /// A fed tensor must hold as many values as its shape says: kernels read through
    /// pointers sized by the shape.
    static func checkValueCount(_ t: Tensor, _ name: String) throws {
        let held = t.isFloat ? t.floats.count : t.ints.count
        guard held == t.count else { throw ModelError("input '\(name)' has shape \(t.shape) (\(t.count) values) but holds \(held)") }
    }

    /// A decoded ONNX graph (a model's, or a subgraph's with its captured names as inputs).
    init(graph decoded: ONNXModel, file: String) throws {
        let plan = try ONNXPlan(graph: decoded, file: file)
        program = .onnx(plan)
        sourceBytes = nil
        inputs = plan.inputs
        outputs = plan.outputs
    }

    private func runPlan(_ feeds: [String: Tensor], timing: Timing?) throws -> [String: Tensor] {
        switch program {
        case .onnx(let plan): try plan.run(feeds, timing: timing)
        case .tflite(let graph): try graph.run(named: feeds, timing: timing)
        }
    }
}
