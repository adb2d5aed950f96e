import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Foundation

/// `frameflow-bench hog`: OpenCV's HOG people detector against cv2's detectMultiScale.
struct HOGBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "hog", abstract: "HOG people detection against OpenCV")
    }

    @Flag(help: "fewer frames and passes, one round (a quick look, not a measurement)") var quick = false
    @Option(help: "alternating rounds (at least 1; the median and spread are over them)") var rounds = 3
    @Option(name: "passes", valueName: "N", help: "passes over the frames per round and side, median kept (default 3)") var passCount = 3

    @MainActor func measure() throws {
        guard rounds >= 1, rounds <= 100 else { throw ValidationError("--rounds: \(rounds) is not in 1…100") }
        guard passCount >= 1, passCount <= 100 else { throw ValidationError("--passes: \(passCount) is not in 1…100") }
        let dir = repoRoot.appendingPathComponent(".build/fixtures/hog")
        let model = dir.appendingPathComponent("hog_people_default.xml").path
        guard let hog = try? HOGDescriptor(contentsOfFile: model) else {
            print("\n(e') HOG: \(model) missing (scripts/setup.sh test writes it and the frames)")
            return
        }
        let names = (0..<(quick ? 3 : 10)).map { String(format: "vtest_%03d.ppm", $0 * 30) }
        let paths = names.map { dir.appendingPathComponent($0).path }
        let frames = try paths.map { try TestImages.readPNM($0) }
        let rounds = quick ? 1 : self.rounds, passes = quick ? 1 : passCount
        let pool = callerHelpers
        let all = pool.threadsWithCaller
        print(
            "\n(e') HOG people detection (OpenCV's default people detector and detectMultiScale defaults) on \(frames.count) frames of vtest.avi "
                + "768×576, BGR/RGB: ms per frame, median of \(passes) passes; \(rounds) alternating round\(rounds == 1 ? "" : "s") "
                + "(ratio: median of the rounds' ratios, spread min–max; ≤ 1.0: FrameFlow as fast or faster)")
        func pass(_ threads: Int) throws -> Double {
            try medianMilliseconds(iterations: passes) {
                for f in frames {
                    if threads == 1 {
                        _ = try hog.detectMultiScale(f, parameters: .init())
                    } else {
                        _ = try hog.detectMultiScale(f, parameters: .init()) { n, body in pool.parallelFor(n, grain: 1, body) }
                    }
                }
            } / Double(frames.count)
        }
        var ours: [Int: [Double]] = [:], theirs: [Int: [Double]] = [:]
        var reference: [String: Any] = [:]
        for _ in 0..<rounds {
            for t in Set([1, all]) { ours[t, default: []].append(try pass(t)) }
            guard
                let out = runTool(
                    "python3", [repoRoot.appendingPathComponent("scripts/bench/opencv_hog.py").path, model, "\(all)", "\(passes)"] + paths),
                let json = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
            else { continue }
            reference = json
            for t in Set([1, all]) { if let ms = json["\(t)"] as? Double { theirs[t, default: []].append(ms) } }
        }
        // The boxes of the last reference run against FrameFlow's on the same frames.
        if let boxes = reference["boxes"] as? [String: [[Int]]] {
            var equal = 0
            for (p, f) in zip(paths, frames) {
                let got = try hog.detectMultiScale(f, parameters: .init()).map { [$0.x, $0.y, $0.width, $0.height] }.sorted {
                    $0.lexicographicallyPrecedes($1)
                }
                if got == boxes[p] { equal += 1 }
            }
            print("  boxes equal to cv2's on \(equal) of \(frames.count) frames")
        }
        func median(_ v: [Double]) -> Double {
            let s = v.sorted(); return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        for t in [1, all] where t == 1 || all > 1 {
            let o = ours[t] ?? [], r = theirs[t] ?? []
            let label = "768×576, \(t) thread\(t == 1 ? "" : "s")".padding(toLength: 52, withPad: " ", startingAt: 0)
            guard r.count == o.count, !o.isEmpty else {
                print(label + String(format: "%10.3f ms  reference n/a (python3 with cv2 4.14)", median(o)))
                continue
            }
            let ratios = zip(o, r).map { $0 / $1 }
            print(
                label
                    + String(
                        format: "%10.3f ms  %10.3f ms  ratio %.2f (%.2f–%.2f, %d rounds)  (vs cv2 detectMultiScale, setNumThreads(%d))", median(o),
                        median(r), median(ratios), ratios.min()!, ratios.max()!, ratios.count, t))
        }
    }
}
