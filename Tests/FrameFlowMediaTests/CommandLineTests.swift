import Foundation
import Testing

/// The `frameflow` tool as a user runs it.
@Suite struct CommandLineTests {
    static var binary: String { MediaFixtures.root.appendingPathComponent(".build/debug/frameflow").path }

    func run(_ args: [String], interruptAfter seconds: Double? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        p.currentDirectoryURL = MediaFixtures.root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        if let seconds {
            Thread.sleep(forTimeInterval: seconds)
            p.interrupt()  // SIGINT, as Ctrl-C
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
        #expect(r.err.contains("bad.pbtxt:2:1: node 'SobelEdgeCalculator': unknown calculator 'SobelEdgeCalculator' (did you mean 'SobelEdgesCalculator'?)"), "\(r.err)")
        let dot = try run(["graph", "Graphs/edge_detection_mobile_gpu.pbtxt", "--dot"])
        #expect(dot.status == 0 && dot.out.hasPrefix("digraph"))
        let cal = try run(["calculators"])
        #expect(cal.out.contains("SobelEdgesCalculator\n  inputs: (untagged): ImageFrame"))
    }

    @Test func runPrintsTheSummary() throws {
        let out = MediaFixtures.path("cli.mp4")
        let r = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:96x64@25", "--frames", "20", "--output", out, "--stats", "--trace", MediaFixtures.path("trace.json")])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("frames in: 20, frames out: 20, dropped: 0"), "\(r.out)")
        #expect(r.out.contains("SobelEdgesCalculator"))
        #expect(try MediaFixtures.probe(out).frames == 20)
        let trace = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: MediaFixtures.path("trace.json")))) as? [String: Any]
        #expect((trace?["traceEvents"] as? [Any])?.isEmpty == false)
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

    @Test func interruptFinalizesTheOutput() throws {
        let out = MediaFixtures.path("interrupted.mp4")
        let r = try run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:160x120@30", "--realtime", "--output", out], interruptAfter: 1.5)
        #expect(r.status == 0, "\(r.err)")
        let p = try MediaFixtures.probe(out)
        #expect(p.frames > 10 && p.frames < 300, "an interrupted run keeps what it wrote: \(p.frames) frames")
    }
}

@Suite struct FaceGraphCommandLineTests {
    @Test func facesAsJSONLines() throws {
        let out = MediaFixtures.path("faces.jsonl")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        p.arguments = ["run", "Graphs/face_detection_haar.pbtxt", "--input", try MediaFixtures.carphone(), "--frames", "30",
                       "--output", "null", "--output-stream", "detections=\(out)"]
        p.currentDirectoryURL = MediaFixtures.root
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.count <= 30)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["stream"] as? String == "detections")
        let d = (first?["detections"] as? [[String: Any]])?.first
        let box = d?["box"] as? [String: Any]
        #expect(box?["x"] != nil && box?["width"] != nil && d?["score"] != nil && d?["label"] as? String == "face")
    }
}
