// Instafilter, the FrameFlow way: colour adjustment → sharpen → 3-D LUT → filmic tone map,
// declared with the Swift DSL, run on a clip, with the saturation changed while frames flow.
//
//   swift run instafilter [INPUT] [OUTPUT]      (defaults: testsrc:640x360@30, instafilter.mp4)
import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia

let arguments = CommandLine.arguments
let input = arguments.count > 1 ? arguments[1] : "testsrc:640x360@30"
let output = arguments.count > 2 ? arguments[2] : "instafilter.mp4"
let lut = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("warm_film_17.cube").path

let graph = try Graph {
    Input("input_video")
    Output("output_video")
    Node(
        ColorAdjustmentCalculator.self, name: "adjust", in: ["IMAGE:input_video"], out: ["IMAGE:adjusted"],
        options: .init(contrast: 1.1, saturation: 1.0))
    Node(
        SharpenCalculator.self, name: "sharpen", in: ["IMAGE:adjusted"], out: ["IMAGE:sharp"],
        options: .init(radius: 1.2, amount: 0.6, threshold: 2))
    Node(
        LUTCalculator.self, name: "look", in: ["IMAGE:sharp"], out: ["IMAGE:graded"],
        options: .init(lutPath: lut, interpolation: .tetrahedral, intensity: 0.8))
    Node(
        ToneMapCalculator.self, name: "tonemap", in: ["IMAGE:graded"], out: ["IMAGE:output_video"],
        options: .init(curve: .hable, exposure: 0.5))
}

let sink = try VideoFileSink(path: output)
let writer = SinkLock(sink)
try graph.observe("output_video") { packet in writer.write(packet) }
try graph.start()

let source = try MediaSource(input)
var frames = 0
while frames < 90, let frame = try source.read() {
    // The parameter changes between frames, never in the middle of one.
    if frames % 15 == 0 {
        let saturation = 1.0 + Double(frames) / 45  // 1.0 → 3.0 over three seconds
        try graph.setOptions(ColorAdjustmentCalculator.Options(contrast: 1.1, saturation: saturation), forNode: "adjust")
    }
    try graph.send(frame.image, to: "input_video", at: frame.timestamp)
    frames += 1
}
try graph.closeAllInputStreams()
try graph.waitUntilDone()
try sink.finish()
if let e = writer.error { throw e }
print("wrote \(output): \(sink.framesWritten) frames")
for n in graph.statistics.nodes where !n.isOutput {
    print(String(format: "  %-8@ %4d frames, %.1f ms each", n.name as NSString, n.calls, n.busySeconds * 1000 / Double(max(n.calls, 1))))
}

/// Serializes writes from the observer (one call at a time already) and keeps the first error.
final class SinkLock: @unchecked Sendable {
    private let sink: VideoFileSink
    private let lock = NSLock()
    private(set) var error: (any Error)?
    init(_ sink: VideoFileSink) { self.sink = sink }
    func write(_ p: Packet) {
        lock.lock()
        defer { lock.unlock() }
        do { try sink.write(p.get(ImageFrame.self), at: p.timestamp) } catch { self.error = self.error ?? error }
    }
}
