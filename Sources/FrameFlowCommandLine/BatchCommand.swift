import FrameFlow
import FrameFlowArguments
import FrameFlowFleet
import FrameFlowMedia
import Foundation

/// `frameflow batch LIST --graph GRAPH`: runs GRAPH on each file of LIST (`BatchList`) in this
/// shard, one after another, as fast as they decode (not real time). Outputs are named after
/// each input (`BatchList.outputPath`); one JSON line per file (`BatchResult`) goes to stdout
/// as it finishes. A file that fails does not stop the others.
public struct BatchCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "batch", abstract: "run a graph on each file of a list, one JSON line per file",
            discussion: """
                LIST has one file a line (# comments), relative to LIST's folder. Outputs are DIR/<name>.EXT and
                DIR/<name>.NAME.EXT.

                exit status: 0 every file ok, 1 one or more failed, 2 bad arguments or list (nothing run),
                3 interrupted (the current file's outputs finished, the rest not run)
                """)
    }

    /// The list file.
    @Argument(valueName: "LIST", help: "the files to run, one a line") public var list: String
    /// `--graph GRAPH`.
    @Option(valueName: "GRAPH", help: "the graph to run on each file") public var graph: String
    /// `--shard I/N`.
    @Option(valueName: "I/N", help: "run part I of N of the list (0-based)") public var shard: String?
    /// `--output-dir DIR`.
    @Option(valueName: "DIR", help: "where the outputs go") public var outputDir = "."
    /// `--output EXT`.
    @Option(valueName: "EXT", help: "write the graph's first output stream as DIR/<name>.EXT") public var output: String?
    /// `--output-stream NAME=EXT`.
    @Option(valueName: "NAME=EXT", help: "write stream NAME as DIR/<name>.NAME.EXT") public var outputStream: [String] = []
    /// `--side NAME=VALUE`.
    @Option(valueName: "NAME=VALUE", help: "an input side packet for every file") public var side: [String] = []
    /// Subgraphs, resource root, image limit.
    @OptionGroup public var subgraphs: SubgraphOptions

    public init() {}

    public func validate() throws {
        for o in outputStream {
            guard let eq = o.firstIndex(of: "="), eq != o.startIndex, o.index(after: eq) != o.endIndex else {
                throw ValidationError("--output-stream needs NAME=EXT, for example detections=jsonl")
            }
        }
        for s in side where !s.contains("=") { throw ValidationError("--side needs NAME=VALUE") }
    }

    @MainActor public func run() throws {
        StopSignals.runWillStart()
        let registry = try CalculatorRegistry.commandLine()
        let environment = try subgraphs.apply(to: registry)
        var selected = Shard.all
        if let s = shard {
            do { selected = try Shard(parsing: s) } catch { throw ExitRequest.usage("\(error)") }
        }
        var streams: [(stream: String, ext: String)] = []
        for o in outputStream {
            guard let eq = o.firstIndex(of: "=") else { throw ExitRequest.usage("--output-stream needs NAME=EXT, for example detections=jsonl") }
            streams.append((String(o[..<eq]), String(o[o.index(after: eq)...])))
        }
        var sides: [String: String] = [:]
        for s in side {
            guard let eq = s.firstIndex(of: "=") else { throw ExitRequest.usage("--side needs NAME=VALUE") }
            sides[String(s[..<eq])] = String(s[s.index(after: eq)...])
        }
        for ext in [output].compactMap({ $0 }) + streams.map(\.ext) where ext.isEmpty || ext.contains("/") || ext.hasPrefix(".") {
            throw ExitRequest.usage("'\(ext)': an output is given by its extension (mp4, png, jsonl), not a path")
        }
        let entries: BatchList
        do { entries = try BatchList(contentsOfFile: list) } catch { throw ExitRequest.usage("\(error)") }
        // The graph once, so a bad graph or stream name fails before any file.
        let config = try GraphConfig(contentsOfFile: GraphFiles.locate(graph), registry: registry, limits: environment.limits)
        let checked = try Graph(config, registry: registry, environment: environment)
        let streamNames = config.inputStreams.map(\.name) + config.nodes.flatMap { $0.outputStreams.map(\.name) }
        for (name, _) in streams where !streamNames.contains(name) {
            throw ExitRequest.failure("--output-stream \(name)=…: \(RunCommand.noSuchStream(name, in: streamNames))")
        }
        let declaredSides = Set(config.inputSidePackets.map(\.name) + config.nodes.flatMap { $0.inputSidePackets.map(\.name) })
        for (name, value) in sides {
            guard declaredSides.contains(name) else { throw ExitRequest.usage("--side \(name)=…: the graph reads no side packet '\(name)'") }
            _ = try GraphRunner.sidePacketValue(value, name: name, types: checked.inputSidePacketTypes(named: name))
        }
        try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)

        var failed = 0
        for entry in selected.select(entries.entries) {
            let result = runOne(entry, of: entries, config: config, registry: registry, environment: environment, streams: streams, sides: sides)
            FileHandle.standardOutput.write(Data((result.jsonLine + "\n").utf8))  // unbuffered: a line per file as it ends
            if result.status == .error {
                failed += 1
                FileHandle.standardError.write(Data("\(entries.file):\(entry.line): \(entry.text): \(result.error ?? "failed")\n".utf8))
            }
            if result.status == .interrupted {
                FileHandle.standardError.write(Data("interrupted: outputs finalized; the files after line \(entry.line) were not run\n".utf8))
                throw ExitRequest(status: ExitCode.interrupted, message: "")
            }
        }
        if failed > 0 { throw ExitRequest(status: ExitCode.failed, message: "") }
    }

    /// Runs the graph on one file of the list; its result line.
    @MainActor func runOne(
        _ entry: BatchList.Entry, of list: BatchList, config: GraphConfig, registry: CalculatorRegistry, environment: GraphEnvironment,
        streams: [(stream: String, ext: String)], sides: [String: String]
    ) -> BatchResult {
        let started = Date()
        var outputs: [String] = []
        if let ext = output { outputs.append(list.outputPath(for: entry, stream: nil, extension: ext, in: outputDir)) }
        var result = BatchResult(file: entry.text, line: entry.line, status: .ok)
        do {
            var options = GraphRunner.Options()
            options.inputs = [(nil, entry.path)]
            options.output = outputs.first
            for (stream, ext) in streams {
                let path = list.outputPath(for: entry, stream: stream, extension: ext, in: outputDir)
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
        return result
    }
}
