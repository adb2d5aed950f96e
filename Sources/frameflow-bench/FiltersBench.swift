import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Foundation

/// `frameflow-bench filters`: the filter library on 1920×1080 against OpenCV, one thread and all threads.
struct FiltersBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "filters", abstract: "the filter library on 1920×1080 against OpenCV")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Option(
        name: "iterations", valueName: "N", help: "timed iterations per row (default: 20, 5 with --quick)", expecting: "needs a positive number",
        valid: { $0 > 0 })
    var iterationCount: Int?
    @Flag(help: "FrameFlow alone, no reference run (quicker when comparing two builds)") var noReference = false
    @Option(
        name: "filters", valueName: "A,B",
        help: "only these rows: roundtrip, nv12, bilinear, bilinear720, area, blur, unsharp, color, lut")
    var filterList: String?

    @MainActor func measure() throws {
        let (w, h) = (1920, 1080)
        let rgba = try TestImages.random(width: w, height: h, format: .rgba8, seed: 11)
        // Noise: neighbouring pixels land in unrelated LUT lattice cells (the LUT's worst case);
        // the other kernels cost the same whatever the content.
        let nv12 = try ColorConvertCalculator.convert(rgba, to: .nv12(.video))
        let iterations = iterationCount ?? (quick ? 5 : 20)
        let dir = FileManager.default.temporaryDirectory.path
        let rawRGBA = dir + "/ffb-\(getpid()).rgba", rawNV12 = dir + "/ffb-\(getpid()).nv12"
        try Data(rgba.packedBytes()).write(to: URL(fileURLWithPath: rawRGBA))
        try Data(nv12.packedBytes()).write(to: URL(fileURLWithPath: rawNV12))
        defer {
            try? FileManager.default.removeItem(atPath: rawRGBA)
            try? FileManager.default.removeItem(atPath: rawNV12)
        }
        let script = repoRoot.appendingPathComponent("scripts/bench/opencv_filters.py").path
        var cv: [String: [String: Double]] = [:]
        let onlyFilters = filterList.map { Set($0.split(separator: ",").map(String.init)) }
        func wanted(_ key: String) -> Bool { onlyFilters?.contains(key) ?? true }
        /// Median ms of one frame through a one-node graph with `threads` workers.
        func inGraph<C: Calculator>(_ type: C.Type, _ options: C.Options, input: ImageFrame, threads: Int) throws -> Double {
            let graph = try Graph {
                Settings(numThreads: threads)
                Input("in")
                Output("out")
                Node(type, name: "node", in: ["IMAGE:in"], out: ["IMAGE:out"], options: options)
            }
            try graph.start()
            var t = Int64(0)
            let ms = try medianMilliseconds(iterations: iterations) {
                try graph.send(input, to: "in", at: Timestamp(t))
                t += 1
                try graph.waitUntilIdle()
            }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return ms
        }
        var resize = ImageTransformationCalculator.Options()
        resize.outputWidth = 640
        resize.outputHeight = 360
        var resize720 = resize
        resize720.outputWidth = 1280
        resize720.outputHeight = 720
        var area = resize
        area.interpolation = .area
        let lutFile = repoRoot.appendingPathComponent("Examples/Instafilter/warm_film_17.cube").path
        // Two rounds — OpenCV, FrameFlow, OpenCV, FrameFlow — keeping each side's best median,
        // so that a slow stretch of this shared machine does not fall on one side only.
        let rounds = quick ? 1 : 2
        print(
            "\n(d) Filters on 1920×1080 (median of \(iterations), best of \(rounds) alternating rounds each side), one worker and all workers, against OpenCV"
        )
        /// Rows in print order: label, the reference's (key, thread) in OpenCV's output (nil: the
        /// memcpy row), the reference's name.
        var rows: [(label: String, ref: (String, String)?, refName: String)] = []
        var ours: [String: Double] = [:], copies: [String: Double] = [:]
        func keep(_ label: String, _ ms: Double, ref: (String, String)?, refName: String) {
            if ours[label] == nil { rows.append((label, ref, refName)) }
            ours[label] = min(ours[label] ?? .infinity, ms)
        }
        for _ in 0..<rounds {
            if !noReference, let out = runTool("python3", [script, rawRGBA, rawNV12, "\(w)", "\(h)", "\(iterations)"]),
                let obj = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String: Double]]
            {
                cv.merge(obj) { a, b in a.merging(b) { min($0, $1) } }
            }
            for threads in [1, ProcessInfo.processInfo.activeProcessorCount] {
                let key = threads == 1 ? "1" : "2"
                let label = threads == 1 ? "1 thread" : "\(threads) threads"
                if wanted("roundtrip") {
                    // What every row below includes besides its kernel: send → node → waitUntilIdle.
                    keep(
                        "graph round trip, pass-through node, \(label)",
                        try inGraph(PassThroughCalculator.self, NoOptions(), input: rgba, threads: threads), ref: nil, refName: "")
                }
                if wanted("nv12") {
                    keep(
                        "NV12 → RGBA, \(label)",
                        try inGraph(ColorConvertCalculator.self, .init(outputFormat: "rgba8"), input: nv12, threads: threads),
                        ref: ("nv12_to_rgba", key), refName: "cvtColor YUV2RGBA_NV12")
                }
                if wanted("bilinear") {
                    keep(
                        "resize → 640×360 bilinear, \(label)", try inGraph(ImageTransformationCalculator.self, resize, input: rgba, threads: threads),
                        ref: ("resize_linear", key), refName: "resize INTER_LINEAR")
                }
                if wanted("bilinear720") {
                    // 1920 → 640 is an exact 3× reduction whose bilinear taps all land on source pixels
                    // (a gather); 1.5× blends two taps in both directions everywhere.
                    keep(
                        "resize → 1280×720 bilinear, \(label)",
                        try inGraph(ImageTransformationCalculator.self, resize720, input: rgba, threads: threads),
                        ref: ("resize_linear_720", key), refName: "resize INTER_LINEAR")
                }
                if wanted("area") {
                    keep(
                        "resize → 640×360 area, \(label)", try inGraph(ImageTransformationCalculator.self, area, input: rgba, threads: threads),
                        ref: ("resize_area", key), refName: "resize INTER_AREA")
                }
                if wanted("blur") {
                    keep(
                        "Gaussian blur 5×5, \(label)",
                        try inGraph(GaussianBlurCalculator.self, .init(sigma: 0, kernelSize: 5), input: rgba, threads: threads),
                        ref: ("gaussian_5x5", key), refName: "GaussianBlur (5,5)")
                }
                if wanted("unsharp") {
                    keep(
                        "unsharp mask, \(label)", try inGraph(SharpenCalculator.self, .init(radius: 1, amount: 0.8), input: rgba, threads: threads),
                        ref: ("unsharp", key), refName: "GaussianBlur + addWeighted")
                }
                if wanted("color") {
                    keep(
                        "saturation + contrast, \(label)",
                        try inGraph(ColorAdjustmentCalculator.self, .init(contrast: 1.2, saturation: 1.3), input: rgba, threads: threads),
                        ref: ("sat_contrast", key), refName: "convertScaleAbs + addWeighted")
                }
                if wanted("lut") {
                    let name = "3-D LUT 17³ tetrahedral, \(label)"
                    keep(
                        name, try inGraph(LUTCalculator.self, .init(lutPath: lutFile), input: rgba, threads: threads), ref: ("memcpy", key),
                        refName: "memcpy of the frame (floor)")
                    let bytes = rgba.planes[0].bytesPerRow * h
                    let dst = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                    let copy = medianMilliseconds(iterations: iterations) { dst.copyMemory(from: rgba.planes[0].baseAddress, byteCount: bytes) }
                    dst.deallocate()
                    copies[name] = min(copies[name] ?? .infinity, copy)
                }
            }
        }
        for r in rows {
            guard let ms = ours[r.label] else { continue }
            guard let ref = r.ref else {
                print(String(format: "%@ %8.3f ms", r.label.padding(toLength: 54, withPad: " ", startingAt: 0), ms))
                continue
            }
            row(r.label, ms, ref.0 == "memcpy" ? copies[r.label] : cv[ref.0]?[ref.1], unit: "ms", refName: r.refName)
        }
        if cv.isEmpty { print("  (OpenCV reference unavailable: pip install opencv-python-headless==4.14.0.94)") }
    }
}
