import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import FrameFlowML
import Foundation

/// `frameflow`: validate, inspect and run FrameFlow graphs.
let usage = """
    usage: frameflow <command> [options]

    commands:
      demo [--frames N] [--size WxH] [--output FILE]
                                  run Graphs/edge_detection_mobile_gpu.pbtxt on a generated clip,
                                  write demo-output.mp4 and print the summary
      run GRAPH [--input [NAME=]SRC]... [--output DST] [--output-stream NAME=DST]...
                [--side NAME=VALUE]... [--frames N] [--realtime] [--max-frames-in-flight N]
                [--stats] [--trace FILE] [--pixel-format rgba8|nv12|…] [--crf N] [--bitrate N]
                [--preset P] [--size WxH] [--fps N] [--rotate 0|90|180|270] [--mirror]
                [--timeout SECONDS] [--max-image-pixels N] [--resource-root DIR]
                                  run a graph on media: SRC is a file, URL, /dev/videoN, FIFO,
                                  image, frames/%04d.png or testsrc[:WxH@FPS] (10 s, or --frames N);
                                  DST is a video or image file (.mp4 .mov .mkv .webm .avi .png
                                  .jpg), a .jsonl file, null, or window (a live preview: q/Esc
                                  quit, space pause, s snapshot)
      batch LIST --graph GRAPH [--shard I/N] [--output-dir DIR] [--output EXT]
                [--output-stream NAME=EXT]... [--side NAME=VALUE]...
                                  run GRAPH on each file of LIST (one per line, # comments,
                                  relative to LIST's folder), or on its part I of N; outputs are
                                  DIR/<name>.EXT and DIR/<name>.NAME.EXT; one JSON line per file;
                                  exit 1 if any file failed
      fleet FLEET_FILE [--shard I/N] [--health-interval S] [--duration S]
                                  run every camera of a fleet file (or part I of N), one graph
                                  each, reconnecting cameras that fail; health as JSON lines
                                  every S seconds (5) and on state changes; exit 1 if a camera
                                  failed (a bad graph), 0 when stopped (Ctrl-C, SIGTERM, --duration)
      validate GRAPH              check a graph file; prints "ok" or the errors (exit 1)
      graph GRAPH --dot [--expanded]
                                  print the graph in Graphviz DOT (--expanded: subgraphs replaced
                                  by their nodes); GRAPH may name a built-in subgraph
                                  (FaceLandmarkFrontCpu; `frameflow subgraphs` lists them)

    run, validate and graph take --subgraph FILE (named by its type:), --subgraph NAME=FILE and
    --graph-path DIR (every .pbtxt there with a type:) to register subgraphs
      calculators                 list the registered calculators with their ports
      subgraphs                   list the built-in subgraphs
      onnx-conformance [DIR] [--op OP] [--failures]
                                  run ONNX's node tests (libonnx-testdata); print a per-op table
      version, --version          print the version and the kernel level in use (the CPU's
                                  highest, or FRAMEFLOW_KERNELS=baseline|avx2|avx512)
      help                        this text

    exit status of run and demo: 0 complete, 1 error, 2 bad arguments, 3 interrupted (Ctrl-C or
    SIGTERM; outputs finalized), 4 no frame read from the input
    """

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

// A file-size limit (ulimit -f) must make writes fail with an error we report, not kill us:
// ignored, and also blocked before any thread starts (threads inherit the mask), so that no
// signal interposer (ThreadSanitizer's runtime) can turn it back into a fatal signal.
signal(SIGXFSZ, SIG_IGN)
var fileSizeSignal = sigset_t()
sigemptyset(&fileSizeSignal)
sigaddset(&fileSizeSignal, SIGXFSZ)
pthread_sigmask(SIG_BLOCK, &fileSizeSignal, nil)
// Ctrl-C and SIGTERM finish the outputs; a parent that started us with them blocked (test
// runners, some supervisors) would leave a run that cannot be stopped cleanly.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
StopSignals.install()

var args = Array(CommandLine.arguments.dropFirst())
guard let command = args.first else { fail(usage, code: 2) }
args.removeFirst()

/// Removes `--name VALUE` from `args` and returns VALUE.
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value", code: 2) }
    let v = args[i + 1]
    args.removeSubrange(i...i + 1)
    return v
}

/// The environment every graph of this command runs with (`--resource-root`,
/// `--max-image-pixels`).
var environment = GraphEnvironment()

/// `--subgraph FILE` (named by its `type:`), `--subgraph NAME=FILE` and `--graph-path DIR`
/// register subgraphs before a graph is loaded; `--resource-root DIR` is where relative
/// paths in options are looked up, and `--max-image-pixels N` the largest image.
@MainActor func registerSubgraphOptions() throws {
    while let s = option("--subgraph") {
        if let eq = s.firstIndex(of: "="), !s[..<eq].contains("/") {
            try registry.registerSubgraph(contentsOfFile: String(s[s.index(after: eq)...]), as: String(s[..<eq]))
        } else {
            try registry.registerSubgraph(contentsOfFile: s)
        }
    }
    while let d = option("--graph-path") { try registry.registerSubgraphs(inDirectory: d) }
    if let r = option("--resource-root") {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: r, isDirectory: &isDir), isDir.boolValue else {
            fail("--resource-root \(r): no such folder", code: 2)
        }
        environment.resourceRoots = [r]
    }
    if let m = option("--max-image-pixels") {
        guard let n = Int(m), n > 0 else { fail("--max-image-pixels needs a positive number, not '\(m)'", code: 2) }
        environment.limits.maxImagePixels = n
    }
}

