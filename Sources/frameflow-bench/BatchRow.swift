import Foundation
import FrameFlow
import FrameFlowML

/// `frameflow-bench fleet`'s batched-inference row (issue 46): BlazeFace (short range, 128×128)
/// run with a leading batch of N images (`Model.batched`, `runBatch`) on one thread, its time
/// per frame at N = 1, 2, 4, 8, against LiteRT's with its input resized to [N, 128, 128, 3]
/// (scripts/bench/reference_batch.py). What batching a fleet's cameras into one model run can
/// save per frame: a fleet gains at most 1 / (1 − f + f / s) cameras when the model is a share
/// f of a camera's time and a batch makes it s× cheaper per frame.
enum BatchRow {
    static func measure(repoRoot: URL, quick: Bool, rounds: Int) {
        let dir = repoRoot.appendingPathComponent(".build/fixtures/models").path
        let modelPath = "\(dir)/face_detection_short_range.tflite", inputPath = "\(dir)/face_detection_short_range.input_0.pb"
        let sizes = [1, 2, 4, 8]
        let iterations = quick ? 5 : 20
        print("\n(iii) Batched BlazeFace, one thread: ms per frame at batch N (medians of \(rounds) alternating rounds [spread])")
        guard let model = try? Model(contentsOf: URL(fileURLWithPath: modelPath)), let input = try? loadTensorProto(contentsOfFile: inputPath).tensor
        else {
            print("  \(modelPath) or its input missing (scripts/setup.sh test)")
            return
        }
        let name = model.inputs[0].name
        var ours: [Int: [Double]] = [:], refs: [Int: [Double]] = [:]
        do {
            let batches = try sizes.map { try model.batched($0) }
            for _ in 0..<max(1, rounds) {
                if let out = runTool(
                    "python3",
                    [repoRoot.appendingPathComponent("scripts/bench/reference_batch.py").path, modelPath, inputPath, "\(iterations)"]
                        + sizes.map(String.init)),
                    let obj = try? JSONSerialization.jsonObject(with: Data((out.split(separator: "\n").last.map(String.init) ?? "").utf8))
                        as? [String: Double]
                {
                    for n in sizes { if let v = obj["\(n)"] { refs[n, default: []].append(v) } }
                }
                for (n, batch) in zip(sizes, batches) {
                    let feeds = [[String: Tensor]](repeating: [name: input], count: n)
                    let ms = try medianMilliseconds(iterations: iterations) { _ = try batch.runBatch(feeds) }
                    ours[n, default: []].append(ms / Double(n))
                }
            }
        } catch {
            print("  batched run: \(error)")
            return
        }
        for n in sizes {
            spreadRow(
                "  batch \(n), per frame", ours[n] ?? [], refs[n].flatMap { $0.count == ours[n]?.count ? $0 : nil },
                refName: "LiteRT batch \(n), 1 thread")
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        if let one = ours[1], let eight = ours[8] {
            let ratios = zip(eight, one).map { $0 / $1 }
            var line = String(
                format: "  batched BlazeFace per frame, N=8 vs N=1: %.2f [%.2f–%.2f]", median(ratios), ratios.min() ?? 0, ratios.max() ?? 0)
            if let r1 = refs[1], let r8 = refs[8], r1.count == r8.count, !r1.isEmpty {
                let rr = zip(r8, r1).map { $0 / $1 }
                line += String(format: "; LiteRT %.2f [%.2f–%.2f]", median(rr), rr.min() ?? 0, rr.max() ?? 0)
            }
            print(line + " (below 1: a batch is cheaper per frame)")
        }
    }
}
