import Foundation
import FrameFlow
import FrameFlowSinks
import Synchronization

/// What `frameflow run` does: feeds media sources into a graph's input streams, writes
/// output streams to files, paces, counts and reports.
///
/// Start order is the iOS one: sinks are opened (so an unwritable output fails before any
/// decoding), the graph is started and idle, then the sources start.
public final class GraphRunner {
    /// The run's settings (the command line's options).
    public struct Options: @unchecked Sendable {  // sinks are used by one run at a time
        /// `(input stream or nil for the only one, source spec)`.
        public var inputs: [(stream: String?, source: String)] = []
        /// Destination of the graph's first output stream.
        public var output: String?
        /// `(stream, destination)` for any stream.
        public var outputStreams: [(stream: String, destination: String)] = []
        /// Sinks made by the caller (e.g. a preview window), by stream.
        public var sinks: [(stream: String, sink: any PacketSink)] = []
        /// Input side packets, parsed as Int, Double, Bool or String.
        public var sidePackets: [String: String] = [:]
        /// Stop after this many frames per input.
        public var frames: Int?
        /// Play files at their own rate, dropping frames the graph cannot take in time.
        public var realtime = false
        /// Frames allowed inside the graph at once (0: no limit); nil: 2 for live sources and
        /// `realtime` (late frames are dropped, not queued) unless the graph has a
        /// `FlowLimiterCalculator` (then none: see `run()`); for files a few per core, or one
        /// when the graph has a `FlowLimiterCalculator`, so that it drops no frame of a file.
        public var maxFramesInFlight: Int?
        public var source = MediaSource.Options()
        public var encode = EncodeOptions()
        /// Write a Chrome trace here.
        public var trace: String?
        /// Show a progress line on standard error.
        public var progress = false
        /// Run the graph on this worker pool, shared with other runs (a fleet of cameras in
        /// one process; see `Graph.start(sidePackets:on:)`); nil: a pool of the graph's own.
        /// The run leaves the pool when it ends; the pool's owner shuts it down.
        public var workerPool: WorkerPool?
        /// Called with each source once it is open, before its first frame is read: to set its
        /// `packetTap` and read its `encodedStreamInfo()` (a fleet camera's clip recorder).
        public var onSourceOpened: ((MediaSource) throws -> Void)?
        public init() {}
    }

    /// Counters of a finished run.
    public struct Summary: Sendable, CustomStringConvertible {
        public var framesIn = 0
        public var framesOut = 0
        public var dropped = 0
        public var seconds = 0.0
        public var latencyP50 = 0.0
        public var latencyP99 = 0.0
        public var warnings: [String] = []
        /// The run was stopped by `requestStop` (Ctrl-C, SIGTERM); outputs were finalized.
        public var interrupted = false
        public var averageFPS: Double { seconds > 0 ? Double(framesOut) / seconds : 0 }
        /// An empty summary (counters 0).
        public init() {}
        public var description: String {
            String(
                format: "frames in: %d, frames out: %d, dropped: %d, average fps: %.1f, latency p50: %.1f ms, p99: %.1f ms",
                framesIn, framesOut, dropped, averageFPS, latencyP50, latencyP99)
        }
        /// The summary as one line of JSON (keys sorted): frames_in, frames_out, dropped,
        /// seconds, average_fps, latency_p50_ms, latency_p99_ms, interrupted, warnings.
        public var json: String {
            let object: [String: Any] = [
                "frames_in": framesIn, "frames_out": framesOut, "dropped": dropped, "seconds": Self.finite(seconds),
                "average_fps": Self.finite(averageFPS), "latency_p50_ms": Self.finite(latencyP50),
                "latency_p99_ms": Self.finite(latencyP99), "interrupted": interrupted, "warnings": warnings,
            ]
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
            return String(decoding: data, as: UTF8.self)
        }
        private static func finite(_ x: Double) -> Double { x.isFinite ? (x * 1000).rounded() / 1000 : 0 }
    }

    let graph: Graph
    let options: Options
    private let stop = Atomic<Bool>(false)
    private let interrupt = InterruptFlag()

