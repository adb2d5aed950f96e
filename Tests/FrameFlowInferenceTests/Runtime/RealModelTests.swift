import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// Models no one here wrote, against onnxruntime on the same inputs
/// (scripts/fixtures/make_model_fixtures.py, run by scripts/setup.sh test).
@Suite struct RealModelTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("models"))

    @Test(arguments: ["pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer", "face_detection_short_range", "fused_chain", "recurrent_chain"])
    func matchesOnnxRuntime(name: String) throws {
        let modelURL = Self.dir.appendingPathComponent(name + (name.hasPrefix("face_detection") ? ".tflite" : ".onnx"))
        guard FileManager.default.fileExists(atPath: modelURL.path) else {
            Issue.record("\(modelURL.path) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let model = try Model(contentsOf: modelURL)
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).input_0.pb").path).tensor
        let feeds = [model.inputs[0].name: input]
        let wants = try model.outputs.indices.map {
            try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).output_\($0).pb").path).tensor
        }
        func check(_ outs: [String: Tensor], _ how: String) throws {
            for (o, want) in zip(model.outputs, wants) {
                let got = try #require(outs[o.name], "no output \(o.name) in \(outs.keys)")
                #expect(got.shape == want.shape)
                var worst: Float = 0
                for i in 0..<want.floats.count { worst = max(worst, abs(got.floats[i] - want.floats[i]) - 1e-4 * abs(want.floats[i])) }
                #expect(worst <= 1e-4, "\(name) output \(o.name), \(how): worst excess difference \(worst)")
            }
        }
        // First run, then again (recycled storage), split across two worker threads, and two
        // runs at once (one storage pool each).
        try check(try model.run(feeds), "first run")
        try check(try model.run(feeds), "second run")
        let workers = WorkerPool(threads: 2, name: "test.ml")
        defer { workers.shutdown() }
        try check(try model.run(feeds, parallelism: Parallelism(workers)), "two threads")
        let results = Locked<[Result<[String: Tensor], Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let r = Result { try model.run(feeds) }
            results.withLock { $0.append(r) }
        }
        for r in results.withLock({ $0 }) { try check(try r.get(), "concurrent runs") }
    }

    /// What `ONNXPlan.fuseConvolutions` folds at load, on the chain built by the fixture script
    /// (whose outputs `matchesOnnxRuntime` compares): BN, PRelu, Relu, Clip and LeakyRelu go
    /// into their Convs; the Relu and Sigmoid after the Conv with two readers stay; the
    /// scalar Mul, per-channel Add and the four nodes of a spelt-out HardSwish go into the last,
    /// and the scalar Mul and per-channel Add after that HardSwish into its epilogue.
    @Test func convolutionsAbsorbWhatFollowsThem() throws {
        let url = Self.dir.appendingPathComponent("fused_chain.onnx")
        try #require(FileManager.default.fileExists(atPath: url.path), "run scripts/setup.sh test")
        let model = try Model(contentsOf: url)
        let plan = try #require(model.onnxPlan)
        let left = plan.order.map { plan.graph.nodes[$0].opType }
        #expect(left == ["Conv", "Conv", "Conv", "Conv", "Conv", "Relu", "Sigmoid", "Conv"], "\(left)")
    }

    /// YOLOv8n's SiLU activations, `Mul(x, Sigmoid(x))` after each Conv, go into the Convs'
    /// epilogues; only the class scores' Sigmoid (after a Concat) stays. Its outputs against
    /// onnxruntime: `YOLOExportTests.matchesOnnxRuntime`.
    @Test func convolutionsAbsorbSpeltOutSiLU() throws {
        let url = Self.dir.appendingPathComponent("yolov8n.onnx")
        try #require(FileManager.default.fileExists(atPath: url.path), "run scripts/setup.sh test")
        let model = try Model(contentsOf: url)
        let plan = try #require(model.onnxPlan)
        let file = try ONNXModel(data: Data(contentsOf: url), file: url.path, directory: nil)
        func count(_ op: String, _ ops: [String]) -> Int { ops.filter { $0 == op }.count }
        let before = file.nodes.map(\.opType), after = plan.order.map { plan.graph.nodes[$0].opType }
        let fused = plan.order.filter { plan.graph.nodes[$0].attributes[Conv.fusedSiLU] != nil }.count
        #expect(count("Sigmoid", before) == 58 && count("Sigmoid", after) == 1, "Sigmoids \(count("Sigmoid", before)) → \(count("Sigmoid", after))")
        #expect(fused == 57 && count("Mul", before) - count("Mul", after) >= 57, "\(fused) SiLU epilogues")
    }

    @Test func profileNamesTheOpsThatRan() throws {
        let url = Self.dir.appendingPathComponent("face_detection_short_range.tflite")
        try #require(FileManager.default.fileExists(atPath: url.path), "run scripts/setup.sh test")
        let model = try Model(contentsOf: url)
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.input_0.pb").path).tensor
        let table = try model.profile([model.inputs[0].name: input], iterations: 2)
        #expect(Set(table.map(\.op)).isSubset(of: model.opTypes))
        #expect(table.contains { $0.op == "CONV_2D" && $0.calls > 10 && $0.milliseconds > 0 })
        #expect(!table.contains { $0.op == "RELU" }, "RELUs after ADD are fused at load")
        #expect(model.opTypes.contains("RELU"), "opTypes lists what the file declares")
        #expect(zip(table, table.dropFirst()).allSatisfy { $0.milliseconds >= $1.milliseconds })
        #expect(!table.contains { $0.op == "PAD" || $0.op == "DEQUANTIZE" }, "channel PADs go into the residual ADD, constant DEQUANTIZEs are folded")
        let ops = try model.profile([model.inputs[0].name: input], iterations: 1, eachOp: true)
        #expect(ops.contains { $0.op == "CONV_2D #0 [1, 64, 64, 24]" && $0.calls == 1 })
        #expect(ops.count > table.count && ops.allSatisfy { $0.calls == 1 })
    }
}

