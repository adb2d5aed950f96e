import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// `Model.batched` / `runBatch`: BlazeFace with a leading batch of N gives each image what a
/// run of its own gives (bit-equal: the kernels walk the batch image by image with the same
/// tiles), and the first image what LiteRT gives (the committed fixture, as RealModelTests).
@Suite struct ModelBatchTests {
    static let url = RealModelTests.dir.appendingPathComponent("face_detection_short_range.tflite")

    /// The fixture image, then variants of it (mirrored, dimmed), so every image differs.
    static func images(_ n: Int) throws -> [Tensor] {
        let input = try loadTensorProto(contentsOfFile: RealModelTests.dir.appendingPathComponent("face_detection_short_range.input_0.pb").path)
            .tensor
        let (h, w, c) = (input.shape[1], input.shape[2], input.shape[3])
        return (0..<n).map { k in
            guard k > 0 else { return input }
            var f = input.floats
            for y in 0..<h {
                for x in 0..<w {
                    for ch in 0..<c {
                        let from = k % 2 == 1 ? (y * w + (w - 1 - x)) * c + ch : (y * w + x) * c + ch
                        f[(y * w + x) * c + ch] = input.floats[from] * (1 - 0.1 * Float(k))
                    }
                }
            }
            return Tensor(shape: input.shape, floats: f)
        }
    }

    @Test(arguments: [2, 3])
    func batchEqualsSingleRuns(n: Int) throws {
        try #require(FileManager.default.fileExists(atPath: Self.url.path), "run scripts/setup.sh test")
        let model = try Model(contentsOf: Self.url)
        let batch = try model.batched(n)
        let name = model.inputs[0].name
        #expect(batch.inputs[0].shape == [n, 128, 128, 3])
        #expect(batch.outputs.map { $0.shape?.first } == model.outputs.map { _ in n })
        let images = try Self.images(n)
        let got = try batch.runBatch(images.map { [name: $0] })
        #expect(got.count == n)
        for (i, image) in images.enumerated() {
            let single = try model.run([name: image])
            for o in model.outputs {
                let a = try #require(got[i][o.name]), b = try #require(single[o.name])
                #expect(a.shape == b.shape, "image \(i) output \(o.name)")
                #expect(a.floats == b.floats, "image \(i) output \(o.name): batch of \(n) differs from a run of its own")
            }
        }
        // Image 0 against LiteRT's output on it (make_model_fixtures.py).
        for (k, o) in model.outputs.enumerated() {
            let want = try loadTensorProto(
                contentsOfFile: RealModelTests.dir.appendingPathComponent("face_detection_short_range.output_\(k).pb").path
            ).tensor
            let a = try #require(got[0][o.name])
            var worst: Float = 0
            for j in 0..<want.floats.count { worst = max(worst, abs(a.floats[j] - want.floats[j]) - 1e-4 * abs(want.floats[j])) }
            #expect(worst <= 1e-4, "output \(o.name): worst excess difference \(worst)")
        }
        // Images differ, so the split is per image and not one result repeated.
        #expect(got[0].values.first!.floats != got[1].values.first!.floats)
    }

    @Test func badBatchesAreErrors() throws {
        try #require(FileManager.default.fileExists(atPath: Self.url.path), "run scripts/setup.sh test")
        let model = try Model(contentsOf: Self.url)
        for n in [0, -1, 5000] { #expect(throws: ModelError.self) { try model.batched(n) } }
        #expect(try model.batched(1) === model)
        let batch = try model.batched(2)
        let name = model.inputs[0].name
        let image = try Self.images(1)[0]
        // An image of the wrong shape, a missing input, and a batch of the wrong size.
        #expect(throws: ModelError.self) {
            try batch.runBatch([[name: image], [name: Tensor(shape: [1, 64, 64, 3], floats: .init(repeating: 0, count: 64 * 64 * 3))]])
        }
        #expect(throws: ModelError.self) { try batch.runBatch([[name: image], ["other": image]]) }
        #expect(throws: ModelError.self) { try batch.runBatch([[name: image], [name: image], [name: image]]) }
        #expect(try batch.runBatch([]).isEmpty)
    }
}
