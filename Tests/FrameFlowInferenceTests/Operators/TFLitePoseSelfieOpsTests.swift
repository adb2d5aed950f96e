import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// DENSIFY, DEPTH_TO_SPACE, HARD_SWISH and MediaPipe's Convolution2DTransposeBias, and the
/// pose detection, pose landmark and selfie segmentation models that use them, against LiteRT
/// on the same inputs (scripts/fixtures/make_litert_pose_selfie_fixtures.py, run by
/// scripts/setup.sh test). The selfie models' reference is LiteRT with the custom operator
/// rewritten as its builtin TRANSPOSE_CONV with a bias; the operator alone is also checked
/// against a numpy transcription of MediaPipe's kernel.
@Suite struct TFLitePoseSelfieOpsTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("litert_pose_selfie"))

    struct Manifest: Decodable {
        struct ModelRun: Decodable { var model, file, `case`, input: String; var outputs: [String]; var litert_spread: [Float] }
        struct OpRun: Decodable {
            var model, `case`, op: String; var index: Int; var options: [String: Int]; var tensors: [Int]; var inputs: [String?]
            var outputs: [String]
        }
        struct Single: Decodable { var name, model, input, output: String }
        struct Broken: Decodable { var name, model, error: String; var input_shape: [Int] }
        var models: [ModelRun]
        var ops: [OpRun]
        var single: [Single]
        var broken: [Broken]
    }

    static let models = [
        "pose_detection": "pose_detection/pose_detection.tflite", "pose_landmark_full": "pose_landmark/pose_landmark_full.tflite",
        "selfie_segmentation": "selfie_segmentation/selfie_segmentation.tflite",
        "selfie_segmentation_landscape": "selfie_segmentation/selfie_segmentation_landscape.tflite",
    ]

    /// The fixtures' manifest, or nil (with an issue recorded) when setup has not made it.
    static func manifest() throws -> Manifest? {
        let url = dir.appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("\(url.path) is missing: run scripts/setup.sh test (make test does)")
            return nil
        }
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    static func tensor(_ file: String) throws -> Tensor {
        try loadTensorProto(contentsOfFile: dir.appendingPathComponent(file).path).tensor
    }

    static func graph(_ model: String) throws -> TFLiteGraph {
        let path = RepositoryFiles.built("mediapipe/mediapipe/modules/" + models[model]!)
        return try TFLiteGraph(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
    }

    /// Each recorded instance of the new operators (and RESIZE_BILINEAR) in the four models, on
    /// LiteRT's inputs with the file's options, against LiteRT's outputs; DENSIFY, folded at
    /// load, as the constant the loaded graph holds for its output.
    @Test func opsInPoseAndSelfieModelsMatchLiteRT() throws {
        guard let m = try Self.manifest() else { return }
        var checked: [String: Int] = [:]
        var graphs: [String: TFLiteGraph] = [:]
        for r in m.ops {
            let what = "\(r.model) (\(r.case)) op \(r.index) \(r.op)"
            let ins = try r.inputs.map { try $0.map(Self.tensor) }
            func input(_ i: Int) throws -> Tensor { try #require(i < ins.count ? ins[i] : nil, "\(what): input \(i)") }
            let o = r.options
            let got: Tensor
            switch r.op {
            case "DENSIFY":
                if graphs[r.model] == nil { graphs[r.model] = try Self.graph(r.model) }
                got = try #require(graphs[r.model]?.constants[r.tensors[1]], "\(what): no constant for tensor \(r.tensors[1])")
            case "DEPTH_TO_SPACE": got = try NHWC.depthToSpace(try input(0), blockSize: o["blockSize", default: 0])
            case "HARD_SWISH":
                var t = try input(0)
                NHWC.hardSwish(&t.floats)
                got = t
            case "RESIZE_BILINEAR":
                let size = try input(1).asInts
                got = try NHWC.resizeBilinear(
                    try input(0), height: Int(size[0]), width: Int(size[1]), alignCorners: o["alignCorners", default: 0] != 0,
                    halfPixelCenters: o["halfPixelCenters", default: 0] != 0)
            case "CUSTOM:Convolution2DTransposeBias":
                let options = TFLiteCustomOperator.TransposeConvBiasOptions(
                    same: o["padding"] == 1, strideWidth: o["strideW", default: 0], strideHeight: o["strideH", default: 0])
                got = try NHWC.transposeConvBias(try input(0), weights: try input(1), bias: try input(2), options)
            default:
                Issue.record("\(what): no check for \(r.op)")
                continue
            }
            TFLiteBuiltinOpsTests.expectClose(got, try Self.tensor(r.outputs[0]), what)
            checked[r.op, default: 0] += 1
        }
        #expect(checked["DENSIFY"] == 6 && checked["DEPTH_TO_SPACE"] == 6 && checked["CUSTOM:Convolution2DTransposeBias"] == 4, "checked \(checked)")
        #expect(checked["HARD_SWISH"] == 12 && checked["RESIZE_BILINEAR", default: 0] >= 12, "checked \(checked)")
    }

    /// One-op models built by the fixture script (block sizes, HardSwish's corners, sparse
    /// layouts, transposed convolutions with overlapping taps, VALID padding, several output
    /// channels), loaded and run by `Model`, against LiteRT's output or the numpy reference.
    @Test func singleOpModelsMatchTheirReference() throws {
        guard let m = try Self.manifest() else { return }
        #expect(m.single.count == 19, "\(m.single.count) one-op models")
        for s in m.single {
            let model = try Model(contentsOf: Self.dir.appendingPathComponent(s.model))
            let outs = try model.run([model.inputs[0].name: try Self.tensor(s.input)])
            let got = try #require(outs[model.outputs[0].name], "\(s.name): no output")
            TFLiteBuiltinOpsTests.expectClose(got, try Self.tensor(s.output), s.name)
        }
    }

    /// The four models end to end through `Model`, on a random input and on a photo crop,
    /// against LiteRT's outputs; again split across two threads (storage recycled). Each op
    /// matches LiteRT to float rounding (`opsInPoseAndSelfieModelsMatchLiteRT`; fed LiteRT's
    /// intermediate tensors, every op of the two pose models was within 6e-5 when this was
    /// written), but the pose models amplify rounding: LiteRT's own XNNPACK and reference
    /// kernels differ from its builtin ones by up to 6.7e-4 on pose_detection's boxes and 0.1
    /// on pose_landmark_full's segmentation logits (the random input). So an output may differ
    /// by twice that spread, as the fixture script measured it, where it exceeds the 1e-4 of
    /// `expectClose`.
    @Test(arguments: ["pose_detection", "pose_landmark_full", "selfie_segmentation", "selfie_segmentation_landscape"])
    func modelMatchesLiteRT(name: String) throws {
        guard let m = try Self.manifest() else { return }
        let runs = m.models.filter { $0.model == name }
        #expect(runs.count == 2, "\(name): \(runs.count) recorded runs")
        let workers = WorkerPool(threads: 2, name: "test.pose-selfie")
        defer { workers.shutdown() }
        for r in runs {
            let model = try Model(contentsOf: URL(fileURLWithPath: RepositoryFiles.path(r.file)))
            let feeds = [model.inputs[0].name: try Self.tensor(r.input)]
            #expect(model.outputs.count == r.outputs.count)
            for (how, outs) in [("one thread", try model.run(feeds)), ("two threads", try model.run(feeds, parallelism: Parallelism(workers)))] {
                for ((o, file), spread) in zip(zip(model.outputs, r.outputs), r.litert_spread) {
                    let got = try #require(outs[o.name], "\(name): no output \(o.name)")
                    let what = "\(name) (\(r.case), \(how)) output \(o.name)"
                    if spread * 2 <= 1e-4 {
                        TFLiteBuiltinOpsTests.expectClose(got, try Self.tensor(file), what)
                        continue
                    }
                    let want = try Self.tensor(file).asFloats, g = got.asFloats
                    #expect(got.shape == (try Self.tensor(file)).shape && g.count == want.count, "\(what): shape \(got.shape)")
                    let worst = zip(g, want).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
                    #expect(worst <= 2 * spread, "\(what): worst relative difference \(worst); LiteRT's kernel sets differ by \(spread)")
                }
            }
        }
    }

    /// What load folds and fuses: pose_detection's DENSIFYs and the DEQUANTIZEs after them
    /// become constants; the pose models' spatial PADs go into the VALID convolutions that read
    /// them; every HARD_SWISH of the selfie models goes into its convolution.
    @Test func loadFoldsAndFuses() throws {
        let pose = try Self.graph("pose_detection")
        #expect(pose.declaredOps.isSuperset(of: ["DENSIFY", "DEQUANTIZE", "DEPTH_TO_SPACE", "PAD"]))
        #expect(!pose.ops.contains { [.densify, .dequantize, .pad].contains($0.code) }, "\(Set(pose.ops.map(\.name)))")
        #expect(pose.sparse.isEmpty)
        #expect(pose.ops.filter { $0.spatialPadding != nil }.count == 11, "PADs read by 8 + 3 convolutions")
        let landmark = try Self.graph("pose_landmark_full")
        #expect(landmark.declaredOps.contains("PAD") && !landmark.ops.contains { $0.code == .pad })
        let padded = try TFLiteGraph(
            bytes: [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("single.pad_valid_convolutions_3x3.tflite"))), file: "pad")
        #expect(padded.ops.map(\.name) == ["DEPTHWISE_CONV_2D", "CONV_2D"] && padded.ops[1].residual != nil, "the ADD goes into the CONV_2D")
        #expect(padded.ops.prefix(2).allSatisfy { $0.spatialPadding == [1, 2, 2, 1] })
        for name in ["conv_hard_swish", "depthwise_hard_swish"] {
            let g = try TFLiteGraph(bytes: [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("single.\(name).tflite"))), file: name)
            #expect(g.ops.count == 1 && g.ops[0].hardSwish, "\(name): \(g.ops.map(\.name))")
        }
        for name in ["selfie_segmentation", "selfie_segmentation_landscape"] {
            let g = try Self.graph(name)
            #expect(g.declaredOps.contains("HARD_SWISH") && !g.ops.contains { $0.code == .hardSwish }, "\(name)")
            #expect(g.ops.filter(\.hardSwish).count == 11, "\(name): \(g.ops.filter(\.hardSwish).count) convolutions with HARD_SWISH")
            #expect(g.ops.contains { $0.name == "Convolution2DTransposeBias" })
        }
    }

    /// One-op models with absurd parameters: a `ModelError` naming the operator, at load or
    /// when run, never a crash.
    @Test func brokenParametersAreModelErrors() throws {
        guard let m = try Self.manifest() else { return }
        #expect(m.broken.count == 20)
        for b in m.broken {
            let url = Self.dir.appendingPathComponent(b.model)
            let x = Tensor(shape: b.input_shape, floats: Array(repeating: 0.5, count: b.input_shape.reduce(1, *)))
            let e = #expect(throws: ModelError.self, "\(b.name)") {
                let model = try Model(contentsOf: url)
                _ = try model.run([model.inputs[0].name: x])
            }
            #expect(e?.description.contains(b.error) == true, "\(b.name): \(String(describing: e))")
            let prefixes = e?.description.components(separatedBy: "operator 0 (").count ?? 0
            #expect(prefixes <= 2, "\(b.name): the operator is named once: \(String(describing: e))")
        }
    }

    /// The schema's codes of the three builtins, and the custom operator's options as the raw
    /// `TfLiteTransposeConvParams` bytes.
    @Test func codesAndOptionsFollowTheSchema() throws {
        #expect(TFLiteOperator(rawValue: 5)?.name == "DEPTH_TO_SPACE" && TFLiteOperator(rawValue: 117)?.name == "HARD_SWISH")
        #expect(TFLiteOperator(rawValue: 124)?.name == "DENSIFY")
        let op = try TFLiteCustomOperator(
            code: "Convolution2DTransposeBias", version: 1, options: [2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0], context: "t")
        #expect(op == .transposeConvBias(.init(same: false, strideWidth: 3, strideHeight: 1)))
        #expect(throws: ModelError.self) {
            try TFLiteCustomOperator(code: "Convolution2DTransposeBias", version: 2, options: [UInt8](), context: "t")
        }
    }
}
