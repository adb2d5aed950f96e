import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's custom TFLite operators against MediaPipe's own TFLite runtime: the inputs and
/// outputs of each of face_landmark_with_attention.tflite's eleven custom operators, and the
/// whole model's outputs, on a face crop
/// (scripts/fixtures/make_litert_custom_op_fixtures.py: Tests/Fixtures/mediapipe/).
@Suite struct TFLiteMediaPipeCustomOpsTests {
    struct Fixture: Decodable {
        struct Op: Decodable {
            var index: Int
            var custom_code: String
            var version: Int
            var custom_options: String
            var inputs: [String]
            var output: String
        }
        struct Stored: Decodable {
            var shape: [Int]
            var f32le: String
        }
        struct Variant: Decodable {
            var name: String
            var custom_code: String
            var custom_options: String
            var error: String?
        }
        var model_outputs: [String]
        var ops: [Op]
        var tensors: [String: Stored]
        var options_variants: [Variant]

        func tensor(_ name: String) throws -> Tensor {
            let s = try #require(tensors[name], "no tensor \(name) in the fixture")
            let data = try #require(Data(base64Encoded: s.f32le))
            let bytes = [UInt8](data)
            let floats = stride(from: 0, to: bytes.count - 3, by: 4).map { (i: Int) -> Float in
                var u = UInt32(bytes[i + 3])
                for j in (0..<3).reversed() { u = u << 8 | UInt32(bytes[i + j]) }
                return Float(bitPattern: u)
            }
            return Tensor(shape: s.shape, floats: floats)
        }
    }

    static let fixture: Fixture? = FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/face_landmark_with_attention.json"))
        .flatMap { try? JSONDecoder().decode(Fixture.self, from: $0) }
    static let modelPath = RepositoryFiles.built("mediapipe/mediapipe/modules/face_landmark/face_landmark_with_attention.tflite")

