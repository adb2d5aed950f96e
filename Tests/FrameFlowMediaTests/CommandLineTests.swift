import Foundation
import FrameFlowTestSupport
import Testing

/// The `frameflow` tool as a user runs it.
@Suite struct CommandLineTests {
    static var binary: String { RepositoryFiles.root.appendingPathComponent(".build/debug/frameflow").path }

    func run(
        _ args: [String], interruptAfter seconds: Double? = nil, signal: Int32 = SIGINT, environment: [String: String] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        p.currentDirectoryURL = RepositoryFiles.root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        if let seconds {
            Thread.sleep(forTimeInterval: seconds)
            kill(p.processIdentifier, signal)  // SIGINT as Ctrl-C, SIGTERM as timeout/systemd/Kubernetes
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test func binaryIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build (make test does)")
    }

    @Test func validateAndDot() throws {
        let ok = try run(["validate", "Graphs/edge_detection_mobile_gpu.pbtxt"])
        #expect(ok.status == 0 && ok.out == "ok\n")
        let bad = MediaFixtures.path("bad.pbtxt")
        try "input_stream: \"in\"\nnode { calculator: \"SobelEdgeCalculator\" input_stream: \"in\" output_stream: \"out\" }\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try run(["validate", bad])
        #expect(r.status == 1)
        #expect(
            r.err.contains(
                "bad.pbtxt:2:1: node 'SobelEdgeCalculator': unknown calculator 'SobelEdgeCalculator' (did you mean 'SobelEdgesCalculator'?)"),
            "\(r.err)")
        let dot = try run(["graph", "Graphs/edge_detection_mobile_gpu.pbtxt", "--dot"])
        #expect(dot.status == 0 && dot.out.hasPrefix("digraph"))
        let cal = try run(["calculators"])
        #expect(cal.out.contains("SobelEdgesCalculator\n  inputs: (untagged): ImageFrame"))
    }

    @Test func subgraphsFromTheCommandLine() throws {
        let sub = MediaFixtures.path("edges_sub.pbtxt"), top = MediaFixtures.path("edges_top.pbtxt")
        try """
        type: "EdgesSubgraph"
        input_stream: "IMAGE:in"
        output_stream: "IMAGE:out"
        node { calculator: "LuminanceCalculator" input_stream: "in" output_stream: "luma" }
        node { calculator: "SobelEdgesCalculator" input_stream: "luma" output_stream: "out" }
        """.write(toFile: sub, atomically: true, encoding: .utf8)
        try
            "input_stream: \"input_video\"\noutput_stream: \"output_video\"\nnode { calculator: \"Edges\" input_stream: \"IMAGE:input_video\" output_stream: \"IMAGE:output_video\" }\n"
            .write(toFile: top, atomically: true, encoding: .utf8)
        let named = try run(["validate", top, "--subgraph", "Edges=\(sub)"])
        #expect(named.status == 0 && named.out == "ok\n", "\(named.err)")
        let byType = try run(["validate", top, "--subgraph", sub])
        #expect(byType.status == 1 && byType.err.contains("unknown calculator 'Edges'"), "\(byType.err)")
        let dot = try run(["graph", top, "--dot", "--expanded", "--subgraph", "Edges=\(sub)"])
        #expect(dot.status == 0 && dot.out.contains("edges__LuminanceCalculator"), "\(dot.out)")
        let r = try run(["run", top, "--subgraph", "Edges=\(sub)", "--input", "testsrc:64x48@10", "--frames", "3", "--output", "null"])
        #expect(r.status == 0 && r.out.contains("frames in: 3, frames out: 3"), "\(r.err)")
    }

    /// A built-in subgraph by name: listed, drawn (expanded into its calculators), and a typo
    /// answered with the nearest name.
    @Test func builtInSubgraphsByName() throws {
        let list = try run(["subgraphs"])
        #expect(list.status == 0 && list.out.contains("FaceLandmarkFrontCpu\n") && list.out.contains("SelfieSegmentationCpu\n"))
        let dot = try run(["graph", "FaceDetectionShortRangeCpu", "--dot", "--expanded"])
        #expect(dot.status == 0 && dot.out.hasPrefix("digraph \"FaceDetectionShortRangeCpu\""), "\(dot.err)")
        #expect(dot.out.contains("(InferenceCalculator)") && dot.out.contains("(NonMaxSuppressionCalculator)"), "\(dot.out.prefix(400))")
        let typo = try run(["graph", "FaceDetectionShortRangCpu", "--dot"])
        #expect(typo.status == 1 && typo.err.contains("did you mean FaceDetectionShortRangeCpu?"), "\(typo.err)")
    }

