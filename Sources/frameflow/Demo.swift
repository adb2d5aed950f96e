import FrameFlow
import FrameFlowCalculators
import Foundation
import Synchronization

/// Runs the edge-detection graph on a generated clip (moving discs over a gradient) and
/// prints the run's summary. Nothing to download.
func runDemo(frames: Int, size: String, output: String) throws {
    let parts = size.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fail("--size must be WxH, e.g. 640x480", code: 2) }
    let (w, h) = (parts[0], parts[1])
    let graphPath = ["Graphs/edge_detection_mobile_gpu.pbtxt", Bundle.main.bundlePath + "/../../../Graphs/edge_detection_mobile_gpu.pbtxt"]
        .first { FileManager.default.fileExists(atPath: $0) } ?? "Graphs/edge_detection_mobile_gpu.pbtxt"
    let graph = try Graph(contentsOfFile: graphPath, registry: .standard)
    graph.maxFramesInFlight = 4

    let sendTimes = Mutex<[Int64: UInt64]>([:])
    let latencies = Mutex<[Double]>([])
    let last = Mutex<ImageFrame?>(nil)
    try graph.observe("output_video") { p in
        let now = monotonicNanoseconds()
        if let t = sendTimes.withLock({ $0.removeValue(forKey: p.timestamp.microseconds) }) {
            latencies.withLock { $0.append(Double(now - t) / 1e6) }
        }
        if let img = try? p.get(ImageFrame.self) { last.withLock { $0 = img } }
    }
    try graph.start()
    let start = monotonicNanoseconds()
    var rejected = 0
    for i in 0..<frames {
        let frame = try syntheticFrame(width: w, height: h, index: i)
        let ts = Timestamp(Int64(i) * 33_333)
        sendTimes.withLock { $0[ts.microseconds] = monotonicNanoseconds() }
        if !(try graph.send(frame, to: "input_video", at: ts)) {
            rejected += 1
            sendTimes.withLock { _ = $0.removeValue(forKey: ts.microseconds) }
            usleep(1000)
        }
    }
    try graph.closeAllInputStreams()
    try graph.waitUntilDone()
    let seconds = Double(monotonicNanoseconds() - start) / 1e9
    let lat = latencies.withLock { $0 }.sorted()
    func pct(_ p: Double) -> Double { lat.isEmpty ? 0 : lat[min(lat.count - 1, Int(Double(lat.count) * p))] }
    if let img = last.withLock({ $0 }) { try writePPM(img, to: output) }
    print(String(
        format: "frames in: %d, frames out: %d, dropped: %d, average fps: %.1f, latency p50: %.2f ms, p99: %.2f ms",
        frames, lat.count, rejected, Double(lat.count) / seconds, pct(0.5), pct(0.99)))
    print("last output frame written to \(output)")
}

/// A gradient with three discs that move with `index`.
func syntheticFrame(width w: Int, height h: Int, index: Int) throws -> ImageFrame {
    var m = try ImagePool.shared.makeImage(width: w, height: h, format: .rgba8)
    let t = Double(index) / 30
    let discs = (0..<3).map { k -> (Double, Double, Double) in
        let a = t * (0.7 + 0.3 * Double(k)) + Double(k) * 2.1
        return (Double(w) * (0.5 + 0.3 * cos(a)), Double(h) * (0.5 + 0.3 * sin(1.3 * a)), Double(min(w, h)) * (0.08 + 0.03 * Double(k)))
    }
    for y in 0..<h {
        m.withMutableRow(y) { row in
            for x in 0..<w {
                var r = UInt8(x * 255 / max(w - 1, 1)), g = UInt8(y * 255 / max(h - 1, 1)), b: UInt8 = 96
                for (k, d) in discs.enumerated() where (Double(x) - d.0) * (Double(x) - d.0) + (Double(y) - d.1) * (Double(y) - d.1) < d.2 * d.2 {
                    (r, g, b) = k == 0 ? (250, 240, 40) : (k == 1 ? (30, 30, 200) : (240, 60, 60))
                }
                row[4 * x] = r
                row[4 * x + 1] = g
                row[4 * x + 2] = b
                row[4 * x + 3] = 255
            }
        }
    }
    return m.freeze()
}

func writePPM(_ image: ImageFrame, to path: String) throws {
    var out = [UInt8]("P6\n\(image.width) \(image.height)\n255\n".utf8)
    out.reserveCapacity(out.count + image.width * image.height * 3)
    for y in 0..<image.height {
        let row = image.row(y)
        for x in 0..<image.width { out += [row[4 * x], row[4 * x + 1], row[4 * x + 2]] }
    }
    try Data(out).write(to: URL(fileURLWithPath: path))
}