    static func bytes(hex: String) -> [UInt8] {
        let c = Array(hex.utf8)
        return stride(from: 0, to: c.count - 1, by: 2).map { UInt8(String(decoding: c[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    /// The largest amount by which |got − want| exceeds 1e-4 · |want| (so ≤ 1e-4 means within
    /// 1e-4 relative, or 1e-4 absolute near zero), and the worst relative difference.
    static func excess(_ got: [Float], _ want: [Float]) -> (excess: Float, relative: Float) {
        guard got.count == want.count else { return (.infinity, .infinity) }
        var e: Float = 0, r: Float = 0
        for (g, w) in zip(got, want) {
            let d = g.isNaN ? .infinity : abs(g - w)
            e = max(e, d - 1e-4 * abs(w))
            if abs(w) > 1e-3 { r = max(r, d / abs(w)) }
        }
        return (e, r)
    }

    static func loadedFixture() throws -> Fixture {
        try #require(fixture, "Tests/Fixtures/mediapipe/face_landmark_with_attention.json is missing or unreadable")
    }

    /// Each custom operator of the model on the inputs MediaPipe gave it, against its output.
    @Test(arguments: 0..<11)
    func customOpMatchesMediaPipe(_ k: Int) throws {
        let fx = try Self.loadedFixture()
        let op = fx.ops[k]
        let custom = try TFLiteCustomOperator(
            code: op.custom_code, version: op.version, options: Self.bytes(hex: op.custom_options), context: "op \(op.index)")
        #expect(custom.name == op.custom_code)
        let inputs = try op.inputs.map { try fx.tensor($0) }
        let want = try fx.tensor(op.output)
        let got = try custom.run({ inputs[$0] }, inputCount: inputs.count, outShape: want.shape)
        #expect(got.shape == want.shape)
        let (e, r) = Self.excess(got.floats, want.floats)
        #expect(e <= 1e-4, "operator \(op.index) (\(op.custom_code)): worst excess \(e), worst relative difference \(r)")
    }

    /// The options the model's Landmarks2TransformMatrix nodes hold (a typed vector of 16-bit
    /// indices, an odd count) read as written (by flatbuffers' Python FlexBuffer reader, in
    /// the script's output: 71 eye indices, the last repeated).
    @Test func readsTheModelsOptions() throws {
        let fx = try Self.loadedFixture()
        guard
            case .landmarksToTransformMatrix(let o) = try TFLiteCustomOperator(
                code: fx.ops[1].custom_code, version: 2, options: Self.bytes(hex: fx.ops[1].custom_options), context: "op")
        else { Issue.record("not Landmarks2TransformMatrix"); return }
        #expect(o.left == 33 && o.right == 133 && o.outputHeight == 16 && o.outputWidth == 16 && o.scaleX == 1.5 && o.scaleY == 1.5)
        #expect(o.targetRotation == 0 && o.subset.count == 72 && o.subset.prefix(4) == [33, 7, 163, 144] && o.subset.suffix(2) == [193, 193])
        #expect(
            try TFLiteCustomOperator(code: "TransformTensorBilinear", version: 2, options: Self.bytes(hex: fx.ops[3].custom_options), context: "op")
                == .transformTensorBilinear(height: 16, width: 16))
        #expect(try TFLiteCustomOperator(code: "TransformLandmarks", version: 2, options: [], context: "op") == .transformLandmarks)
    }

    /// Options written by flatbuffers' Python writer (untyped vectors, integers where floats
    /// belong): valid ones read back as written; broken ones (wrong types, missing or
    /// out-of-range values, indices past the landmarks) are ModelErrors naming the problem.
    @Test func optionVariants() throws {
        let fx = try Self.loadedFixture()
        let landmarks = Tensor(shape: [1, 468, 3], floats: (0..<1404).map { Float($0 % 97) })
        let image = Tensor(shape: [1, 4, 4, 2], floats: (0..<32).map(Float.init))
        let identity = Tensor(shape: [1, 4, 4], floats: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        var parsed: [String: TFLiteCustomOperator] = [:]
        for v in fx.options_variants {
            do {
                let op = try TFLiteCustomOperator(code: v.custom_code, version: 2, options: Self.bytes(hex: v.custom_options), context: v.name)
                parsed[v.name] = op
                let inputs = op.inputCount == 1 ? [landmarks] : [image, identity]
                _ = try op.run({ inputs[$0] }, inputCount: inputs.count, outShape: [])
                #expect(v.error == nil, "\(v.name): no error")
            } catch let e as ModelError {
                let want = v.error.map { $0.hasPrefix("run:") ? String($0.dropFirst(4)) : $0 }
                // Load errors name the node (here the variant); run errors get it from the graph.
                let named = v.error?.hasPrefix("run:") == true || e.message.contains(v.name)
                #expect(want != nil && e.message.contains(want!) && named, "\(v.name): \(e.message)")
            }
        }
        let eye = TFLiteCustomOperator.LandmarksToTransformMatrixOptions(
            subset: [33, 7, 163, 144, 145, 153, 154, 154], left: 33, right: 133, targetRotation: 0, outputHeight: 16, outputWidth: 16, scaleX: 1.5,
            scaleY: 1.5)
        #expect(parsed["valid_eye"] == .landmarksToTransformMatrix(eye))
        var rotated = eye
        (rotated.subset, rotated.targetRotation, rotated.scaleX) = ([1, 2, 3, 4, 0, 0], 0.25, 2)
        #expect(parsed["valid_rotated"] == .landmarksToTransformMatrix(rotated))
        #expect(parsed["valid_bilinear"] == .transformTensorBilinear(height: 5, width: 7))
    }

    /// Every prefix of each real custom_options blob, and every single-byte change of it, is
    /// read without a crash; every proper prefix is refused.
    @Test func truncatedAndCorruptedOptions() throws {
        let fx = try Self.loadedFixture()
        for op in [fx.ops[0], fx.ops[3]] {
            let blob = Self.bytes(hex: op.custom_options)
            for n in 0..<blob.count {
                #expect(throws: ModelError.self, "\(op.custom_code) options cut to \(n) of \(blob.count) bytes") {
                    try TFLiteCustomOperator(code: op.custom_code, version: 2, options: blob[..<n], context: "cut")
                }
            }
            for i in blob.indices {
                for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF, blob[i] ^ 0x04, blob[i] &+ 1] {
                    var b = blob
                    b[i] = value
                    _ = try? TFLiteCustomOperator(code: op.custom_code, version: 2, options: b, context: "flip")
                }
            }
        }
    }

    /// Kernel inputs of the wrong shape or type are errors, not crashes.
    @Test func badKernelInputs() {
        let m = Tensor(shape: [1, 4, 4], floats: Array(repeating: 0, count: 16))
        let bilinear = TFLiteCustomOperator.transformTensorBilinear(height: 2, width: 2)
        for (x, matrix) in [
            (Tensor(shape: [4, 4, 2], floats: Array(repeating: 0, count: 32)), m),
            (Tensor(shape: [2, 4, 4, 1], floats: Array(repeating: 0, count: 32)), m),
            (Tensor(shape: [1, 4, 4, 1], floats: Array(repeating: 0, count: 16)), Tensor(shape: [2, 2], floats: [1, 0, 0, 1])),
            (Tensor(shape: [1, 4, 4, 1], ints: Array(repeating: 0, count: 16)), m),
        ] {
            #expect(throws: ModelError.self) { try bilinear.run({ [x, matrix][$0] }, inputCount: 2, outShape: []) }
        }
        #expect(throws: ModelError.self) {
            try TFLiteCustomOperator.transformLandmarks.run(
                { [Tensor(shape: [1, 5, 4], floats: Array(repeating: 0, count: 20)), m][$0] }, inputCount: 2, outShape: [])
        }
        #expect(throws: ModelError.self) { try TFLiteCustomOperator.transformLandmarks.run({ [m][$0] }, inputCount: 1, outShape: []) }
        // No channels: an empty output at once, however large the grid.
        let huge = TFLiteCustomOperator.transformTensorBilinear(height: 1 << 30, width: 1 << 30)
        #expect(
            (try? huge.run({ [Tensor(shape: [1, 4, 4, 0], floats: []), m][$0] }, inputCount: 2, outShape: []))?.shape == [1, 1 << 30, 1 << 30, 0])
        // A matrix of NaNs samples nothing (MediaPipe's floor of NaN would be undefined).
        let nan = Tensor(shape: [1, 4, 4], floats: Array(repeating: .nan, count: 16))
        let out = try? bilinear.run(
            { [Tensor(shape: [1, 3, 3, 1], floats: Array(repeating: 1, count: 9)), nan][$0] }, inputCount: 2, outShape: [1, 2, 2, 1])
        #expect(out?.floats == [0, 0, 0, 0])
    }

    /// The whole model on the face crop (pixels / 255, as MediaPipe's ImageToTensorCalculator
    /// fed it: the script checks the two agree to 1e-6) against MediaPipe's outputs.
    @Test func faceLandmarkWithAttentionMatchesMediaPipe() throws {
        let fx = try Self.loadedFixture()
        guard FileManager.default.fileExists(atPath: Self.modelPath) else {
            Issue.record("\(Self.modelPath) is missing: run scripts/setup.sh test")
            return
        }
        let model = try Model(contentsOf: URL(fileURLWithPath: Self.modelPath))
        #expect(model.opTypes.isSuperset(of: ["Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks"]))
        let rgb = try TestImages.readPNM(RepositoryFiles.fixture("mediapipe/astronaut_face_192.ppm")).packedBytes()
        #expect(rgb.count == 192 * 192 * 3)
        let outs = try model.run([model.inputs[0].name: Tensor(shape: [1, 192, 192, 3], floats: rgb.map { Float($0) / 255 })])
        for name in fx.model_outputs {
            let want = try fx.tensor(name)
            let got = try #require(outs[name], "no output \(name)")
            #expect(got.shape == want.shape)
            let (e, r) = Self.excess(got.floats, want.floats)
            #expect(e <= 1e-4, "\(name): worst excess \(e), worst relative difference \(r)")
        }
    }

    /// The engine's wiring (CUSTOM read at load, the dispatch, two-input ops, a tensor read by
    /// two ops): custom_ops_seed.tflite (one of each operator, made by the script's `seed` mode)
    /// gives what the kernels give when called in turn.
    @Test func seedModelRunsTheKernelsInTurn() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("mediapipe/custom_ops_seed.tflite"))))
        let model = try Model(tflite: bytes, file: "custom_ops_seed.tflite")
        #expect(model.opTypes == ["Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks"])
        let landmarks = Tensor(shape: [1, 12, 3], floats: (0..<36).map { Float(($0 * 37) % 23) / 4 })
        let features = Tensor(shape: [1, 6, 6, 2], floats: (0..<72).map { Float(($0 * 11) % 17) })
        let points = Tensor(shape: [1, 5, 2], floats: (0..<10).map { Float($0) - 3 })
        let outs = try model.run(["landmarks": landmarks, "features": features, "points": points])
        let o = TFLiteCustomOperator.LandmarksToTransformMatrixOptions(
            subset: [0, 2, 5, 7, 9, 11, 3, 3], left: 1, right: 4, targetRotation: 0.1, outputHeight: 16, outputWidth: 16, scaleX: 1.5, scaleY: 1.5)
        let matrix = try TFLiteCustomOperator.landmarksToTransformMatrix(landmarks, o)
        let crop = try TFLiteCustomOperator.transformTensorBilinear(features, matrix: matrix, height: 16, width: 16)
        #expect(outs["crop"]?.shape == [1, 16, 16, 2] && outs["crop"]?.floats == crop.floats)
        #expect(crop.floats.contains { $0 != 0 })  // the crop lands on the map
        #expect(outs["moved"]?.floats == (try TFLiteCustomOperator.transformLandmarks(points, matrix: matrix)).floats)
    }

    /// A custom code FrameFlow does not run (the model's TransformLandmarks renamed) is refused
    /// at load, by name; so is another version.
    @Test func unknownCustomOpIsNamed() throws {
        guard let data = FileManager.default.contents(atPath: Self.modelPath) else {
            Issue.record("\(Self.modelPath) is missing: run scripts/setup.sh test")
            return
        }
        var bytes = [UInt8](data)
        let name = Array("TransformLandmarks".utf8)
        let at = try #require((0...(bytes.count - name.count)).first { bytes[$0..<$0 + name.count].elementsEqual(name) })
        bytes[at + name.count - 1] = UInt8(ascii: "Z")
        #expect {
            try Model(tflite: bytes, file: "renamed.tflite")
        } throws: { e in
            (e as? ModelError)?.message.contains("'TransformLandmarkZ'") == true && (e as? ModelError)?.message.contains("renamed.tflite") == true
        }
        #expect(throws: ModelError.self) { try TFLiteCustomOperator(code: "TransformLandmarks", version: 1, options: [], context: "v1") }
    }
}
