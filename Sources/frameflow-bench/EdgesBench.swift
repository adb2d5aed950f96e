import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Foundation

/// `frameflow-bench edges`: luminance + Sobel, 1920×1080 RGBA, one thread, against OpenCV.
struct EdgesBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "edges", abstract: "Luminance + Sobel on 1920×1080 RGBA against OpenCV")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false

    @MainActor func measure() throws {
        let (w, h) = (1920, 1080)
        let frame = try TestImages.random(width: w, height: h, format: .rgba8, seed: 7)
        let pool = ImagePool()
        let iterations = quick ? 5 : 30
        let ours = try medianMilliseconds(iterations: iterations) {
            _ = try SobelEdgesCalculator.edges(try LuminanceCalculator.luminance(frame, pool: pool), pool: pool)
        }
        let lumaOnly = try medianMilliseconds(iterations: iterations) { _ = try LuminanceCalculator.luminance(frame, pool: pool) }
        // The memory-bandwidth floor: copying the frame once.
        let bytes = frame.planes[0].bytesPerRow * h
        let dst = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { dst.deallocate() }
        let copy = medianMilliseconds(iterations: iterations) { dst.copyMemory(from: frame.planes[0].baseAddress, byteCount: bytes) }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-bench-\(getpid()).rgba")
        try Data(frame.packedBytes()).write(to: raw)
        defer { try? FileManager.default.removeItem(at: raw) }
        let script = repoRoot.appendingPathComponent("scripts/bench/opencv_edges.py").path
        let cv = runTool("python3", [script, raw.path, "\(w)", "\(h)", "\(iterations)"]).flatMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        print("\n(a) Luminance + Sobel on 1920×1080 RGBA, one thread (median of \(iterations))")
        row("Luminance + SobelEdges", ours, cv, unit: "ms", refName: "OpenCV cvtColor+Sobel dx,dy+magnitude")
        row("  of which Luminance", lumaOnly, nil, unit: "ms", refName: "-")
        row("Luminance + SobelEdges vs one frame copy", ours, copy, unit: "ms", refName: "memcpy of the frame (floor)")
        if cv == nil { print("  (OpenCV reference unavailable: pip install opencv-python-headless==4.14.0.94)") }
    }
}