    public init(graph: Graph, options: Options) {
        self.graph = graph
        var options = options
        options.source.interrupt = interrupt
        options.source.testFrames = options.frames
        self.options = options
    }

    /// Asks the run to stop reading input, ending a blocked open or read at once; outputs are
    /// then finalized (Ctrl-C, SIGTERM).
    public func requestStop() {
        stop.store(true, ordering: .relaxed)
        interrupt.set()
    }

    /// Whether `requestStop` was called.
    public var stopRequested: Bool { stop.load(ordering: .relaxed) }

    /// Runs to the end of the inputs (or `frames`, or `requestStop`). Outputs are finished
    /// even when the graph fails; the graph's error is thrown after that.
    public func run() throws -> Summary {
        let config = graph.config
        // Inputs: names must match the graph's input streams. A `NORM_RECT` input no source
        // feeds (MediaPipe Tasks graphs' region of interest) gets the whole image with each
        // frame, as the Tasks API sends it.
        let namedInputs = Set(options.inputs.compactMap(\.0))
        let regions = regionStreams
        let graphInputs = config.inputStreams.map(\.name).filter { !regions.contains($0) || namedInputs.contains($0) }
        var feeds: [(stream: String, spec: String)] = []
        for (name, spec) in options.inputs {
            if let name {
                guard config.inputStreams.contains(where: { $0.name == name }) else {
                    throw MediaError(
                        .invalidArgument, "input \(name)=\(spec)",
                        "the graph has no input stream '\(name)' (its inputs: \(config.inputStreams.map(\.name).joined(separator: ", ")))")
                }
                feeds.append((name, spec))
            } else {
                guard graphInputs.count == 1 else {
                    throw MediaError(
                        .invalidArgument, "input \(spec)",
                        "the graph has \(graphInputs.count) input streams (\(graphInputs.joined(separator: ", "))); name the stream each source feeds (NAME=SOURCE)"
                    )
                }
                feeds.append((graphInputs[0], spec))
            }
        }
        // Outputs: sinks first, so an unwritable path fails before decoding.
        var destinations = options.outputStreams
        if let output = options.output {
            guard let first = config.outputStreams.first?.name else {
                throw MediaError(.invalidArgument, "output \(output)", "the graph has no output stream; name a stream to write (NAME=DESTINATION)")
            }
            destinations.insert((first, output), at: 0)
        }
        try Self.checkNoOutputIsAnInput(feeds.map(\.spec), destinations.map(\.destination))
        try checkSidePackets(config)
        var sinks: [(String, any PacketSink)] = options.sinks.map { ($0.stream, $0.sink) }
        do {
            for (stream, dest) in destinations {
                sinks.append((stream, try makeSink(dest, stream: stream, encode: options.encode)))
            }
            return try run(feeds: feeds, destinations: destinations, sinks: sinks)
        } catch {
            // Whatever failed, no output of this run is left behind or replaces a file (the
            // sinks a successful run finished are finished already; discarding them is a no-op).
            for (_, sink) in sinks { sink.discard() }
            throw error
        }
    }