@Suite struct TFLiteLoadingTests {
    @Test func truncatedAndCorruptModelsAreErrors() throws {
        let path = RealModelTests.dir.appendingPathComponent("face_detection_short_range.tflite").path
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("\(path) is missing: run scripts/setup.sh test")
            return
        }
        let bytes = [UInt8](data)
        for cut in [8, 64, bytes.count / 3, bytes.count / 2] {
            let e = #expect(throws: ModelError.self, "cut at \(cut)") { try Model(tflite: Array(bytes.prefix(cut)), file: "cut.tflite") }
            #expect(e?.description.contains("cut.tflite") == true)
        }
        var noisy = bytes
        for i in stride(from: 16, to: min(noisy.count, 4096), by: 13) { noisy[i] ^= 0x5A }
        if let m = try? Model(tflite: noisy, file: "noisy.tflite") {  // an error, or a model whose run fails cleanly
            _ = try? m.run([m.inputs[0].name: Tensor(shape: [1, 128, 128, 3], floats: Array(repeating: 0, count: 128 * 128 * 3))])
        }
        #expect(throws: ModelError.self) { try Model(tflite: Array("TFL3 but nothing else".utf8), file: "tiny.tflite") }
    }
}

/// Inputs the fuzzers found (Tests/Fixtures/fuzz): each must fail with a ModelError, except
/// `*.valid.onnx` (valid models that crashed or hung before), which must run.
@Suite struct ModelFuzzRegressionTests {
    static let dir = RealModelTests.dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/fuzz")

    @Test func onnxFindings() throws {
        for f in try FileManager.default.contentsOfDirectory(atPath: Self.dir.appendingPathComponent("onnx").path) {
            let data = try Data(contentsOf: Self.dir.appendingPathComponent("onnx/\(f)"))
            guard let m = try? Model(onnx: data, file: f) else { continue }
            var feeds: [String: Tensor] = [:]
            for i in m.inputs {
                guard let shape = i.shape, shape.allSatisfy({ $0 != nil && $0! <= 64 }) else { continue }
                // As the fuzz target feeds them: floats 0.5, integers and booleans 0.
                let dims = shape.map { $0! }, n = dims.reduce(1, *), type = i.type ?? .float32
                switch type {
                case .float32, .float16, .double: feeds[i.name] = Tensor(shape: dims, floats: Array(repeating: 0.5, count: n), type: type)
                default: feeds[i.name] = Tensor(shape: dims, ints: Array(repeating: 0, count: n), type: type)
                }
            }
            if f.hasSuffix(".valid.onnx") {
                // A valid model that used to be too slow or crash: it must now simply run.
                #expect(throws: Never.self, "\(f)") { _ = try m.run(feeds) }
            } else {
                #expect(throws: ModelError.self, "\(f)") { try m.run(feeds) }
            }
        }
    }

    @Test func tfliteFindings() throws {
        for f in try FileManager.default.contentsOfDirectory(atPath: Self.dir.appendingPathComponent("tflite").path) {
            let bytes = [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("tflite/\(f)")))
            #expect(throws: ModelError.self, "\(f)") { try Model(tflite: bytes, file: f) }
        }
    }
}
