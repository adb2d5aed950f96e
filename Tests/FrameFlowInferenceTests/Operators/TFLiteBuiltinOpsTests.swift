import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// PRELU, MEAN, RESIZE_BILINEAR and STRIDED_SLICE, and MediaPipe's face landmark, hand
/// landmark and palm detection models that use them, against LiteRT on the same inputs
/// (scripts/fixtures/make_litert_op_fixtures.py, run by scripts/setup.sh test).
@Suite struct TFLiteBuiltinOpsTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("litert_ops"))

    struct Manifest: Decodable {
        struct ModelRun: Decodable { var model, file, `case`, input: String; var outputs: [String]; var complete: Bool }
        struct OpRun: Decodable {
            var model, `case`, op: String; var index: Int; var options: [String: Int]; var inputs: [String?]; var outputs: [String]
        }
        struct Single: Decodable { var name, model, input, output: String }
        struct Broken: Decodable { var name, model: String; var input_shape: [Int] }
        var models: [ModelRun]
        var ops: [OpRun]
        var single: [Single]
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

    /// Expects `got` to have `want`'s shape and each value within 1e-4 · max(1, |want|), or
    /// 2e-4 at the baseline kernel level: without FMA every product is rounded before its add
    /// (palm_detection_full's worst output differs by 1.1e-4 there, under 1e-4 with FMA).
    static func expectClose(_ got: Tensor, _ want: Tensor, _ what: String) {
        let tolerance: Float = KernelLevel.active == .baseline ? 2e-4 : 1e-4
        #expect(got.shape == want.shape, "\(what): shape \(got.shape), LiteRT \(want.shape)")
        let g = got.asFloats, w = want.asFloats
        guard g.count == w.count else {
            Issue.record("\(what): \(g.count) values, LiteRT \(w.count)")
            return
        }
        var worst: Float = 0, at = 0
        for i in w.indices {
            let excess = abs(g[i] - w[i]) / max(1, abs(w[i]))
            if !(excess <= worst) { (worst, at) = (excess.isNaN ? .infinity : excess, i) }
        }
        #expect(worst <= tolerance, "\(what): worst relative difference \(worst) at \(at) (\(g[at]) against \(w[at]))")
    }

    /// Each recorded instance of the four ops in MediaPipe's models, on LiteRT's inputs
    /// (with the file's builtin options), against LiteRT's outputs.
    @Test func opsInMediaPipeModelsMatchLiteRT() throws {
        guard let m = try Self.manifest() else { return }
        var checked: [String: Int] = [:]
        for r in m.ops where ["PRELU", "MEAN", "RESIZE_BILINEAR", "STRIDED_SLICE"].contains(r.op) {
            let what = "\(r.model) (\(r.case)) op \(r.index) \(r.op)"
            let ins = try r.inputs.map { try $0.map(Self.tensor) }
            func input(_ i: Int) throws -> Tensor { try #require(i < ins.count ? ins[i] : nil, "\(what): input \(i)") }
            let o = r.options
            let got: Tensor
            switch r.op {
            case "PRELU": got = try NHWC.prelu(try input(0), alpha: try input(1))
            case "MEAN": got = try NHWC.mean(try input(0), axes: try input(1).asInts, keepDims: o["keepDims", default: 0] != 0)
            case "RESIZE_BILINEAR":
                let size = try input(1).asInts
                got = try NHWC.resizeBilinear(
                    try input(0), height: Int(size[0]), width: Int(size[1]), alignCorners: o["alignCorners", default: 0] != 0,
                    halfPixelCenters: o["halfPixelCenters", default: 0] != 0)
            default:
                let masks = NHWC.SliceMasks(
                    begin: o["beginMask", default: 0], end: o["endMask", default: 0], ellipsis: o["ellipsisMask", default: 0],
                    newAxis: o["newAxisMask", default: 0], shrinkAxis: o["shrinkAxisMask", default: 0], offset: o["offset", default: 0] != 0)
                got = try NHWC.stridedSlice(
                    try input(0), begin: try input(1).asInts, end: try input(2).asInts, strides: try input(3).asInts, masks: masks)
            }
            Self.expectClose(got, try Self.tensor(r.outputs[0]), what)
            checked[r.op, default: 0] += 1
        }
        #expect(Set(checked.keys) == ["PRELU", "MEAN", "RESIZE_BILINEAR", "STRIDED_SLICE"], "checked \(checked)")
    }

    /// One-op models built by the fixture script (the options and broadcasts the MediaPipe
    /// models do not use: masks, negative strides, ellipsis, new axes, offset, align_corners,
    /// other axes and alphas), loaded and run by `Model`, against LiteRT's output.
    @Test func singleOpModelsMatchLiteRT() throws {
        guard let m = try Self.manifest() else { return }
        #expect(m.single.count >= 19, "LiteRT ran \(m.single.count) one-op models")
        for s in m.single {
            let model = try Model(contentsOf: Self.dir.appendingPathComponent(s.model))
            let outs = try model.run([model.inputs[0].name: try Self.tensor(s.input)])
            let got = try #require(outs[model.outputs[0].name], "\(s.name): no output")
            Self.expectClose(got, try Self.tensor(s.output), s.name)
        }
    }

    /// MediaPipe's models end to end through `Model`, on a random input and on a photo crop,
    /// against LiteRT's outputs.
    @Test(arguments: ["face_landmark", "hand_landmark_full", "hand_landmark_lite", "palm_detection_full", "palm_detection_lite"])
    func modelMatchesLiteRT(name: String) throws {
        guard let m = try Self.manifest() else { return }
        let runs = m.models.filter { $0.model == name && $0.complete }
        #expect(runs.count == 2, "\(name): \(runs.count) recorded runs")
        for r in runs {
            let model = try Model(contentsOf: URL(fileURLWithPath: RepositoryFiles.path(r.file)))
            let outs = try model.run([model.inputs[0].name: try Self.tensor(r.input)])
            #expect(model.outputs.count == r.outputs.count)
            for (o, file) in zip(model.outputs, r.outputs) {
                let got = try #require(outs[o.name], "\(name): no output \(o.name)")
                Self.expectClose(got, try Self.tensor(file), "\(name) (\(r.case)) output \(o.name)")
            }
        }
    }

    /// One-op models with absurd parameters: a `ModelError` naming the operator, at load or
    /// when run, never a crash.
    @Test func brokenParametersAreModelErrors() throws {
        guard let m = try Self.manifest() else { return }
        #expect(m.broken.count >= 16)
        for b in m.broken {
            let url = Self.dir.appendingPathComponent(b.model)
            let x = Tensor(shape: b.input_shape, floats: Array(repeating: 0.5, count: b.input_shape.reduce(1, *)))
            let e = #expect(throws: ModelError.self, "\(b.name)") {
                let model = try Model(contentsOf: url)
                _ = try model.run([model.inputs[0].name: x])
            }
            let op = ["slice": "STRIDED_SLICE", "mean": "MEAN", "resize": "RESIZE_BILINEAR", "prelu": "PRELU"][String(b.name.prefix { $0 != "_" })]!
            #expect(e?.description.contains(op) == true, "\(b.name): \(String(describing: e))")
        }
    }

    /// MEAN over trailing axes (the face blendshapes model's layer norms) takes a row-wise
    /// path: the same bits as the general reduction, and within 1e-6 of the mean in Double,
    /// for row counts below, at and past a multiple of eight, and keep_dims either way.
    @Test func meanOverTrailingAxesKeepsTheGeneralPathsBits() throws {
        var rng = SplitMix64(seed: 46)
        let cases: [([Int], [Int64])] = [
            ([1, 1, 97, 64], [3]), ([1, 1, 97, 64], [-1]), ([2, 3, 5], [1, 2]), ([7, 1], [1]), ([8, 3], [1]), ([3], [0]),
        ]
        for (shape, axes) in cases {
            let count = shape.reduce(1, *)
            let x = Tensor(shape: shape, floats: (0..<count).map { _ in Float(Double(rng.next() % 20_001) / 1000 - 10) })
            let r = shape.count
            let reduced = Set(axes.map { Int($0 < 0 ? $0 + Int64(r) : $0) })
            let n = reduced.reduce(1) { $0 * shape[$1] }
            for keep in [false, true] {
                let got = try NHWC.mean(x, axes: axes, keepDims: keep)
                let general = Ops.reduce(x, axes: reduced.sorted(), keep: keep, max: false)
                #expect(got.shape == general.shape, "\(shape) \(axes): shape \(got.shape), general \(general.shape)")
                #expect(got.floats.map(\.bitPattern) == general.floats.map(\.bitPattern), "\(shape) \(axes) keep \(keep)")
                for row in 0..<(count / n) {
                    let want = x.floats[(row * n)..<((row + 1) * n)].reduce(0.0) { $0 + Double($1) } / Double(n)
                    #expect(abs(Double(got.floats[row]) - want) <= 1e-6 * max(1, abs(want)), "\(shape) \(axes) row \(row)")
                }
            }
        }
    }

    /// The schema's codes of the four builtins.
    @Test func operatorCodesFollowTheSchema() {
        #expect(TFLiteOperator(rawValue: 54)?.name == "PRELU" && TFLiteOperator(rawValue: 40)?.name == "MEAN")
        #expect(TFLiteOperator(rawValue: 23)?.name == "RESIZE_BILINEAR" && TFLiteOperator(rawValue: 45)?.name == "STRIDED_SLICE")
    }
}