    private func run(
        feeds: [(stream: String, spec: String)], destinations: [(stream: String, destination: String)], sinks: [(String, any PacketSink)]
    )
        throws -> Summary
    {
        let config = graph.config
        let firstOutputOverride = options.output == nil ? options.sinks.first?.stream : nil
        let sources: [MediaSource]
        do {
            // Decoded frames are held to the graph's pixel budget.
            var sourceOptions = options.source
            sourceOptions.limits = graph.environment.limits
            sources = try feeds.map { try MediaSource($0.spec, options: sourceOptions) }
            if let opened = options.onSourceOpened { for s in sources { try opened(s) } }
        } catch let e as MediaError where e.kind == .interrupted {
            for (_, sink) in sinks { sink.discard() }
            var summary = Summary()
            summary.interrupted = true
            lastSummary = summary
            return summary
        }

        let latency = LatencyTracker()
        let firstOutput = destinations.first?.stream ?? firstOutputOverride ?? config.outputStreams.first?.name
        let outCount = AtomicCounter()
        let sinkError = FirstError()
        for (stream, sink) in sinks {
            let box = SinkBox(sink)
            try graph.observe(stream) { [graph] p in
                do { try box.sink.write(p) } catch {
                    sinkError.record(error)
                    graph.cancel()
                }
            }
        }
        if let firstOutput {
            // Frames out and latency, counted once whatever sinks share the stream.
            try graph.observe(firstOutput) { p in
                outCount.add(1)
                latency.received(p.timestamp)
            }
        }
        if let m = options.maxFramesInFlight {
            graph.maxFramesInFlight = m
        } else if options.realtime || sources.contains(where: \.isLive) {
            // Live: late frames are dropped, not queued. A graph that throttles itself with a
            // FlowLimiterCalculator (MediaPipe's camera pattern) gets no cap: its slow branch
            // skips frames while the video keeps the source's rate, and a frame counts as in
            // flight until every output stream has passed it, so a cap here would hold the
            // whole graph to the slow branch's pace.
            let throttled = config.nodes.contains { $0.calculator == "FlowLimiterCalculator" }
            graph.maxFramesInFlight = throttled ? 0 : 2
        } else if graph.expandedConfig.nodes.contains(where: { $0.calculator == "FlowLimiterCalculator" }) {
            // Files through a graph that throttles itself (MediaPipe's `*_live` graphs): the
            // reader waits for each frame to leave, so the flow limiter always has room and
            // drops none. A file loses no frame; only a live source is thinned.
            graph.maxFramesInFlight = 1
        } else {
            // Files: a few frames inside keep every worker busy; more would only fill queues
            // (hundreds of megabytes of 1080p frames, and page faults for each new buffer).
            // A rejected file frame is retried, never dropped.
            graph.maxFramesInFlight = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        }
        graph.isTracing = options.trace != nil
        var sides: [String: any Sendable] = [:]
        for (k, v) in options.sidePackets { sides[k] = try Self.sidePacketValue(v, name: k, types: graph.inputSidePacketTypes(named: k)) }
        if let pool = options.workerPool {
            try graph.start(sidePackets: sides, on: pool)
        } else {
            try graph.start(sidePackets: sides)
        }
        try graph.waitUntilIdle()

        let started = monotonicNanoseconds()
        var summary = Summary()
        var graphError: (any Error)?
        let expected = sources.first.flatMap { s in s.declaredFrameCount ?? s.frameRate.map { _ in 0 } }
        do {
            try feed(feeds, sources, latency: latency, summary: &summary, outCount: outCount, expected: expected, started: started)
            try graph.closeAllInputStreams()
        } catch {
            // The inputs stay open after a failed read or send: cancel, or the wait below
            // would wait for packets that never come.
            graphError = error
            graph.cancel()
        }
        // A graph whose calculators stop taking steps (a node blocked in a call, a deadlock)
        // fails after the time-out like a read; the first Ctrl-C or SIGTERM ends the wait too.
        let watch = ProgressWatch(graph, seconds: options.source.timeout)
        var finished = false
        while !finished {
            finished = (try? graph.waitUntilDone(timeout: 0.1)) ?? true
            if finished { break }
            do { try watch.check() } catch {
                graphError = graphError ?? error
                graph.cancel()
                // A call that never returns keeps the graph from finishing: give up on it.
                finished = (try? graph.waitUntilDone(timeout: 1)) ?? true
                break
            }
        }
        if finished, let e = graph.error { graphError = graphError ?? e }
        if options.progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        summary.seconds = Double(monotonicNanoseconds() - started) / 1e9
        summary.framesOut = outCount.current
        (summary.latencyP50, summary.latencyP99) = latency.percentiles()
        summary.warnings = sources.flatMap { s in s.warnings.map { "\(s.spec): \($0)" } }
        summary.dropped += graph.statistics.droppedInQueues
        summary.interrupted = stop.load(ordering: .relaxed)
        lastSummary = summary
        // A run that failed replaces no file; one that succeeded or was stopped (Ctrl-C,
        // SIGTERM) completes every output first (flush, trailer, sync), then moves them all into
        // place, so either all its outputs appear or none does.
        if let e = sinkError.error { throw e }
        if let graphError {
            guard let g = graphError as? GraphError, g.kind == .cancelled, stop.load(ordering: .relaxed) else { throw graphError }
        }
        for (_, sink) in sinks { try sink.prepare() }
        for (_, sink) in sinks { try sink.finish() }
        if let trace = options.trace { try graph.chromeTrace().write(to: URL(fileURLWithPath: trace)) }
        return summary
    }