@MainActor func flag(_ name: String) -> Bool {
    guard let i = args.firstIndex(of: name) else { return false }
    args.remove(at: i)
    return true
}

do {
    switch command {
    case "validate":
        try registerSubgraphOptions()
        guard args.count == 1 else { fail("usage: frameflow validate GRAPH [--subgraph [NAME=]FILE]... [--graph-path DIR]...", code: 2) }
        do {
            _ = try Graph(contentsOfFile: args[0], registry: registry, environment: environment)
            print("ok")
        } catch let e as GraphErrors {
            fail(e.description)
        } catch let e as GraphError {
            fail(e.description)
        }
    case "graph":
        let dot = flag("--dot")
        let expanded = flag("--expanded")
        try registerSubgraphOptions()
        guard args.count == 1, dot else {
            fail("usage: frameflow graph GRAPH --dot [--expanded] [--subgraph [NAME=]FILE]... [--graph-path DIR]...", code: 2)
        }
        // A built-in subgraph's name (FaceLandmarkFrontCpu) shows that graph, unless a file has the name.
        let builtIn = FileManager.default.fileExists(atPath: args[0]) ? nil : registry.subgraph(named: args[0])
        if builtIn == nil && !FileManager.default.fileExists(atPath: args[0]) && !args[0].contains("/") && !args[0].contains(".") {
            let hint = registry.suggestion(for: args[0]).map { " (did you mean \($0)?)" } ?? ""
            fail("\(args[0]): no such graph file, nor a built-in subgraph of that name\(hint); frameflow subgraphs lists them")
        }
        let graph =
            try builtIn.map { try Graph($0, registry: registry, environment: environment) }
            ?? Graph(contentsOfFile: args[0], registry: registry, environment: environment)
        let config = expanded ? graph.expandedConfig : graph.config
        print(config.dot(name: URL(fileURLWithPath: args[0]).deletingPathExtension().lastPathComponent), terminator: "")
    case "subgraphs":
        for name in registry.subgraphNames { print(name) }
    case "calculators":
        for name in registry.names {
            guard let t = registry.calculator(named: name) else { continue }
            print(describe(t, name: name))
        }
    case "demo":
        try runDemo(
            frames: Int(option("--frames") ?? "150") ?? 150, size: option("--size") ?? "640x480",
            output: option("--output") ?? "demo-output.mp4")
    case "run":
        try runCommand()
    case "batch":
        try runBatchCommand()
    case "fleet":
        try runFleetCommand()
    case "onnx-conformance":
        let onlyOp = option("--op")
        let showFailures = flag("--failures")
        let dir = args.first ?? ONNXConformance.defaultDirectory
        let results = ONNXConformance.run(directory: dir)
        let shown = onlyOp.map { op in results.filter { $0.ops.contains(op) } } ?? results
        print(ONNXConformance.table(shown))
        if showFailures {
            for r in shown { if case .failed(let why) = r.outcome { print("FAIL \(r.name): \(why)") } }
        }
        let passed = shown.filter { $0.outcome == .passed }.count
        let failed = shown.filter {
            if case .failed = $0.outcome { return true }; return false
        }.count
        print("\(passed) passed, \(failed) failed, \(shown.count - passed - failed) unsupported")
    case "version", "--version":
        print(frameFlowBuildDescription)
    case "help", "--help", "-h":
        print(usage)
    default:
        fail("unknown command '\(command)'\n\n" + usage, code: 2)
    }
} catch let e as GraphErrors {
    fail(e.description)
} catch {
    fail("\(error)")
}

func describe(_ t: any Calculator.Type, name: String) -> String {
    let c = t.contract
    func ports(_ specs: [PortSpec]) -> String {
        specs.map { p in
            var s = p.tag.isEmpty ? "(untagged)" : p.tag
            if p.isRepeated { s += "[]" }
            s += ": \(p.type)"
            if p.isOptional { s += "?" }
            return s
        }.joined(separator: ", ")
    }
    var lines = [name]
    if c.acceptsAnyPorts {
        lines.append("  inputs: any   outputs: any (matched by position)")
    } else {
        lines.append("  inputs: \(c.inputs.isEmpty ? "none" : ports(c.inputs))")
        lines.append("  outputs: \(c.outputs.isEmpty ? "none" : ports(c.outputs))")
    }
    if !c.inputSidePackets.isEmpty { lines.append("  input side packets: \(ports(c.inputSidePackets))") }
    if !c.outputSidePackets.isEmpty { lines.append("  output side packets: \(ports(c.outputSidePackets))") }
    return lines.joined(separator: "\n")
}
