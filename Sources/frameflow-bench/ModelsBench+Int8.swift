import FrameFlow
import FrameFlowML
import Foundation

/// `frameflow-bench models`' int8 rows: the models onnxruntime's `quantize_static` made
/// (scripts/fixtures/make_int8_fixtures.py) against onnxruntime's int8 run and FrameFlow's own
/// float run of the same model on the same input, and YOLOv8n int8 against float on the
/// committed photos.
extension ModelsBench {
    /// Int8 model, its float original.
    static let int8Models = [("yolov8n_int8", "yolov8n"), ("pnet_int8", "pnet"), ("ch_PP-OCRv4_det_infer_int8", "ch_PP-OCRv4_det_infer")]

    @MainActor func measureInt8(dir: String, iterations: Int, only: Set<String>?, skipReference: Bool) throws {
        let chosen = Self.int8Models.filter { only?.contains($0.0) ?? true }
        guard !chosen.isEmpty else { return }
        // Three alternating rounds (onnxruntime, then FrameFlow int8 and float); each row is the
        // median of the rounds' medians, with their spread (min–max).
        let rounds = quick ? 1 : 3
        print("\n(f8) Int8 models (QDQ, onnxruntime's quantize_static), median of \(rounds) alternating rounds of \(iterations) runs, spread min–max")
        var loaded: [String: (int8: Model, float: Model, input: Tensor)] = [:]
        for (q, f) in chosen {
            guard let m = try? Model(contentsOf: URL(fileURLWithPath: "\(dir)/\(q).onnx")),
                let fm = try? Model(contentsOf: URL(fileURLWithPath: "\(dir)/\(f).onnx")),
                let x = try? loadTensorProto(contentsOfFile: "\(dir)/\(q).input_0.pb").tensor
            else {
                print("  \(q): model or input missing (scripts/setup.sh bench)")
                continue
            }
            loaded[q] = (m, fm, x)
        }
        let workers = Parallelism(callerHelpers)
        var times: [String: [String: [Double]]] = [:]
        for _ in 0..<rounds {
            if !skipReference,
                let out = runTool(
                    "python3",
                    [
                        repoRoot.appendingPathComponent("scripts/bench/reference_models.py").path, dir, "\(iterations)",
                        chosen.map(\.0).joined(separator: ","),
                    ]),
                let obj = try? JSONSerialization.jsonObject(with: Data(out.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8))
                    as? [String: [String: Double]]
            {
                for (name, v) in obj { for (k, ms) in v { times[name, default: [:]][k, default: []].append(ms) } }
            }
            for (q, _) in chosen {
                guard let (m, fm, x) = loaded[q] else { continue }
                let feeds = [m.inputs[0].name: x], floatFeeds = [fm.inputs[0].name: x]
                var t = times[q, default: [:]]
                t["ff1", default: []].append(try medianMilliseconds(iterations: iterations) { _ = try m.run(feeds) })
                t["ff2", default: []].append(try medianMilliseconds(iterations: iterations) { _ = try m.run(feeds, parallelism: workers) })
                t["float1", default: []].append(try medianMilliseconds(iterations: iterations) { _ = try fm.run(floatFeeds) })
                t["float2", default: []].append(try medianMilliseconds(iterations: iterations) { _ = try fm.run(floatFeeds, parallelism: workers) })
                times[q] = t
            }
        }
        func median(_ v: [Double]?) -> Double? {
            guard let v, !v.isEmpty else { return nil }
            return v.sorted()[v.count / 2]
        }
        func spread(_ v: [Double]?) -> String { v.map { String(format: "[%.2f–%.2f]", $0.min() ?? 0, $0.max() ?? 0) } ?? "" }
        for (q, _) in chosen {
            guard let (_, _, x) = loaded[q], let t = times[q], let ff1 = median(t["ff1"]), let ff2 = median(t["ff2"]) else { continue }
            let shape = x.shape.map(String.init).joined(separator: "×")
            row(
                "\(q) \(shape), 1 thread", ff1, median(t["ort1"]), unit: "ms",
                refName: "onnxruntime int8, 1 thread \(spread(t["ff1"])) vs \(spread(t["ort1"]))")
            row(
                "\(q) \(shape), \(workers.threads) threads", ff2, median(t["ort2"]), unit: "ms",
                refName: "onnxruntime int8, 2 threads \(spread(t["ff2"])) vs \(spread(t["ort2"]))")
            row("\(q) \(shape), 1 thread", ff1, median(t["float1"]), unit: "ms", refName: "FrameFlow float, same input \(spread(t["float1"]))")
            row(
                "\(q) \(shape), \(workers.threads) threads", ff2, median(t["float2"]), unit: "ms",
                refName: "FrameFlow float, same input \(spread(t["float2"]))")
        }
        if let (m, fm, _) = loaded["yolov8n_int8"] { try yoloAccuracy(int8: m, float: fm, dir: dir) }
    }

    /// YOLOv8n int8 against float on the committed photos: for every anchor where the float
    /// model's best class scores ≥ 0.25, the IoU of the two models' boxes there and whether
    /// their best classes agree.
    func yoloAccuracy(int8: Model, float: Model, dir: String) throws {
        var ious: [Float] = [], agree = 0, photos = 0
        while let x = try? loadTensorProto(contentsOfFile: "\(dir)/yolov8n_int8.photo_\(photos).pb").tensor {
            photos += 1
            guard let a = try int8.run([int8.inputs[0].name: x]).values.first, let b = try float.run([float.inputs[0].name: x]).values.first,
                a.shape == b.shape, a.shape.count == 3, a.shape[1] == 84
            else { continue }
            let n = a.shape[2]
            func box(_ t: Tensor, _ i: Int) -> (Float, Float, Float, Float) {
                let (cx, cy, w, h) = (t.floats[i], t.floats[n + i], t.floats[2 * n + i], t.floats[3 * n + i])
                return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            }
            func best(_ t: Tensor, _ i: Int) -> (Int, Float) {
                var c = 0, s = -Float.infinity
                for k in 0..<80 where t.floats[(4 + k) * n + i] > s { (c, s) = (k, t.floats[(4 + k) * n + i]) }
                return (c, s)
            }
            for i in 0..<n {
                let (cf, sf) = best(b, i)
                guard sf >= 0.25 else { continue }
                let (p, q) = (box(a, i), box(b, i))
                let iw = max(0, min(p.2, q.2) - max(p.0, q.0)), ih = max(0, min(p.3, q.3) - max(p.1, q.1))
                let inter = iw * ih, union = (p.2 - p.0) * (p.3 - p.1) + (q.2 - q.0) * (q.3 - q.1) - inter
                ious.append(union > 0 ? inter / union : 0)
                if best(a, i).0 == cf { agree += 1 }
            }
        }
        guard !ious.isEmpty else {
            print("  yolov8n int8 accuracy: no photos (scripts/fixtures/make_int8_fixtures.py)")
            return
        }
        let sorted = ious.sorted()
        print(
            String(
                format:
                    "  yolov8n int8 vs float, %d photos, %d anchors with a float score ≥ 0.25: box IoU mean %.3f, median %.3f, min %.3f; class agreement %.1f %%",
                photos, ious.count, ious.reduce(0, +) / Float(ious.count), sorted[sorted.count / 2], sorted[0], 100 * Float(agree) / Float(ious.count)
            ))
    }
}