    /// The summary of the last run, also when it threw.
    public private(set) var lastSummary: Summary?

    /// An output that is also an input would be overwritten while it is read: an error
    /// before anything is opened. Files are compared by device and inode (links and
    /// different spellings of one path), patterns by their standardized text.
    static func checkNoOutputIsAnInput(_ inputs: [String], _ outputs: [String]) throws {
        func identity(_ path: String) -> String? {
            var st = stat()
            if !path.contains("%"), stat(path, &st) == 0 { return "\(st.st_dev):\(st.st_ino)" }
            return nil
        }
        func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        for output in outputs where output != "null" && output != "window" {
            for input in inputs {
                let same: Bool
                if let a = identity(output), let b = identity(input) { same = a == b } else { same = standardized(output) == standardized(input) }
                if same {
                    throw MediaError(
                        .invalidArgument, output, "is also an input (\(input)): it would be overwritten while it is read; write to another file")
                }
            }
        }
    }

    /// `text` as the type the nodes reading side packet `name` declare (Int, Int32, Float,
    /// Double, Bool, String); for untyped ports the first of Int, Double, Bool that parses,
    /// else the text. `@FILE` reads a file (`sidePacketFile`); `@@…` is the text `@…`.
    public static func sidePacketValue(_ text: String, name: String, types: [PayloadType]) throws -> any Sendable {
        if text.hasPrefix("@@") { return try literalValue(String(text.dropFirst()), name: name, types: types) }
        if text.hasPrefix("@") { return try sidePacketFile(String(text.dropFirst()), name: name, types: types) }
        return try literalValue(text, name: name, types: types)
    }

