import Foundation
import FrameFlowML
import Testing

/// Models no one here wrote, against onnxruntime on the same inputs
/// (scripts/fixtures/make_model_fixtures.py, run by scripts/setup.sh test).
@Suite struct RealModelTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/fixtures/models")

    @Test(arguments: ["pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer"])
    func matchesOnnxRuntime(name: String) throws {
        let modelURL = Self.dir.appendingPathComponent(name + ".onnx")
        guard FileManager.default.fileExists(atPath: modelURL.path) else {
            Issue.record("\(modelURL.path) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let model = try Model(contentsOf: modelURL)
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).input_0.pb").path).tensor
        let outs = try model.run([model.inputs[0].name: input])
        for (k, o) in model.outputs.enumerated() {
            let want = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("\(name).output_\(k).pb").path).tensor
            let got = try #require(outs[o.name])
            #expect(got.shape == want.shape)
            var worst: Float = 0
            for i in 0..<want.floats.count { worst = max(worst, abs(got.floats[i] - want.floats[i]) - 1e-4 * abs(want.floats[i])) }
            #expect(worst <= 1e-4, "\(name) output \(o.name): worst excess difference \(worst)")
        }
    }
}
