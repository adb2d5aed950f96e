import FrameFlowArguments
import FrameFlowCommandLine
import FrameFlowTestSupport
import Foundation
import Testing

/// `frameflow`'s commands parsed and run in process.
@Suite struct FrameFlowCommandTests {
    /// The `ExitRequest` parsing `arguments` throws, or nil.
    func request(_ arguments: [String]) -> ExitRequest? {
        do {
            _ = try FrameFlowCommand.parseAsRoot(arguments)
        } catch let r as ExitRequest {
            return r
        } catch {
            Issue.record("\(arguments): \(error)")
        }
        return nil
    }

    @Test func helpRunIsGenerated() throws {
        let help = try #require(request(["help", "run"]))
        #expect(help.status == 0)
        #expect(help.message.hasPrefix("usage: frameflow run [GRAPH] [-p PIPELINE] [--input [NAME=]SRC]... [--output DST]"), "\(help.message)")
        for line in [
            "  --output DST                where the graph's first output stream goes",
            "  --max-image-pixels N        the largest image a graph decodes or makes, in pixels",
            "  --rotate DEGREES            rotate the input clockwise (0|90|180|270)", "4 no frame read from the input",
        ] {
            #expect(help.message.contains(line), "\(line)")
        }
        #expect(request(["run", "--help"]) == help)
        #expect(request(["run", "Graphs/x.pbtxt", "-h"]) == help)
        let root = try #require(request(["--help"]))
        #expect(root.status == 0 && root.message.contains("  onnx-conformance            run ONNX's node tests"), "\(root.message)")
    }

    @Test func aWrongFlagNamesTheCommandAndTheNearestFlag() throws {
        let r = try #require(request(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--outptu", "x"]))
        #expect(r.status == 2)
        #expect(
            r.message.hasPrefix("frameflow run: unknown option '--outptu' (did you mean '--output'?)\nusage: frameflow run [GRAPH]"), "\(r.message)")
        let batch = try #require(request(["batch", "list.txt", "--grpah", "g.pbtxt"]))
        #expect(batch.message.contains("(did you mean '--graph'?)"), "\(batch.message)")
        let command = try #require(request(["valdate", "x"]))
        #expect(command.status == 2 && command.message.hasPrefix("frameflow: unknown command 'valdate' (did you mean 'validate'?)"))
    }

    @Test func optionsParseIntoTheRunCommand() throws {
        let parsed = try FrameFlowCommand.parseAsRoot([
            "run", "g.pbtxt", "--input", "camera=testsrc", "--input=b.mp4", "--frames", "5", "--fps", "12.5", "--rotate", "90", "--realtime",
            "--subgraph", "A=a.pbtxt", "--max-image-pixels", "100",
        ])
        let run = try #require(parsed as? RunCommand)
        #expect(run.graph == "g.pbtxt" && run.input == ["camera=testsrc", "b.mp4"] && run.frames == 5 && run.fps == 12.5)
        #expect(run.rotate == 90 && run.realtime && !run.mirror && run.scale == "fit")
        #expect(run.subgraphs.subgraph == ["A=a.pbtxt"] && run.subgraphs.maxImagePixels == 100)
        for (args, says) in [
            (["--fps", "nan"], "--fps needs a frame rate above 0 (up to 1000), not 'nan'"), (["--crf", "64"], "--crf needs a whole number"),
            (["--timeout", "inf"], "--timeout needs a number of seconds above 0"), (["--size", "0x10"], "--size must be WxH"),
            (["--max-image-pixels", "-5"], "--max-image-pixels needs a positive number, not '-5'"),
            (["--resource-root", "/nonexistent-root"], "--resource-root /nonexistent-root: no such folder"), (["--frames"], "--frames needs a value"),
            (["--model-asset", "/nonexistent.task"], "--model-asset /nonexistent.task: no such file"),
            (["--model-asset", "/tmp"], "--model-asset /tmp: no such file"),
        ] {
            let r = request(["run", "g.pbtxt"] + args)
            #expect(
                r?.status == 2 && r?.message.hasPrefix("frameflow run: ") == true && r?.message.contains(says) == true, "\(args): \(r?.message ?? "")"
            )
        }
        #expect(request(["run"])?.message.hasPrefix("frameflow run: a graph file (or -p PIPELINE) is required") == true)
        #expect(request(["validate", "a.pbtxt", "b.pbtxt"])?.message.hasPrefix("frameflow validate: unexpected argument 'b.pbtxt'") == true)
        #expect(request(["graph", "a.pbtxt"])?.message.contains("--dot is required") == true)
    }

    @MainActor @Test func validateRunsInProcess() throws {
        let path = RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt")
        let parsed = try FrameFlowCommand.parseAsRoot(["validate", path])
        let validate = try #require(parsed as? ValidateCommand)
        #expect(validate.graph == path)
        try validate.run()
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("cli-bad-\(getpid()).pbtxt").path
        try "input_stream: \"in\"\nnode { calculator: \"SobelEdgeCalculator\" input_stream: \"in\" output_stream: \"out\" }\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let failing = try #require(try FrameFlowCommand.parseAsRoot(["validate", bad]) as? ValidateCommand)
        #expect(throws: (any Error).self) { try failing.run() }
        #expect(FrameFlowCommand.runToStatus(["validate", bad]) == 1)
        #expect(FrameFlowCommand.runToStatus(["validate", path]) == 0)
        #expect(FrameFlowCommand.runToStatus(["validate", path, "--graph-pth", "x"]) == 2)
    }

    /// MediaPipe's expanded GestureRecognizer config runs from the command line with the task's
    /// bundle as --model-asset (two hands, two gestures), and fails naming the model without it.
    @MainActor @Test func anExpandedTasksConfigRunsWithItsModelAsset() throws {
        let asset = RepositoryFiles.path(".build/fixtures/tasks/gesture_recognizer.task")
        try #require(FileManager.default.fileExists(atPath: asset), "run scripts/setup.sh test")
        let graph = RepositoryFiles.path("Tests/Fixtures/mediapipe/tasks/graphs/gesture_recognizer_expanded.pbtxt")
        let photo = RepositoryFiles.path("Tests/Fixtures/mediapipe/photos/two_hands.png")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-gestures-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let args = ["run", graph, "--input", photo, "--output-stream", "hand_gestures=\(out)", "--quiet"]
        #expect(FrameFlowCommand.runToStatus(args + ["--model-asset", asset]) == 0)
        let line = try #require(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((json["classification_lists"] as? [Any])?.count == 2, "\(line)")
        #expect(FrameFlowCommand.runToStatus(args) == 1)
    }

    @MainActor @Test func aMistypedStreamIsAnsweredWithTheStreamsThatExist() throws {
        let path = RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt")
        let run = try #require(
            try FrameFlowCommand.parseAsRoot(["run", path, "--input", "testsrc:64x48@10", "--output-stream", "output_vidoe=x.mp4"]) as? RunCommand)
        #expect {
            try run.run()
        } throws: { error in
            let text = (error as? ExitRequest)?.message ?? "\(error)"
            return text.contains("no stream 'output_vidoe' (did you mean 'output_video'?)") && text.contains("its streams: input_video")
        }
    }
}
