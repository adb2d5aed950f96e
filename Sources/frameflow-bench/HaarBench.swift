import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Foundation

/// `frameflow-bench haar`: Haar cascade face detection against OpenCV's detectMultiScale(1.1, 3).
struct HaarBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "haar", abstract: "Haar cascade face detection against OpenCV")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Option(
        name: "iterations", valueName: "N", help: "timed iterations per row (default: 10, 3 with --quick)", expecting: "needs a positive number",
        valid: { $0 > 0 })
    var iterationCount: Int?

    @MainActor func measure() throws {
        let cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml"
        if let cascade = try? CascadeClassifier(contentsOfFile: cascadePath) {
            let detector = HaarCascadeDetector(cascade: cascade)
            let photo = try TestImages.readPNM(repoRoot.appendingPathComponent("Tests/Fixtures/astronaut_256.ppm").path, rgba: true)
            let iterations = iterationCount ?? (quick ? 3 : 10)
            print("\n(e) Haar face detection (haarcascade_frontalface_alt, 1.1, 3), median of \(iterations)")
            for (w, h) in [(640, 480), (1920, 1080)] {
                let gray = try ColorConvertCalculator.convert(try Resize.resize(photo, width: w, height: h, interpolation: .bilinear), to: .gray8)
                let raw = FileManager.default.temporaryDirectory.appendingPathComponent("ffb-haar-\(getpid()).gray")
                try Data(gray.packedBytes()).write(to: raw)
                defer { try? FileManager.default.removeItem(at: raw) }
                let script = repoRoot.appendingPathComponent("scripts/bench/opencv_haar.py").path
                let cv =
                    runTool("python3", [script, cascadePath, raw.path, "\(w)", "\(h)", "\(iterations)"])
                    .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Double] } ?? [:]
                let p = HaarCascadeDetector.Parameters(scaleFactor: 1.1, minNeighbors: 3)
                let one = try medianMilliseconds(iterations: iterations) { _ = try detector.detect(gray, parameters: p) }
                let pool = callerHelpers
                let two = try medianMilliseconds(iterations: iterations) {
                    _ = try detector.detect(gray, parameters: p) { n, body in pool.parallelFor(n, grain: 1, body) }
                }
                row("\(w)×\(h), 1 thread", one, cv["1"], unit: "ms", refName: "cv2 detectMultiScale, setNumThreads(1)")
                row("\(w)×\(h), \(pool.threadsWithCaller) threads", two, cv["2"], unit: "ms", refName: "cv2 detectMultiScale, setNumThreads(2)")
            }
        } else {
            print("\n(e) Haar: \(cascadePath) missing (apt-get install opencv-data)")
        }
    }
}
