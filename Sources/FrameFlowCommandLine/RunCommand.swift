import FrameFlow
import FrameFlowArguments
import FrameFlowDisplay
import FrameFlowMedia
import Foundation

/// `frameflow run GRAPH`: a graph on media, from inputs to outputs, with the exit statuses of
/// `ExitCode`.
public struct RunCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run", abstract: "run a graph on media",
            discussion: """
                SRC is a file, URL, /dev/videoN, FIFO, image, frames/%04d.png or testsrc[:WxH@FPS] (10 s, or --frames N).
                DST is a video or image file (.mp4 .mov .mkv .webm .avi .ts .flv .png .jpg), an HLS playlist (.m3u8),
                a URL (udp://HOST:PORT, rtp://HOST:PORT, rtmp://HOST/APP/STREAM, srt://HOST:PORT, rtsp://HOST/PATH),
                a .jsonl file, null, or window (a live preview: q/Esc quit, space pause, s snapshot).

                exit status: 0 complete, 1 error, 2 bad arguments, 3 interrupted (Ctrl-C or SIGTERM; outputs
                finalized), 4 no frame read from the input
                """)
    }

    /// The graph file.
    @Argument(valueName: "GRAPH", help: "the graph file (.pbtxt or .binarypb); or -p") public var graph: String?
    /// `-p PIPELINE`.
    @Option(
        name: "p", valueName: "PIPELINE",
        help: "a chain of calculators instead of a graph file: 'LuminanceCalculator ! SobelEdgesCalculator' (options: NAME key=value)")
    public var pipeline: String?
    /// `--input [NAME=]SRC`.
    @Option(valueName: "[NAME=]SRC", help: "an input, for the graph's input stream NAME (the first by default)")
    public var input: [String] = []
    /// `--output DST`.
    @Option(valueName: "DST", help: "where the graph's first output stream goes") public var output: String?
    /// `--output-stream NAME=DST`.
    @Option(valueName: "NAME=DST", help: "where output stream NAME goes") public var outputStream: [String] = []
    /// `--output-option KEY=VALUE`.
    @Option(valueName: "KEY=VALUE", help: "an FFmpeg muxer or protocol option for video outputs (hls_time=4, pkt_size=1316)")
    public var outputOption: [String] = []
    /// `--side NAME=VALUE`.
    @Option(valueName: "NAME=VALUE", help: "an input side packet; NAME=@FILE: a file as the type the graph reads (an image, bytes, text)")
    public var side: [String] = []
    /// `--frames N`.
    @Option(valueName: "N", help: "stop after N frames", expecting: "needs a positive number", valid: { $0 > 0 })
    public var frames: Int?
    /// `--realtime`.
    @Flag(help: "feed a file input at its frame rate, dropping what the graph cannot keep up with") public var realtime = false
    /// `--max-frames-in-flight N`.
    @Option(valueName: "N", help: "frames in the graph at once (0: no limit)", expecting: "needs a number", valid: { $0 >= 0 })
    public var maxFramesInFlight: Int?
    /// `--quiet`.
    @Flag(help: "print nothing but errors: no progress, no summary") public var quiet = false
    /// `--json-summary`.
    @Flag(help: "print the summary as one line of JSON (frames_in, frames_out, dropped, …)") public var jsonSummary = false
    /// `--stats`.
    @Flag(help: "print each node's calls, busy time, drops and queue depth") public var stats = false
    /// `--trace FILE`.
    @Option(valueName: "FILE", help: "write a Chrome trace (chrome://tracing, Perfetto)") public var trace: String?
    /// `--pixel-format NAME`.
    @Option(valueName: "NAME", help: "the pixel format frames are decoded to (rgba8, nv12, …)") public var pixelFormat: String?
    /// `--crf N`.
    @Option(
        valueName: "N", help: "the encoder's constant rate factor", expecting: "needs a whole number from 0 to 63 (H.264: 0-51)",
        valid: { (0...63).contains($0) })
    public var crf: Int?
    /// `--bitrate N`.
    @Option(
        valueName: "N", help: "the encoder's bit rate, bits per second", expecting: "needs a positive number of bits per second",
        valid: { $0 > 0 })
    public var bitrate: Int?
    /// `--preset P`.
    @Option(valueName: "P", help: "the encoder's preset (ultrafast … veryslow)") public var preset: String?
    /// `--size WxH`.
    @Option(valueName: "WxH", help: "the size to ask a camera or testsrc for") public var size: String?
    /// `--fps N`.
    @Option(
        valueName: "N", help: "the frame rate to ask the input for, and to encode at",
        expecting: "needs a frame rate above 0 (up to 1000)", valid: { $0 > 0 && $0 <= 1000 })
    public var fps: Double?
    /// `--rotate 0|90|180|270`.
    @Option(
        valueName: "DEGREES", help: "rotate the input clockwise", allowedValues: ["0", "90", "180", "270"],
        expecting: "must be 0, 90, 180 or 270")
    public var rotate: Int?
    /// `--mirror`.
    @Flag(help: "mirror the input left to right") public var mirror = false
    /// `--timeout SECONDS`.
    @Option(
        valueName: "SECONDS", help: "give up on an input that does not answer for this long",
        expecting: "needs a number of seconds above 0", valid: { $0 > 0 })
    public var timeout: Double?
    /// `--scale fit|fill|stretch`.
    @Option(
        valueName: "MODE", help: "how a window output shows frames", allowedValues: ["fit", "fill", "stretch"],
        expecting: "must be fit, fill or stretch")
    public var scale = "fit"
    /// `--window-size WxH`.
    @Option(valueName: "WxH", help: "a window output's size") public var windowSize = "960x540"
    /// Subgraphs, resource root, image limit.
    @OptionGroup public var subgraphs: SubgraphOptions

    public init() {}

    public func validate() throws {
        guard (graph == nil) != (pipeline == nil) else {
            throw ValidationError(graph == nil ? "a graph file (or -p PIPELINE) is required" : "give a graph file or -p PIPELINE, not both")
        }
        if let p = pixelFormat, PixelFormat(name: p) == nil { throw ValidationError("unknown pixel format '\(p)'") }
        if let s = size, FrameSize(s) == nil { throw ValidationError("--size must be WxH with positive numbers, not '\(s)'") }
        if FrameSize(windowSize) == nil { throw ValidationError("--window-size must be WxH") }
        for o in outputStream where !o.contains("=") { throw ValidationError("--output-stream needs NAME=DEST") }
        for o in outputOption where !o.contains("=") || o.hasPrefix("=") { throw ValidationError("--output-option needs KEY=VALUE, not '\(o)'") }
        for s in side where !s.contains("=") { throw ValidationError("--side needs NAME=VALUE") }
    }

    @MainActor public func run() throws {
        do { try runGraph() } catch { throw SubgraphOptions.explainingMissingModels(error) }
    }

    @MainActor private func runGraph() throws {
        StopSignals.runWillStart()
        let registry = try CalculatorRegistry.commandLine()
        let environment = try subgraphs.apply(to: registry)
        var options = GraphRunner.Options()
        let graph: Graph
        if let pipeline {
            let text = try QuickPipeline.graphText(pipeline, registry: registry)
            graph = try Graph(GraphConfig(parsing: text, file: "pipeline"), registry: registry, environment: environment)
        } else {
            graph = try Graph(contentsOfFile: GraphFiles.locate(self.graph ?? ""), registry: registry, environment: environment)
        }
        let inputNames = Set(graph.config.inputStreams.map(\.name))
        for spec in input {
            if let eq = spec.firstIndex(of: "="), spec[..<eq].allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }), !spec[..<eq].isEmpty {
                let name = String(spec[..<eq])
                guard inputNames.contains(name) else {
                    throw ExitRequest.failure(
                        "--input \(spec): the graph has no input stream '\(name)' (its inputs: \(inputNames.sorted().joined(separator: ", ")))")
                }
                options.inputs.append((name, String(spec[spec.index(after: eq)...])))
            } else {
                options.inputs.append((nil, spec))
            }
        }
        options.output = output
        for o in outputStream {
            guard let eq = o.firstIndex(of: "=") else { throw ExitRequest.usage("--output-stream needs NAME=DEST") }
            options.outputStreams.append((String(o[..<eq]), String(o[o.index(after: eq)...])))
        }
        for o in outputOption {
            guard let eq = o.firstIndex(of: "="), eq != o.startIndex else { throw ExitRequest.usage("--output-option needs KEY=VALUE") }
            options.encode.muxerOptions.append((String(o[..<eq]), String(o[o.index(after: eq)...])))
        }
        let streams = graph.config.inputStreams.map(\.name) + graph.config.nodes.flatMap { $0.outputStreams.map(\.name) }
        for (name, _) in options.outputStreams where !streams.contains(name) {
            throw ExitRequest.failure("--output-stream \(name)=…: \(Self.noSuchStream(name, in: streams))")
        }
        for s in side {
            guard let eq = s.firstIndex(of: "=") else { throw ExitRequest.usage("--side needs NAME=VALUE") }
            options.sidePackets[String(s[..<eq])] = String(s[s.index(after: eq)...])
        }
        if let frames { options.frames = frames }
        options.realtime = realtime
        if let maxFramesInFlight { options.maxFramesInFlight = maxFramesInFlight }
        options.trace = trace
        if let p = pixelFormat {
            guard let f = PixelFormat(name: p) else { throw ExitRequest.usage("unknown pixel format '\(p)'") }
            options.source.pixelFormat = f
        }
        if let crf { options.encode.crf = crf }
        if let bitrate { options.encode.bitrate = bitrate }
        options.encode.preset = preset
        if let s = size, let p = FrameSize(s) { (options.source.width, options.source.height) = (p.width, p.height) }
        if let fps {
            options.source.frameRate = fps
            options.encode.frameRate = fps
        }
        if let rotate { options.source.rotation = rotate }
        if let timeout { options.source.timeout = timeout }
        options.source.mirrored = mirror
        guard let scaleMode = DisplayScaleMode(rawValue: scale) else { throw ExitRequest.usage("--scale must be fit, fill or stretch") }
        let window = FrameSize(windowSize) ?? FrameSize("960x540")
        guard !options.inputs.isEmpty || graph.config.inputStreams.isEmpty else {
            throw ExitRequest.usage("--input is required: the graph reads \(inputNames.sorted().joined(separator: ", "))")
        }
        options.progress = isatty(2) != 0 && !quiet && !jsonSummary
        try run(graph, options: options, scaleMode: scaleMode, windowSize: window)
    }

    /// Runs `graph`, with a preview window when an output is `window`, and reports the end.
    @MainActor func run(_ graph: Graph, options: GraphRunner.Options, scaleMode: DisplayScaleMode, windowSize: FrameSize?) throws {
        var options = options
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
            let name = self.graph.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? "pipeline"
            let w: PreviewWindow
            do {
                w = try PreviewWindow(
                    title: "FrameFlow — \(name)", width: windowSize?.width ?? 960, height: windowSize?.height ?? 540, scaleMode: scaleMode)
            } catch let e as MediaError where e.kind == .noDisplay {
                // The library says what failed; the command knows which flag gives a file instead.
                throw MediaError(.noDisplay, e.source, e.message + " (--output FILE, e.g. --output out.mp4)")
            }
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
        if let window, !quiet { print("window: \(window.shown) frames shown, \(window.skipped) replaced before they were shown") }
        if stats {
            print("  " + frameFlowBuildDescription)
            for n in graph.statistics.nodes where !n.isOutput {
                print(
                    String(
                        format: "  %-32@ calls %7d  busy %8.3f s  dropped %5d  max queue %d", n.name as NSString, n.calls, n.busySeconds,
                        n.dropped, n.maxQueueDepth))
            }
        }
        try finishRun(summary, readsInput: !options.inputs.isEmpty, style: quiet ? .quiet : jsonSummary ? .json : .text)
        if summary.interrupted && window == nil { throw ExitRequest(status: ExitCode.interrupted, message: "") }
    }

    /// "the graph has no stream 'x' (did you mean 'y'?); its streams: …", for a mistyped name.
    static func noSuchStream(_ name: String, in streams: [String]) -> String {
        let hint = nearestName(to: name, in: streams).map { " (did you mean '\($0)'?)" } ?? ""
        return "the graph has no stream '\(name)'\(hint); its streams: \(streams.joined(separator: ", "))"
    }
}
