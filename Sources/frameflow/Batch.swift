import FrameFlow
import FrameFlowFleet
import FrameFlowMedia
import Foundation

/// `frameflow batch LIST --graph GRAPH [--shard I/N] [--output-dir DIR] [--output EXT]
/// [--output-stream NAME=EXT]… [--side NAME=VALUE]…`: runs GRAPH on each file of LIST
/// (`BatchList`) in this shard, one after another, as fast as they decode (not real time).
/// Outputs are named after each input (`BatchList.outputPath`); one JSON line per file
/// (`BatchResult`) goes to stdout as it finishes. A file that fails does not stop the others.
/// Exit status: 0 every file ok, 1 one or more failed, 2 bad arguments or list (nothing
/// run), 3 interrupted (the current file's outputs finished, the rest not run).
@MainActor func runBatchCommand() throws {
    StopSignals.runWillStart()
    let usage =
        "usage: frameflow batch LIST --graph GRAPH [--shard I/N] [--output-dir DIR] [--output EXT] [--output-stream NAME=EXT]... [--side NAME=VALUE]..."
    try registerSubgraphOptions()
    guard let graphPath = option("--graph") else { fail(usage, code: ExitCode.usage) }
    var shard = Shard.all
    if let s = option("--shard") {
        do { shard = try Shard(parsing: s) } catch { fail("\(error)", code: ExitCode.usage) }
    }
    let directory = option("--output-dir") ?? "."
    let videoExtension = option("--output")
    var streams: [(stream: String, ext: String)] = []
    while let o = option("--output-stream") {
        guard let eq = o.firstIndex(of: "="), eq != o.startIndex, o.index(after: eq) != o.endIndex else {
            fail("--output-stream needs NAME=EXT, for example detections=jsonl", code: ExitCode.usage)
        }
        streams.append((String(o[..<eq]), String(o[o.index(after: eq)...])))
    }
    var sides: [String: String] = [:]
    while let s = option("--side") {
        guard let eq = s.firstIndex(of: "=") else { fail("--side needs NAME=VALUE", code: ExitCode.usage) }
        sides[String(s[..<eq])] = String(s[s.index(after: eq)...])
    }
    guard args.count == 1, !args[0].hasPrefix("--") else { fail(usage, code: ExitCode.usage) }
    for ext in [videoExtension].compactMap({ $0 }) + streams.map(\.ext) where ext.isEmpty || ext.contains("/") || ext.hasPrefix(".") {
        fail("'\(ext)': an output is given by its extension (mp4, png, jsonl), not a path", code: ExitCode.usage)
    }
    let list: BatchList
    do { list = try BatchList(contentsOfFile: args[0]) } catch { fail("\(error)", code: ExitCode.usage) }
    // The graph once, so a bad graph or stream name fails before any file.
    let config = try GraphConfig(contentsOfFile: graphPath, registry: registry, limits: environment.limits)
    let checked = try Graph(config, registry: registry, environment: environment)
    let streamNames = Set(config.inputStreams.map(\.name) + config.nodes.flatMap { $0.outputStreams.map(\.name) })
    for (name, _) in streams where !streamNames.contains(name) { fail("--output-stream \(name)=…: the graph has no stream '\(name)'") }
    let declaredSides = Set(config.inputSidePackets.map(\.name) + config.nodes.flatMap { $0.inputSidePackets.map(\.name) })
    for (name, value) in sides {
        guard declaredSides.contains(name) else { fail("--side \(name)=…: the graph reads no side packet '\(name)'", code: ExitCode.usage) }
        _ = try GraphRunner.sidePacketValue(value, name: name, types: checked.inputSidePacketTypes(named: name))
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

    var failed = 0
    for entry in shard.select(list.entries) {
        let started = Date()
        var outputs: [String] = []
        if let ext = videoExtension { outputs.append(list.outputPath(for: entry, stream: nil, extension: ext, in: directory)) }
        var result = BatchResult(file: entry.text, line: entry.line, status: .ok)
        do {
            var options = GraphRunner.Options()
            options.inputs = [(nil, entry.path)]
            options.output = outputs.first
            for (stream, ext) in streams {
                let path = list.outputPath(for: entry, stream: stream, extension: ext, in: directory)
                options.outputStreams.append((stream, path))
                outputs.append(path)
            }
            options.sidePackets = sides
            let runner = GraphRunner(graph: try Graph(config, registry: registry, environment: environment), options: options)
            let summary = try runWithInterrupt(runner)
            result.frames = summary.framesIn
            result.framesOut = summary.framesOut
            if summary.interrupted {
                result.status = .interrupted
            } else if summary.framesIn == 0 {
                result.status = .error
                result.error = "no frame was read from \(entry.path)"
            }
        } catch {
            result.status = .error
            result.error = "\(error)"
        }
        result.seconds = Date().timeIntervalSince(started)
        result.outputs = result.status == .error ? [] : outputs
        FileHandle.standardOutput.write(Data((result.jsonLine + "\n").utf8))  // unbuffered: a line per file as it ends
        if result.status == .error {
            failed += 1
            FileHandle.standardError.write(Data("\(list.file):\(entry.line): \(entry.text): \(result.error ?? "failed")\n".utf8))
        }
        if result.status == .interrupted {
            FileHandle.standardError.write(Data("interrupted: outputs finalized; the files after line \(entry.line) were not run\n".utf8))
            exit(ExitCode.interrupted)
        }
    }
    exit(failed > 0 ? ExitCode.failed : ExitCode.complete)
}