    /// `text` itself as the type the graph reads `name` as.
    static func literalValue(_ text: String, name: String, types: [PayloadType]) throws -> any Sendable {
        func bad(_ what: String) -> MediaError {
            MediaError(.invalidArgument, "side packet \(name)=\(text)", "the graph reads '\(name)' as \(what), and '\(text)' is not one")
        }
        // `text` parsed as `T`, or the error saying the graph wants `what`.
        func parse<T: LosslessStringConvertible & Sendable>(_: T.Type, _ what: String) throws -> T {
            guard let v = T(text) else { throw bad(what) }
            return v
        }
        switch types.first(where: { $0 != .any }) {
        case .of(Int.self)?: return try parse(Int.self, "an integer (Int)")
        case .of(Int32.self)?: return try parse(Int32.self, "an integer (Int32)")
        case .of(Double.self)?: return try parse(Double.self, "a number (Double)")
        case .of(Float.self)?: return try parse(Float.self, "a number (Float)")
        case .of(Bool.self)?:
            switch text.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: throw bad("true or false (Bool)")
            }
        case .of(String.self)?: return text
        default:
            if let i = Int(text) { return i }
            if let d = Double(text) { return d }
            if text == "true" || text == "false" { return text == "true" }
            return text
        }
    }

    /// `--side NAME=@FILE`: the file as the type the graph reads `name` as — a decoded image
    /// (`ImageFrame`, RGBA), its bytes (`[UInt8]`), its text (`String`), or a number or flag
    /// written in it; for a port of any type, an image when the file decodes as one, else its bytes.
    static func sidePacketFile(_ path: String, name: String, types: [PayloadType]) throws -> any Sendable {
        let what = "side packet \(name)=@\(path)"
        func image() throws -> ImageFrame {
            do {
                let source = try MediaSource(path, options: .init(pixelFormat: .rgba8))
                guard let frame = try source.read() else { throw MediaError(.invalidArgument, what, "\(path) holds no image") }
                return frame.image
            } catch let e as MediaError where e.source != what {
                throw MediaError(.invalidArgument, what, e.description)
            }
        }
        func bytes() throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MediaError(.invalidArgument, what, "cannot read \(path)")
            }
            return [UInt8](data)
        }
        func text() throws -> String {
            guard let s = String(bytes: try bytes(), encoding: .utf8) else { throw MediaError(.invalidArgument, what, "\(path) is not UTF-8 text") }
            return s
        }
        switch types.first(where: { $0 != .any }) {
        case .of(ImageFrame.self)?: return try image()
        case .of([UInt8].self)?: return try bytes()
        case .of(String.self)?: return try text()
        case .of(Int.self)?, .of(Int32.self)?, .of(Double.self)?, .of(Float.self)?, .of(Bool.self)?:
            return try literalValue(try text().trimmingCharacters(in: .whitespacesAndNewlines), name: name, types: types)
        default:
            let ext = (path as NSString).pathExtension.lowercased()
            return ["png", "jpg", "jpeg", "bmp", "ppm", "pgm", "webp", "tif", "tiff"].contains(ext) ? try image() : try bytes()
        }
    }

    /// Every `--side` name must be an input side packet of the graph: one that a node reads
    /// and no node makes.
    private func checkSidePackets(_ config: GraphConfig) throws {
        let made = Set(config.nodes.flatMap { $0.outputSidePackets.map(\.name) })
        let declared = Set(config.inputSidePackets.map(\.name) + config.nodes.flatMap { $0.inputSidePackets.map(\.name) }).subtracting(made)
        for name in options.sidePackets.keys.sorted() where !declared.contains(name) {
            let known = declared.isEmpty ? "it has none" : "its input side packets: \(declared.sorted().joined(separator: ", "))"
            throw MediaError(
                .invalidArgument, "side packet \(name)=\(options.sidePackets[name]!)", "the graph has no input side packet '\(name)' (\(known))")
        }
    }

    /// The graph's `NORM_RECT` input streams no input feeds: each frame's whole image goes there.
    private var regionStreams: [String] {
        let named = Set(options.inputs.compactMap(\.0))
        return graph.config.inputStreams.filter { $0.tag == "NORM_RECT" && !named.contains($0.name) }.map(\.name)
    }

    private func feed(
        _ feeds: [(stream: String, spec: String)], _ sources: [MediaSource], latency: LatencyTracker, summary: inout Summary,
        outCount: AtomicCounter, expected: Int?, started: UInt64
    ) throws {
        var active = Array(sources.indices)
        let regions = regionStreams
        var firstTs: [Int: Int64] = [:]
        var counts = Array(repeating: 0, count: sources.count)
        var lastProgress = started
        while !active.isEmpty && !stop.load(ordering: .relaxed) {
            for i in active {
                let source = sources[i]
                guard counts[i] < (options.frames ?? Int.max), let frame = try source.read() else {
                    active.removeAll { $0 == i }
                    continue
                }
                counts[i] += 1
                summary.framesIn += 1
                let paced = options.realtime || source.isLive
                if paced {
                    // Play at the stream's own rate, like a camera.
                    let t0 = firstTs[i] ?? frame.timestamp.microseconds
                    firstTs[i] = t0
                    // Microseconds ahead of the first frame, bounded (a file's timestamps can be anything).
                    let (ahead, overflow) = frame.timestamp.microseconds.subtractingReportingOverflow(t0)
                    let due = started &+ UInt64(overflow ? 0 : min(max(0, ahead), 1 << 40)) &* 1000
                    let now = monotonicNanoseconds()
                    if due > now { usleep(UInt32(min(1_000_000, (due - now) / 1000))) }
                }
                latency.sent(frame.timestamp)
                let watch = ProgressWatch(graph, seconds: options.source.timeout)
                var accepted = true
                while !(try graph.send(frame.image, to: feeds[i].stream, at: frame.timestamp)) {
                    if paced {
                        summary.dropped += 1  // late: dropped instead of queued
                        latency.forget(frame.timestamp)
                        accepted = false
                        break
                    }
                    usleep(200)  // files: wait for room, lose nothing
                    if stop.load(ordering: .relaxed) { break }
                    try watch.check()
                }
                if accepted {
                    for region in regions {
                        try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), to: region, at: frame.timestamp)
                    }
                }
                if options.progress {
                    let now = monotonicNanoseconds()
                    if now - lastProgress > 500_000_000 {
                        lastProgress = now
                        let secs = Double(now - started) / 1e9
                        let fps = Double(outCount.current) / secs
                        var line = String(format: "\rframes %d | %.1f fps | dropped %d", summary.framesIn, fps, summary.dropped)
                        if let total = options.frames ?? source.declaredFrameCount, fps > 0 {
                            line += String(format: " | ETA %.0fs", Double(max(0, total - counts[i])) / fps)
                        }
                        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
                    }
                }
            }
        }
    }
}

