import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// TRANSPOSE, SUB, DIV, NEG, SUM, SQRT, RSQRT, SQUARED_DIFFERENCE, GATHER, MAXIMUM, MINIMUM,
/// REDUCE_MAX, REDUCE_MIN and UNPACK, and the MediaPipe Tasks models that use them
/// (face_blendshapes, gesture_embedder, the canned and custom gesture classifiers) and the
/// Tasks bundles' detectors and landmarkers, against LiteRT on the same inputs
/// (scripts/fixtures/make_litert_tasks_op_fixtures.py, run by scripts/setup.sh test).
///
/// The metric, for each output: max over its values of |FrameFlow − LiteRT| / max(|LiteRT|,
/// floor), floor = 1e-3 (the manifest's `floor`): relative where LiteRT's value is larger
/// than the floor, absolute (× 1000) below it; NaN must meet NaN and ±∞ the same ±∞. Every
/// output of the one-op models and of the four models that need the new operators must be
/// within 1e-4 by it; the detectors and landmarkers are compared with floor 1, as
/// `modelMatchesLiteRT` says.
@Suite struct TFLiteTasksOpsTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("litert_tasks"))
    static let tolerance: Float = 1e-4

    struct Manifest: Decodable {
        struct Single: Decodable { var name, op, model: String; var inputs, outputs: [String] }
        struct Named: Decodable { var name, file: String }
        struct ModelRun: Decodable { var model, file, `case`: String; var floor: Float; var inputs, outputs: [Named]; var spread: [Float] }
        struct Input: Decodable { var shape: [Int]; var type: String }
        struct Broken: Decodable { var name, model, error, litert: String; var inputs: [Input] }
        var litert: String
        var floor: Float
        var single: [Single]
        var models: [ModelRun]
        var broken: [Broken]
    }

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

    /// The suite's metric (above) of `got` against `want`; infinity when their shapes, kinds
    /// (float or integer) or counts differ, or a NaN or infinity is not matched.
    static func relativeError(_ got: Tensor, _ want: Tensor, floor: Float) -> Float {
        guard got.shape == want.shape, got.isFloat == want.isFloat else { return .infinity }
        let g = got.asFloats, w = want.asFloats
        guard g.count == w.count else { return .infinity }
        var worst: Float = 0
        for (a, b) in zip(g, w) {
            if a.isNaN || b.isNaN || a.isInfinite || b.isInfinite {
                if !(a.isNaN && b.isNaN) && a != b { return .infinity }
                continue
            }
            worst = max(worst, abs(a - b) / max(abs(b), floor))
        }
        return worst
    }

    static func expectClose(_ got: Tensor, _ want: Tensor, floor: Float, _ what: String) {
        let e = relativeError(got, want, floor: floor)
        #expect(e <= tolerance, "\(what): error \(e) (shape \(got.shape), LiteRT \(want.shape))")
    }

    /// Each one-op model, loaded and run by `Model`, against LiteRT's outputs (all of them:
    /// UNPACK has several).
    @Test func singleOpModelsMatchLiteRT() throws {
        guard let m = try Self.manifest() else { return }
        var checked: [String: Int] = [:]
        for s in m.single {
            let model = try Model(contentsOf: Self.dir.appendingPathComponent(s.model))
            #expect(model.inputs.count == s.inputs.count && model.outputs.count == s.outputs.count, "\(s.name)")
            var feeds: [String: Tensor] = [:]
            for (info, file) in zip(model.inputs, s.inputs) { feeds[info.name] = try Self.tensor(file) }
            let outs = try model.run(feeds)
            for (k, (info, file)) in zip(model.outputs, s.outputs).enumerated() {
                let got = try #require(outs[info.name], "\(s.name): no output \(k)")
                Self.expectClose(got, try Self.tensor(file), floor: m.floor, "\(s.name) output \(k)")
            }
            checked[s.op, default: 0] += 1
        }
        let ops = [
            "TRANSPOSE", "SUB", "DIV", "NEG", "SUM", "SQRT", "RSQRT", "SQUARED_DIFFERENCE", "GATHER", "MAXIMUM", "MINIMUM", "REDUCE_MAX",
            "REDUCE_MIN", "UNPACK", "MEAN",
        ]
        #expect(ops.allSatisfy { checked[$0, default: 0] >= 1 }, "checked \(checked)")
        #expect(m.single.count == 77, "\(m.single.count) one-op models")
    }

    /// The models that need the new operators: every output within 1e-4.
    static let taskModels = ["face_blendshapes", "gesture_embedder", "canned_gesture_classifier", "custom_gesture_classifier"]

    /// The Tasks models whole, through `Model`, on every recorded input (seeded random ones;
    /// for the four that need the new operators MediaPipe's own landmarks of real photos, for
    /// the detectors and landmarkers a photo), against LiteRT. The four are held to 1e-4 (floor
    /// 1e-3). The detectors and landmarkers use only operators FrameFlow ran before; their
    /// outputs (pixel offsets, logits) are compared with floor 1, as TFLitePoseSelfieOpsTests
    /// compares MediaPipe's older models, and move further with rounding alone: LiteRT's own
    /// reference kernels or XNNPACK differ from its builtin kernels by up to the run's `spread`
    /// (0.014 on pose_landmarks_detector's segmentation logits, 5.3e-4 on pose_detector's boxes,
    /// as the fixture script measured them), so each output may differ by up to twice its
    /// spread where that is larger than 1e-4.
    @Test(
        arguments: taskModels + [
            "face_detector", "face_landmarks_detector", "hand_detector", "hand_landmarks_detector", "pose_detector", "pose_landmarks_detector",
        ])
    func modelMatchesLiteRT(name: String) throws {
        guard let m = try Self.manifest() else { return }
        let runs = m.models.filter { $0.model == name }
        #expect(!runs.isEmpty, "\(name): no recorded runs")
        guard let first = runs.first else { return }
        let model = try Model(contentsOf: Self.dir.appendingPathComponent(first.file))
        for r in runs {
            var feeds: [String: Tensor] = [:]
            for i in r.inputs { feeds[i.name] = try Self.tensor(i.file) }
            let outs = try model.run(feeds)
            #expect(outs.count == r.outputs.count, "\(name) (\(r.case)): \(outs.count) outputs")
            #expect(r.spread.count == r.outputs.count, "\(name) (\(r.case)): a spread per output")
            for (o, spread) in zip(r.outputs, r.spread) {
                let got = try #require(outs[o.name], "\(name) (\(r.case)): no output \(o.name)")
                let e = Self.relativeError(got, try Self.tensor(o.file), floor: r.floor)
                let limit = Self.taskModels.contains(name) ? Self.tolerance : max(Self.tolerance, 2 * spread)
                #expect(e <= limit, "\(name) (\(r.case)) \(o.name): error \(e), limit \(limit) (LiteRT's spread \(spread))")
            }
        }
    }

    /// One-op models that do not fit (perms, axes, indices, shapes, input counts and types):
    /// a `ModelError` naming the operator, never a crash — also the repeated TRANSPOSE perm
    /// LiteRT accepts.
    @Test func brokenModelsAreRefused() throws {
        guard let m = try Self.manifest() else { return }
        #expect(m.broken.count == 33)
        for b in m.broken {
            let url = Self.dir.appendingPathComponent(b.model)
            let e = #expect(throws: ModelError.self, "\(b.name)") {
                let model = try Model(contentsOf: url)
                var feeds: [String: Tensor] = [:]
                for (info, i) in zip(model.inputs, b.inputs) {
                    let n = i.shape.reduce(1, *)
                    feeds[info.name] =
                        i.type == "float32"
                        ? Tensor(shape: i.shape, floats: Array(repeating: 0.5, count: n))
                        : Tensor(shape: i.shape, ints: Array(repeating: 1, count: n), type: i.type == "int32" ? .int32 : .int64)
                }
                _ = try model.run(feeds)
            }
            #expect(e?.description.contains(b.error) == true, "\(b.name): \(String(describing: e))")
        }
    }

    /// GATHER with its indices fed at run time: an index past the axis, or negative (LiteRT
    /// refuses both), is a `ModelError` naming GATHER; in range, LiteRT's answer.
    @Test func gatherChecksIndicesFedAtRunTime() throws {
        guard let m = try Self.manifest() else { return }
        let s = try #require(m.single.first { $0.name == "gather_indices_input" })
        let model = try Model(contentsOf: Self.dir.appendingPathComponent(s.model))
        let params = try Self.tensor(s.inputs[0])
        for bad: Int64 in [8, -1, 1 << 40] {
            let e = #expect(throws: ModelError.self) {
                _ = try model.run([model.inputs[0].name: params, model.inputs[1].name: Tensor(shape: [5], ints: [0, 1, bad, 2, 3], type: .int32)])
            }
            #expect(e?.description.contains("GATHER") == true, "\(bad): \(String(describing: e))")
        }
    }

    /// The loader names the new builtins by the schema's names; UNPACK's several outputs
    /// each reach the ops that read them (gesture_embedder reads three of its outputs).
    @Test func modelsDeclareTheNewOperators() throws {
        let blendshapes = try TFLiteGraph(
            bytes: [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("models/face_blendshapes.tflite"))), file: "face_blendshapes")
        #expect(blendshapes.declaredOps.isSuperset(of: ["SUB", "SUM", "SQRT", "DIV", "TRANSPOSE", "NEG", "SQUARED_DIFFERENCE", "RSQRT"]))
        let embedder = try TFLiteGraph(
            bytes: [UInt8](try Data(contentsOf: Self.dir.appendingPathComponent("models/gesture_embedder.tflite"))), file: "gesture_embedder")
        #expect(embedder.declaredOps.isSuperset(of: ["SUB", "GATHER", "UNPACK", "REDUCE_MAX", "REDUCE_MIN", "MAXIMUM", "DIV"]))
        let unpacks = embedder.ops.filter { $0.code == .unpack }
        #expect(unpacks.count == 2 && unpacks.allSatisfy { $0.outputs.count == 3 })
    }
}
