// A virtual background, as in video calls: MediaPipe's Selfie Segmentation finds the person,
// the mask is smoothed from frame to frame, and the background behind the person is blurred
// (Graphs/virtual_background.pbtxt) or replaced by a picture
// (Graphs/virtual_background_replace.pbtxt).
//
//   swift run virtual-background [INPUT] [OUTPUT] [--background PICTURE] [--resource-root DIR]
//
// INPUT is a video file or a camera (/dev/video0); OUTPUT a video file (.mp4, .webm, …) or
// `window` (q or Esc closes it). Defaults: .build/fixtures/carphone_pristine.mp4 (setup.sh
// fetches it), virtual_background.mp4, a blurred background, the model folder that
// `frameflow models fetch` fills (where mediapipe/modules/selfie_segmentation/… lies).
import Foundation
import FrameFlow
import FrameFlowDisplay
import FrameFlowML
import FrameFlowMedia

var args = Array(CommandLine.arguments.dropFirst())
/// Removes `--name VALUE` from the arguments and returns the value.
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    defer { args.removeSubrange(i...(i + 1)) }
    return args[i + 1]
}
let picture = option("--background")
let environment = GraphEnvironment(resourceRoots: [option("--resource-root") ?? GraphEnvironment.userModelFolder()])
let input = args.count > 0 ? args[0] : ".build/fixtures/carphone_pristine.mp4"
let output = args.count > 1 ? args[1] : "virtual_background.mp4"
let graphs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Graphs").standardized.path
let graphFile = graphs + (picture == nil ? "/virtual_background.pbtxt" : "/virtual_background_replace.pbtxt")

/// Feeds the source into the graph on the calling thread until it ends or `stop()` is called.
final class Feeder: @unchecked Sendable {  // `stopped` is guarded by the lock; the rest is used by one thread
    let graph: Graph
    let source: MediaSource
    private let lock = NSLock()
    private var stopped = false
    private(set) var error: (any Error)?
    private(set) var frames = 0

    init(graph: Graph, source: MediaSource) {
        self.graph = graph
        self.source = source
    }

    func stop() { lock.withLock { stopped = true } }
    var isStopped: Bool { lock.withLock { stopped } }

    func run() {
        do {
            while !isStopped, let frame = try source.read() {
                // A camera's late frames are dropped (here, or by the graph's flow limiter); a
                // file's go in one at a time, so that every frame is processed.
                if try graph.send(frame.image, to: "input_video", at: frame.timestamp) { frames += 1 }
                if !source.isLive { try graph.waitUntilIdle() }
            }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
        } catch {
            self.error = error
            graph.cancel()
        }
        stop()
    }
}

/// Writes the output stream into a video file, one packet at a time, keeping the first error.
final class FileOutput: @unchecked Sendable {  // observer calls come one at a time; the lock guards `error`
    let sink: VideoFileSink
    private let lock = NSLock()
    private(set) var error: (any Error)?
    init(_ sink: VideoFileSink) { self.sink = sink }
    func write(_ p: Packet) {
        lock.withLock {
            do { try sink.write(p.get(ImageFrame.self), at: p.timestamp) } catch { self.error = self.error ?? error }
        }
    }
}

do {
    let registry = try CalculatorRegistry.withML()
    let graph = try Graph(contentsOfFile: graphFile, registry: registry, environment: environment)
    var sidePackets: [String: any Sendable] = [:]
    if let picture {
        let still = try MediaSource(picture, options: .init(pixelFormat: .rgb8))
        guard let image = try still.read()?.image else { throw MediaError(.invalidArgument, picture, "no picture in it") }
        sidePackets["background_image"] = image
    }
    let source = try MediaSource(input, options: .init(pixelFormat: .rgb8))
    if source.isLive { graph.maxFramesInFlight = 2 }
    let feeder = Feeder(graph: graph, source: source)
    if output == "window" {
        let window = try PreviewWindow(title: "FrameFlow — virtual background")
        let sink = WindowSink(window: window, stream: "output_video")
        try graph.observe("output_video") { p in try? sink.write(p) }
        try graph.start(sidePackets: sidePackets)
        let thread = Thread { feeder.run() }
        thread.start()
        window.run(until: { feeder.isStopped }, onClose: { feeder.stop() })
        while !feeder.isStopped { usleep(2000) }
        print("window: \(window.shown) frames shown")
    } else {
        let file = FileOutput(try VideoFileSink(path: output))
        try graph.observe("output_video") { p in file.write(p) }
        try graph.start(sidePackets: sidePackets)
        feeder.run()
        try file.sink.finish()
        if let e = file.error { throw e }
        print("wrote \(output): \(file.sink.framesWritten) frames")
    }
    if let e = feeder.error { throw e }
} catch {
    FileHandle.standardError.write(Data("virtual-background: \(error)\n".utf8))
    exit(1)
}
