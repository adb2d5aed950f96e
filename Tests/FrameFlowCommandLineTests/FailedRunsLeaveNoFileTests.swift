import Foundation
import FrameFlow
import FrameFlowArguments
import FrameFlowTestSupport
import Testing

@testable import FrameFlowCommandLine

/// Issue 49's contract: no failed run leaves a new file, hidden or not, in the output folder.
/// Twenty failure cases, each with a fresh output folder holding one file of the user's (which
/// must survive unchanged): bad inputs, outputs and graphs, bad option and side-packet values,
/// a missing model and folder, a full disk, limits crossed mid-run, and SIGTERM at start.
@Suite(.serialized) struct FailedRunsLeaveNoFileTests {
    static let edges = RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt")

    /// A scratch folder outside the output folder, for inputs and graphs the cases need.
    static let inputs: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-failed-inputs-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: dir.appendingPathComponent("corrupt.mp4"))
        try? "node { calculator: \"LuminanceCalculator\" input_stream: \"in\"\n".write(
            to: dir.appendingPathComponent("syntax.pbtxt"), atomically: true, encoding: .utf8)
        try? """
        input_stream: "input_video"
        output_stream: "output_video"
        node { calculator: "NoSuchCalculator" input_stream: "input_video" output_stream: "output_video" }
        """.write(to: dir.appendingPathComponent("unknown.pbtxt"), atomically: true, encoding: .utf8)
        try? """
        input_stream: "input_video"
        output_stream: "output_video"
        node { calculator: "ImageToTensorCalculator" input_stream: "IMAGE:input_video" output_stream: "TENSORS:t"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] { output_tensor_width: 128 output_tensor_height: 128 } } }
        node { calculator: "InferenceCalculator" input_stream: "TENSORS:t" output_stream: "TENSORS:o"
          options { [mediapipe.InferenceCalculatorOptions.ext] { model_path: "mediapipe/modules/none/missing.tflite" } } }
        node { calculator: "PassThroughCalculator" input_stream: "input_video" output_stream: "output_video" }
        """.write(to: dir.appendingPathComponent("missing_model.pbtxt"), atomically: true, encoding: .utf8)
        try? """
        input_stream: "input_video"
        input_side_packet: "allow"
        output_stream: "output_video"
        node { calculator: "GateCalculator" input_stream: "input_video" output_stream: "output_video" input_side_packet: "ALLOW:allow" }
        """.write(to: dir.appendingPathComponent("gate.pbtxt"), atomically: true, encoding: .utf8)
        return dir
    }()

    static func input(_ name: String) -> String { inputs.appendingPathComponent(name).path }

    /// `{D}` in the arguments is the output folder.
    static let cases: [(name: String, args: [String])] = [
        ("missing input", ["run", edges, "--input", "/nonexistent/clip.mp4", "--output", "{D}/out.mp4"]),
        ("corrupt input", ["run", edges, "--input", input("corrupt.mp4"), "--output", "{D}/out.mp4"]),
        ("extension FrameFlow does not write", ["run", edges, "--input", "testsrc:64x48@10", "--frames", "3", "--output", "{D}/x.gif"]),
        ("no extension", ["run", edges, "--input", "testsrc:64x48@10", "--frames", "3", "--output", "{D}/x"]),
        ("missing folder", ["run", edges, "--input", "testsrc:64x48@10", "--frames", "3", "--output", "{D}/no/such/folder/out.mp4"]),
        (
            "full disk",
            ["run", edges, "--input", "testsrc:64x48@10", "--frames", "3", "--output", "/dev/full", "--output-stream", "output_video={D}/out.jsonl"]
        ),
        ("missing model", ["run", input("missing_model.pbtxt"), "--input", "testsrc:64x48@10", "--frames", "3", "--output", "{D}/out.mp4"]),
        ("graph syntax error", ["run", input("syntax.pbtxt"), "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("unknown calculator", ["run", input("unknown.pbtxt"), "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("NaN option", ["run", "-p", "GaussianBlurCalculator sigma=nan", "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("1e308 option", ["run", "-p", "GaussianBlurCalculator sigma=1e308", "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("bad side packet value", ["run", input("gate.pbtxt"), "--side", "allow=maybe", "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("missing side packet", ["run", input("gate.pbtxt"), "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        ("unknown side packet", ["run", edges, "--side", "nope=1", "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]),
        (
            "side packet file missing",
            ["run", input("gate.pbtxt"), "--side", "allow=@/nonexistent", "--input", "testsrc:64x48@10", "--output", "{D}/out.mp4"]
        ),
        ("unknown output stream", ["run", edges, "--input", "testsrc:64x48@10", "--output-stream", "edgez={D}/out.jsonl"]),
        ("image sequence, missing input", ["run", edges, "--input", "/nonexistent.mp4", "--output", "{D}/frames_%04d.png"]),
        ("HLS, missing input", ["run", edges, "--input", "/nonexistent.mp4", "--output", "{D}/hls.m3u8"]),
        (
            "image over the pixel limit",
            ["run", edges, "--input", "testsrc:640x480@10", "--frames", "3", "--max-image-pixels", "1000", "--output", "{D}/out.mp4"]
        ),
        ("negative frame count", ["run", edges, "--input", "testsrc:64x48@10", "--frames", "-1", "--output", "{D}/out.mp4"]),
    ]

    /// Runs `args` with a fresh output folder holding the user's `keep.mp4`; returns the status
    /// and the folder's entries afterwards (hidden ones included).
    @MainActor static func run(_ args: [String]) throws -> (status: Int32, entries: [String], kept: Bool) {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("ff-failed-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        let keep = Data("the user's file".utf8)
        try keep.write(to: d.appendingPathComponent("keep.mp4"))
        let status = FrameFlowCommand.runToStatus(args.map { $0.replacingOccurrences(of: "{D}", with: d.path) })
        let entries = try FileManager.default.contentsOfDirectory(atPath: d.path).sorted()
        return (status, entries, FileManager.default.contents(atPath: d.appendingPathComponent("keep.mp4").path) == keep)
    }

    @MainActor @Test(arguments: cases.indices)
    func aFailedRunLeavesNothing(index: Int) throws {
        let (name, args) = Self.cases[index]
        let r = try Self.run(args)
        #expect(r.status != 0, "\(name): status \(r.status)")
        #expect(r.entries == ["keep.mp4"] && r.kept, "\(name): the folder holds \(r.entries)")
    }

    /// SIGTERM right after the start, to the real process: no output file.
    @Test func sigtermAtStartLeavesNothing() throws {
        let binary = RepositoryFiles.path(".build/debug/frameflow")
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build frameflow first (swift build)")
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("ff-sigterm-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", Self.edges, "--input", "testsrc:640x480@30", "--output", d.appendingPathComponent("out.mp4").path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        usleep(20_000)
        p.terminate()
        p.waitUntilExit()
        let entries = try FileManager.default.contentsOfDirectory(atPath: d.path)
        // Stopped before a frame was written: nothing; stopped later: a finished video, never a temporary.
        #expect(entries.isEmpty || (entries == ["out.mp4"] && p.terminationStatus == 3), "\(entries), status \(p.terminationStatus)")
    }
}
