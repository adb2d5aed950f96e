import Foundation
import FrameFlowML
import Testing

/// Models no one here wrote, against onnxruntime on the same inputs
/// (scripts/fixtures/make_model_fixtures.py, run by scripts/setup.sh test).
@Suite struct RealModelTests {
    static let dir = MLFixtures.root.appendingPathComponent(".build/fixtures/models")

    @Test(arguments: ["pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer", "face_detection_short_range"])
    func matchesOnnxRuntime(name: String) throws {
        let modelURL = Self.dir.appendingPathComponent(name + (name.hasPrefix("face_detection") ? ".tflite" : ".onnx"))
        guard FileManager.default.fileExists(atPath: modelURL.path) else {
            Issue.record("\(modelURL.path) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let model = try Model(contentsOf: modelURL)
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).input_0.pb").path).tensor
        let outs = try model.run([model.inputs[0].name: input])
        for (k, o) in model.outputs.enumerated() {
            let want = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).output_\(k).pb").path).tensor
            let got = try #require(outs[o.name], "no output \(o.name) in \(outs.keys)")
            #expect(got.shape == want.shape)
            var worst: Float = 0
            for i in 0..<want.floats.count { worst = max(worst, abs(got.floats[i] - want.floats[i]) - 1e-4 * abs(want.floats[i])) }
            #expect(worst <= 1e-4, "\(name) output \(o.name): worst excess difference \(worst)")
        }
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

/// Inputs the fuzzers found (Tests/Fixtures/fuzz): each must load and run, or fail with an error.
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
                feeds[i.name] = Tensor(shape: shape.map { $0! }, floats: Array(repeating: 0.5, count: shape.map { $0! }.reduce(1, *)))
            }
            #expect(throws: ModelError.self, "\(f)") { try m.run(feeds) }
        }
    }

    @Test func tfliteFindings() throws {
        for f in try FileManager.default.contentsOfDirectory(atPath: Self.dir.appendingPathComponent("tflite").path) {
            let bytes = [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("tflite/\(f)")))
            #expect(throws: ModelError.self, "\(f)") { try Model(tflite: bytes, file: f) }
        }
    }
}