/// `@unchecked Sendable`: the graph calls each observer serially, so the sink is only used
/// by one thread at a time; `finish` runs after the graph is done.
final class SinkBox: @unchecked Sendable {
    let sink: any PacketSink
    init(_ sink: any PacketSink) { self.sink = sink }
}

/// Fails a wait on a graph whose calculators take no step for `seconds`: no call finished and no
/// packet was taken in (checked at most every 50 ms).
final class ProgressWatch {
    private let graph: Graph
    private let seconds: Double
    private var last: (calls: Int, sent: Int) = (-1, -1)
    private var since = monotonicNanoseconds()
    private var checked: UInt64 = 0

    init(_ graph: Graph, seconds: Double) {
        self.graph = graph
        self.seconds = seconds
    }

    func check() throws {
        let now = monotonicNanoseconds()
        guard now &- checked > 50_000_000 else { return }
        checked = now
        let s = graph.statistics
        let current = (s.nodes.reduce(0) { $0 + $1.calls }, s.packetsSent)
        if current != last {
            last = current
            since = now
        } else if Double(now - since) / 1e9 > seconds {
            throw MediaError(
                .timedOut, "the graph",
                "no calculator finished a step for \(String(format: "%g", seconds)) s (a node blocked or looping); --timeout sets how long a step may take"
            )
        }
    }
}

/// Send-to-output latency per timestamp.
/// Send-to-output latency of the frames of a run, bounded for runs that never end (a fleet
/// camera): the percentiles are over the last `capacity` frames, and frames the graph dropped
/// (never output) are forgotten once a later frame comes out.
final class LatencyTracker: Sendable {
    /// Samples kept: about 36 minutes at 30 fps.
    static let capacity = 1 << 16
    private struct State {
        var sent: [Int64: UInt64] = [:]
        var samples: [Double] = []
        var next = 0
    }
    private let state = Locked(State())
    func sent(_ t: Timestamp) { state.withLock { $0.sent[t.microseconds] = monotonicNanoseconds() } }
    func forget(_ t: Timestamp) { state.withLock { _ = $0.sent.removeValue(forKey: t.microseconds) } }
    func received(_ t: Timestamp) {
        let now = monotonicNanoseconds()
        state.withLock { s in
            if let t0 = s.sent.removeValue(forKey: t.microseconds) {
                let ms = Double(now - t0) / 1e6
                if s.samples.count < Self.capacity { s.samples.append(ms) } else { s.samples[s.next] = ms }
                s.next = (s.next + 1) % Self.capacity
            }
            // Outputs come in timestamp order: frames sent before this one and still waiting
            // were dropped inside the graph (more than a few waiting means some were).
            if s.sent.count > 256 { s.sent = s.sent.filter { $0.key > t.microseconds } }
        }
    }
    func percentiles() -> (Double, Double) {
        let v = state.withLock { $0.samples }.sorted()
        guard !v.isEmpty else { return (0, 0) }
        return (v[min(v.count - 1, v.count / 2)], v[min(v.count - 1, v.count * 99 / 100)])
    }
    /// Frames sent and not yet out or forgotten (tests).
    var waiting: Int { state.withLock { $0.sent.count } }
    /// Samples held (tests).
    var held: Int { state.withLock { $0.samples.count } }
}

/// The first error reported from any thread.
final class FirstError: Sendable {
    private let m = Locked<(any Error)?>(nil)
    func record(_ e: any Error) { m.withLock { if $0 == nil { $0 = e } } }
    var error: (any Error)? { m.withLock { $0 } }
}