    @Test func relativeOptionPathsResolveUnderTheResourceRoot() throws {
        let graph = MediaFixtures.path("haar_relative.pbtxt")
        try """
        input_stream: "input_video"
        output_stream: "detections"
        node { calculator: "HaarCascadeDetectorCalculator" input_stream: "IMAGE:input_video" output_stream: "DETECTIONS:detections"
          options { [mediapipe.HaarCascadeDetectorCalculatorOptions.ext] { cascade_path: "haarcascades/haarcascade_frontalface_alt.xml" } } }
        """.write(toFile: graph, atomically: true, encoding: .utf8)
        let args = ["run", graph, "--input", "testsrc:64x48@10", "--frames", "2", "--output", "null"]
        let rooted = try run(args + ["--resource-root", "/usr/share/opencv4"])
        #expect(rooted.status == 0, "\(rooted.err)")
        let unrooted = try run(args)
        #expect(unrooted.status == 1 && unrooted.err.contains("haarcascades/haarcascade_frontalface_alt.xml"), "\(unrooted.err)")
        let missing = try run(args + ["--resource-root", "/nonexistent-root"])
        #expect(missing.status == 2 && missing.err.contains("no such folder"))
    }

    @Test func runPrintsTheSummary() throws {
        let out = MediaFixtures.path("cli.mp4")
        let r = try run([
            "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:96x64@25", "--frames", "20", "--output", out, "--stats", "--trace",
            MediaFixtures.path("trace.json"),
        ])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("frames in: 20, frames out: 20, dropped: 0"), "\(r.out)")
        #expect(r.out.contains("SobelEdgesCalculator"))
        #expect(r.out.contains("FrameFlow ") && r.out.contains(", kernels "), "--stats names the kernel level: \(r.out)")
        #expect(try MediaFixtures.probe(out).frames == 20)
        let trace = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: MediaFixtures.path("trace.json")))) as? [String: Any]
        #expect((trace?["traceEvents"] as? [Any])?.isEmpty == false)
    }

    /// `--version` names the kernel level: the CPU's highest, or the lower one that
    /// `FRAMEFLOW_KERNELS` asks for (an unknown or higher one is ignored).
    @Test func versionNamesTheKernelLevel() throws {
        let plain = try run(["--version"], environment: ["FRAMEFLOW_KERNELS": ""])
        #expect(plain.status == 0 && plain.out.hasPrefix("FrameFlow "), "\(plain)")
        #expect(!plain.out.contains("CPU supports"), "\(plain.out)")
        let forced = try run(["--version"], environment: ["FRAMEFLOW_KERNELS": "baseline"])
        #expect(forced.out.contains("kernels baseline") || forced.out.contains("kernels neon"), "\(forced.out)")
        let avx2 = try run(["version"], environment: ["FRAMEFLOW_KERNELS": "avx2"])
        #expect(avx2.out.contains("kernels avx2") || plain.out.contains("kernels baseline") || plain.out.contains("kernels neon"), "\(avx2.out)")
    }

    /// The usage is generated from the commands' declarations: `help run` and `run --help` print
    /// it (exit 0); a wrong flag names the command and the nearest flag (exit 2).
    @Test func generatedHelpAndWrongFlags() throws {
        let help = try run(["help", "run"])
        #expect(help.status == 0 && help.err.isEmpty, "\(help)")
        #expect(help.out.hasPrefix("usage: frameflow run [GRAPH] [-p PIPELINE] [--input [NAME=]SRC]..."), "\(help.out)")
        #expect(help.out.contains("  --output DST ") && help.out.contains("  --max-image-pixels N "), "\(help.out)")
        let dashHelp = try run(["run", "--help"])
        #expect(dashHelp.status == 0 && dashHelp.out == help.out)
        let typo = try run(["run", "--outptu", "x"])
        #expect(typo.status == 2 && typo.out.isEmpty, "\(typo)")
        #expect(typo.err.hasPrefix("frameflow run: unknown option '--outptu' (did you mean '--output'?)\nusage: frameflow run"), "\(typo.err)")
        let none = try run([])
        #expect(none.status == 2 && none.err.contains("usage: frameflow <command>"), "\(none.err)")
    }

    @Test func badArgumentsAreClearErrors() throws {
        let wrongName = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "camera=testsrc", "--output", "null"])
        #expect(wrongName.status != 0 && wrongName.err.contains("no input stream 'camera'"))
        let missing = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "/nonexistent.mp4", "--output", "null"])
        #expect(missing.status != 0 && missing.err.contains("/nonexistent.mp4: no such file"))
        let unwritable = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc", "--output", "/nonexistent-dir/x.mp4"])
        #expect(unwritable.status != 0 && unwritable.err.contains("cannot write"))
        let window = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc", "--output", "window"])
        #expect(window.status != 0 && window.err.contains("--output FILE"))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func interruptFinalizesTheOutput(signal: Int32) throws {
        let out = MediaFixtures.path("interrupted-\(signal).mp4")
        let r = try run(
            ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:160x120@30", "--realtime", "--output", out], interruptAfter: 1.5,
            signal: signal)
        #expect(r.status == 3, "an interrupted run has its own exit status: \(r.status) \(r.err)")
        #expect(r.err.contains("interrupted: outputs finalized"), "\(r.err)")
        let p = try MediaFixtures.probe(out)
        #expect(p.frames > 10 && p.frames < 300, "an interrupted run keeps what it wrote: \(p.frames) frames")
    }

    @Test func badValuesAreRefusedBeforeRunning() throws {
        let base = ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2", "--output", "null"]
        for (args, says) in [
            (["--fps", "abc"], "--fps"), (["--fps", "0"], "--fps"), (["--crf", "abc"], "--crf"), (["--crf", "999"], "--crf"),
            (["--bitrate", "x"], "--bitrate"), (["--size", "0x10"], "--size"), (["--rotate", "45"], "--rotate"), (["--timeout", "-1"], "--timeout"),
        ] {
            let r = try run(base + args)
            #expect(r.status == 2, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(says), "\(args): \(r.err)")
        }
        let side = try run(base + ["--side", "thresh=0.5"])
        #expect(side.status == 1 && side.err.contains("no input side packet 'thresh'"), "\(side.err)")
    }

    /// `testsrc` makes 10 seconds of frames, or as many as `--frames` asks, more too.
    @Test func testsrcMakesTheFramesAskedFor() throws {
        let base = ["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--output", "null"]
        let ten = try run(base + ["--input", "testsrc:32x24@30"])
        #expect(ten.status == 0 && ten.out.contains("frames in: 300,"), "\(ten.out) \(ten.err)")
        let more = try run(base + ["--input", "testsrc:32x24@30", "--frames", "450"])
        #expect(more.status == 0 && more.out.contains("frames in: 450,"), "\(more.out) \(more.err)")
        let badRate = try run(base + ["--input", "testsrc:32x24@inf"])
        #expect(badRate.status == 1 && badRate.err.contains("frame rate"), "\(badRate.err)")
    }

    @Test func aRunWithoutFramesIsNotASuccess() throws {
        // The header claims 60000 × 60000: nothing decodes, and the run says so with status 4.
        let huge = try run([
            "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "Tests/Fixtures/media/huge-header.png", "--output",
            MediaFixtures.path("huge-out.png"),
        ])
        #expect(huge.status == 4, "\(huge.status) \(huge.err)")
        #expect(huge.err.contains("no frame was read from the input"))
        // 16000 × 16000 (1 GB as RGBA) is over the pixel budget: refused, not decoded.
        let large = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "Tests/Fixtures/media/large-16000.png", "--output", "null"])
        #expect(large.status == 4, "\(large.status) \(large.err)")
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #expect(usage.ru_maxrss < 1_000_000, "the largest child used \(usage.ru_maxrss) KB")
        // The budget can be lowered: a 160 × 120 clip over 10 000 pixels.
        let small = try run([
            "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", try MediaFixtures.clip(), "--max-image-pixels", "10000", "--output", "null",
        ])
        #expect(small.status != 0 && small.err.contains("over the limit of 10000 pixels"), "\(small.err)")
    }

    @Test func aServerThatNeverAnswersEndsTheRun() throws {
        let server = try SilentServer()
        let url = "rtsp://127.0.0.1:\(server.port)/live"
        let t0 = Date()
        let timedOut = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", url, "--timeout", "1", "--output", "null"])
        #expect(timedOut.status == 1 && timedOut.err.contains("no answer for 1 s"), "\(timedOut.err)")
        #expect(Date().timeIntervalSince(t0) < 8)
        // Ctrl-C during the open ends the run at once, as an interrupted one.
        let t1 = Date()
        let stopped = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", url, "--output", "null"], interruptAfter: 1.0)
        #expect(stopped.status == 3, "\(stopped.status) \(stopped.err)")
        #expect(Date().timeIntervalSince(t1) < 4)
    }
}

@Suite struct FaceGraphCommandLineTests {
    @Test func facesAsJSONLines() throws {
        let out = MediaFixtures.path("faces.jsonl")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        p.arguments = [
            "run", "Graphs/face_detection_haar.pbtxt", "--input", try MediaFixtures.carphone(), "--frames", "30",
            "--output", "null", "--output-stream", "detections=\(out)",
        ]
        p.currentDirectoryURL = RepositoryFiles.root
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.count <= 30)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["stream"] as? String == "detections")
        let d = (first?["detections"] as? [[String: Any]])?.first
        let location = d?["location_data"] as? [String: Any]
        let box = location?["bounding_box"] as? [String: Any]
        #expect(location?["format"] as? String == "BOUNDING_BOX")
        #expect(box?["xmin"] is Int && box?["width"] is Int && (d?["score"] as? [Double])?.count == 1 && d?["label"] as? [String] == ["face"])
    }
}
