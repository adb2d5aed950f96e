import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import Testing

/// MediaPipe's LocalFileContentsCalculator: files named by FILE_PATH:i read into CONTENTS:i,
/// relative paths under the resource root, missing files named.
@Suite(.serialized) struct LocalFileContentsCalculatorTests {
    /// A fresh directory holding `files` (name → bytes).
    func directory(_ files: [String: [UInt8]]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lfc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        return dir
    }

    /// Runs a node reading `ports` (FILE_PATH port → name), with graph side packets `paths`.
    func run(
        _ ports: [(String, String)], _ paths: [String: any Sendable], options: String = "", environment: GraphEnvironment = GraphEnvironment()
    ) throws -> Graph {
        let lines = ports.map {
            "input_side_packet: \"FILE_PATH\($0.0):\($0.1)\"\noutput_side_packet: \"CONTENTS\($0.0):\($0.1)_contents\""
        }
        let text = """
            node {
              calculator: "LocalFileContentsCalculator"
              \(lines.joined(separator: "\n"))
              \(options)
            }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard, environment: environment)
        try graph.start(sidePackets: paths)
        try graph.waitUntilDone()
        return graph
    }

    @Test func readsEachFileIntoItsContents() throws {
        let dir = try directory(["a.bin": [0, 1, 2, 255], "b.txt": Array("hello\n".utf8)])
        let g = try run([(":0", "a"), (":1", "b")], ["a": dir + "/a.bin", "b": dir + "/b.txt"])
        #expect(try g.outputSidePacket("a_contents")?.get([UInt8].self) == [0, 1, 2, 255])
        #expect(try g.outputSidePacket("b_contents")?.get([UInt8].self) == Array("hello\n".utf8))
    }

    @Test func textModeIsAcceptedAndReadsTheSameBytes() throws {
        let dir = try directory(["t.txt": Array("line\r\n".utf8)])
        let g = try run(
            [("", "t")], ["t": dir + "/t.txt"],
            options: "options { [mediapipe.LocalFileContentsCalculatorOptions.ext] { text_mode: true } }")
        #expect(try g.outputSidePacket("t_contents")?.get([UInt8].self) == Array("line\r\n".utf8))
    }

    @Test func relativePathsResolveUnderTheResourceRoot() throws {
        let dir = try directory(["model.bin": [9, 8, 7]])
        let g = try run([("", "m")], ["m": "model.bin"], environment: GraphEnvironment(resourceRoots: [dir]))
        #expect(try g.outputSidePacket("m_contents")?.get([UInt8].self) == [9, 8, 7])
    }

    @Test func aMissingFileIsAnErrorNamingThePath() throws {
        let path = "/nonexistent-\(UUID().uuidString)/missing.bin"
        let e = #expect(throws: GraphError.self) { _ = try run([("", "m")], ["m": path]) }
        #expect(e?.description.contains(path) == true, "\(String(describing: e))")
    }

    @Test func aNonStringPathIsATypeError() throws {
        let e = #expect(throws: GraphError.self) { _ = try run([("", "m")], ["m": 42]) }
        #expect(e?.description.contains("'m'") == true, "\(String(describing: e))")
    }

    @Test func optionsReadFromABinaryGraph() throws {
        let bytes = ProtobufWire.graph(
            calculator: "LocalFileContentsCalculator", sideInputs: ["FILE_PATH:p"], sideOutputs: ["CONTENTS:c"], ext: 346849340
        ) { o in o.int(1, 1) }
        let graph = try Graph(GraphConfig(binary: bytes, file: "lfc.binarypb", registry: .standard), registry: .standard)
        #expect((graph.options(ofNode: "node") as? LocalFileContentsCalculator.Options)?.textMode == true)
    }
}
