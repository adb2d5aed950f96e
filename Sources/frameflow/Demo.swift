import FrameFlow
import FrameFlowCalculators
import FrameFlowDisplay
import FrameFlowMedia
import FrameFlowML
import FrameFlowMQTT
import Foundation

/// The registry `frameflow` uses: every built-in calculator plus the media ones, and the
/// built-in subgraphs.
let registry: CalculatorRegistry = {
    let r = CalculatorRegistry.standard.adding([DebugSnapshotCalculator.self, MQTTSinkCalculator.self] + CalculatorRegistry.mlCalculators)
    do {
        try r.registerMLSubgraphs()
    } catch {
        fatalError("a built-in subgraph does not parse (a defect, caught by FrameFlowMLTests): \(error)")
    }
    return r
}()

/// Runs the edge-detection graph on FFmpeg's generated test pattern and writes
/// `demo-output.mp4`. Nothing to download.
@MainActor func runDemo(frames: Int, size: String, output: String) throws {
    StopSignals.runWillStart()
    let parts = size.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fail("--size must be WxH, e.g. 640x480", code: 2) }
    let graphPath = "Graphs/edge_detection_mobile_gpu.pbtxt"
    guard FileManager.default.fileExists(atPath: graphPath) else { fail("run the demo from the repository root (\(graphPath) not found)") }
    let graph = try Graph(contentsOfFile: graphPath, registry: registry, environment: environment)
    var options = GraphRunner.Options()
    options.inputs = [(nil, "testsrc:\(parts[0])x\(parts[1])@30")]
    options.frames = frames
    options.output = output
    options.progress = isatty(2) != 0
    let runner = GraphRunner(graph: graph, options: options)
    let summary = try runWithInterrupt(runner)
    finishRun(summary, readsInput: true)
    print("wrote \(output)")
    if summary.interrupted { exit(ExitCode.interrupted) }
}

/// Ctrl-C and SIGTERM (`timeout`, systemd, Kubernetes, `docker stop`), handled from the
/// start of the process: during a run they stop the input and the outputs are finalized (a
/// second one exits at once); before the run starts (loading the graph, opening sinks) they
/// stop it as soon as it starts; for other commands they exit.
enum StopSignals {
    /// The run signals go to, whether one arrived before it, whether a run is starting (then a
    /// signal waits for it), and the installed sources; one lock, so a signal sees them together.
    private static let state = Locked<(runner: RunnerBox?, pending: Bool, starting: Bool, sources: [any DispatchSourceSignal])>(
        (nil, false, false, []))

    /// Installs the handlers; call first thing.
    static func install() {
        let sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { received() }
            source.resume()
            return source
        }
        state.withLock { $0.sources = sources }
    }

    private static func received() {
        let (runner, wasPending, starting) = state.withLock { s -> (RunnerBox?, Bool, Bool) in
            defer { s.pending = true }
            return (s.runner, s.pending, s.starting)
        }
        guard let runner else {
            if wasPending || !starting { exit(ExitCode.interrupted) }
            return  // the run about to start takes it
        }
        if runner.runner.stopRequested {
            FileHandle.standardError.write(Data("\ninterrupted again: exiting without finishing the outputs\n".utf8))
            exit(ExitCode.interrupted)
        }
        FileHandle.standardError.write(Data("\ninterrupted: finishing the outputs…\n".utf8))
        runner.runner.requestStop()
    }

    /// Called by `frameflow run` and `demo` before loading: a signal then waits for the runner.
    static func runWillStart() { state.withLock { $0.starting = true } }

    /// Routes signals to `runner` from now on (one that came before stops it at once).
    static func attach(_ runner: GraphRunner) {
        let pending = state.withLock { s -> Bool in
            s.runner = RunnerBox(runner)
            return s.pending
        }
        if pending {
            FileHandle.standardError.write(Data("\ninterrupted: finishing the outputs…\n".utf8))
            runner.requestStop()
        }
    }

    static func detach() { state.withLock { $0.runner = nil } }
}

/// Runs `runner` with `StopSignals` routed to it.
func runWithInterrupt(_ runner: GraphRunner) throws -> GraphRunner.Summary {
    StopSignals.attach(runner)
    defer { StopSignals.detach() }
    do {
        let summary = try runner.run()
        for w in summary.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
        return summary
    } catch {
        if let s = runner.lastSummary {
            for w in s.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
            FileHandle.standardError.write(Data("\(s)\n".utf8))
        }
        throw error
    }
}

/// `frameflow run`'s exit status, for scripts.
enum ExitCode {
    /// The inputs were read to their end (or `--frames`) and every output finished.
    static let complete: Int32 = 0
    /// An error (named on standard error).
    static let failed: Int32 = 1
    /// Bad arguments.
    static let usage: Int32 = 2
    /// Stopped by Ctrl-C or SIGTERM; the outputs were finalized.
    static let interrupted: Int32 = 3
    /// The inputs gave no frame (empty, unreadable or undecodable).
    static let noFrames: Int32 = 4
}

/// Prints how a run ended and exits with its `ExitCode` unless it is complete.
func finishRun(_ summary: GraphRunner.Summary, readsInput: Bool) {
    print(summary)
    if summary.interrupted {
        FileHandle.standardError.write(Data("interrupted: outputs finalized\n".utf8))
    } else if readsInput && summary.framesIn == 0 {
        fail("no frame was read from the input", code: ExitCode.noFrames)
    }
}

/// `@unchecked Sendable`: `requestStop` is atomic.
final class RunnerBox: @unchecked Sendable {
    let runner: GraphRunner
    init(_ runner: GraphRunner) { self.runner = runner }
}

@MainActor func runCommand() throws {
    StopSignals.runWillStart()
    var options = GraphRunner.Options()
    try registerSubgraphOptions()
    guard let graphPath = args.first(where: { !$0.hasPrefix("--") }) else {
        fail("usage: frameflow run GRAPH [options]; see frameflow help", code: 2)
    }
    args.removeAll { $0 == graphPath }
    let graph = try Graph(contentsOfFile: graphPath, registry: registry, environment: environment)
    let inputNames = Set(graph.config.inputStreams.map(\.name))
    while let spec = option("--input") {
        if let eq = spec.firstIndex(of: "="), spec[..<eq].allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }), !spec[..<eq].isEmpty {
            let name = String(spec[..<eq])
            guard inputNames.contains(name) else {
                fail("--input \(spec): the graph has no input stream '\(name)' (its inputs: \(inputNames.sorted().joined(separator: ", ")))")
            }
            options.inputs.append((name, String(spec[spec.index(after: eq)...])))
        } else {
            options.inputs.append((nil, spec))
        }
    }
    options.output = option("--output")
    while let o = option("--output-stream") {
        guard let eq = o.firstIndex(of: "=") else { fail("--output-stream needs NAME=DEST", code: 2) }
        options.outputStreams.append((String(o[..<eq]), String(o[o.index(after: eq)...])))
    }
    for (name, _) in options.outputStreams
    where graph.config.nodes.allSatisfy({ !$0.outputStreams.contains { $0.name == name } }) && !inputNames.contains(name) {
        fail("--output-stream \(name)=…: the graph has no stream '\(name)'")
    }
    while let s = option("--side") {
        guard let eq = s.firstIndex(of: "=") else { fail("--side needs NAME=VALUE", code: 2) }
        options.sidePackets[String(s[..<eq])] = String(s[s.index(after: eq)...])
    }
    if let f = option("--frames") { guard let n = Int(f), n > 0 else { fail("--frames needs a positive number", code: 2) }; options.frames = n }
    options.realtime = flag("--realtime")
    if let m = option("--max-frames-in-flight") {
        guard let n = Int(m), n >= 0 else { fail("--max-frames-in-flight needs a number", code: 2) }; options.maxFramesInFlight = n
    }
    let stats = flag("--stats")
    options.trace = option("--trace")
    if let p = option("--pixel-format") {
        guard let f = PixelFormat(name: p) else { fail("unknown pixel format '\(p)'", code: 2) }; options.source.pixelFormat = f
    }
    if let c = option("--crf") {
        guard let n = Int(c), (0...63).contains(n) else { fail("--crf needs a whole number from 0 to 63 (H.264: 0-51), not '\(c)'", code: 2) }
        options.encode.crf = n
    }
    if let b = option("--bitrate") {
        guard let n = Int(b), n > 0 else { fail("--bitrate needs a positive number of bits per second, not '\(b)'", code: 2) }
        options.encode.bitrate = n
    }
    options.encode.preset = option("--preset")
    if let s = option("--size") {
        let p = s.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard p.count == 2, let w = p[0], let h = p[1], w > 0, h > 0 else { fail("--size must be WxH with positive numbers, not '\(s)'", code: 2) }
        (options.source.width, options.source.height) = (w, h)
    }
    if let r = option("--fps") {
        guard let f = Double(r), f.isFinite, f > 0, f <= 1000 else { fail("--fps needs a frame rate above 0 (up to 1000), not '\(r)'", code: 2) }
        options.source.frameRate = f
        options.encode.frameRate = f
    }
    if let r = option("--rotate") {
        guard let n = Int(r), [0, 90, 180, 270].contains(n) else { fail("--rotate must be 0, 90, 180 or 270, not '\(r)'", code: 2) }
        options.source.rotation = n
    }
    if let t = option("--timeout") {
        guard let v = Double(t), v.isFinite, v > 0 else { fail("--timeout needs a number of seconds above 0, not '\(t)'", code: 2) }
        options.source.timeout = v
    }
    options.source.mirrored = flag("--mirror")
    let scaleName = option("--scale") ?? "fit"
    guard let scale = DisplayScaleMode(rawValue: scaleName) else { fail("--scale must be fit, fill or stretch", code: 2) }
    var windowSize = (960, 540)
    if let s = option("--window-size") {
        let p = s.split(separator: "x").compactMap { Int($0) }
        guard p.count == 2, p[0] > 0, p[1] > 0 else { fail("--window-size must be WxH", code: 2) }
        windowSize = (p[0], p[1])
    }
    guard args.isEmpty else { fail("unknown arguments: \(args.joined(separator: " "))", code: 2) }
    guard !options.inputs.isEmpty || graph.config.inputStreams.isEmpty else {
        fail("--input is required: the graph reads \(inputNames.sorted().joined(separator: ", "))", code: 2)
    }
    options.progress = isatty(2) != 0
    // A window output: opened before the graph starts (so a missing display fails first),
    // driven by the main thread while the run feeds the graph from another.
    var window: PreviewWindow?
    var windowStream: String?
    if options.output == "window" {
        windowStream = graph.config.outputStreams.first?.name
        options.output = nil
    }
    if let i = options.outputStreams.firstIndex(where: { $0.destination == "window" }) {
        windowStream = options.outputStreams.remove(at: i).stream
    }
    if let stream = windowStream {
        let name = URL(fileURLWithPath: graphPath).deletingPathExtension().lastPathComponent
        let w = try PreviewWindow(title: "FrameFlow — \(name)", width: windowSize.0, height: windowSize.1, scaleMode: scale)
        w.saveSnapshot = { try ImageFileWriter.write($0, to: $1) }
        options.sinks.append((stream, WindowSink(window: w, stream: stream)))
        options.progress = false
        window = w
    }
    let runner = GraphRunner(graph: graph, options: options)
    let summary: GraphRunner.Summary
    if let window {
        summary = try runWithWindow(runner, window)
    } else {
        summary = try runWithInterrupt(runner)
    }
    if let window { print("window: \(window.shown) frames shown, \(window.skipped) replaced before they were shown") }
    if stats {
        print("  " + frameFlowBuildDescription)
        for n in graph.statistics.nodes where !n.isOutput {
            print(
                String(
                    format: "  %-32@ calls %7d  busy %8.3f s  dropped %5d  max queue %d", n.name as NSString, n.calls, n.busySeconds, n.dropped,
                    n.maxQueueDepth))
        }
    }
    finishRun(summary, readsInput: !options.inputs.isEmpty)
    if summary.interrupted && window == nil { exit(ExitCode.interrupted) }
}

/// Runs `runner` on a background thread while the main thread drives the window; closing
/// the window (q, Esc) stops the input and the run finishes its outputs.
@MainActor func runWithWindow(_ runner: GraphRunner, _ window: PreviewWindow) throws -> GraphRunner.Summary {
    let box = RunnerBox(runner)
    let result = RunResult()
    let thread = Thread {
        do { result.set(.success(try runWithInterrupt(box.runner))) } catch { result.set(.failure(error)) }
    }
    thread.start()
    window.run(until: { result.isDone }, onClose: { box.runner.requestStop() })
    while !result.isDone { usleep(2000) }
    return try result.get()
}

/// The outcome of a run on another thread.
final class RunResult: @unchecked Sendable {  // guarded by the lock
    private let lock = NSLock()
    private var value: Result<GraphRunner.Summary, any Error>?
    func set(_ v: Result<GraphRunner.Summary, any Error>) { lock.lock(); value = v; lock.unlock() }
    var isDone: Bool { lock.lock(); defer { lock.unlock() }; return value != nil }
    func get() throws -> GraphRunner.Summary { lock.lock(); defer { lock.unlock() }; return try value!.get() }
}
