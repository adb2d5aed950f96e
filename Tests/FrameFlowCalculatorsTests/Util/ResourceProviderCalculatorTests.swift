import Foundation
import FrameFlow
import FrameFlowCalculators
import Testing

/// MediaPipe's ResourceProviderCalculator: resources named by RESOURCE_ID:i (or the options'
/// resource_id[i]) read into RESOURCE:i, relative ids under the resource root, missing ones named.
@Suite struct ResourceProviderCalculatorTests {
    /// A fresh directory holding `files` (name → bytes).
    func directory(_ files: [String: [UInt8]]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rpc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        return dir
    }

    /// Runs one node with `ports` (its side packet lines) and graph side packets `sides`.
    func run(_ ports: String, _ sides: [String: any Sendable], environment: GraphEnvironment = GraphEnvironment()) throws -> Graph {
        let graph = try Graph(
            GraphConfig(parsing: "node {\n calculator: \"ResourceProviderCalculator\"\n\(ports)\n}"), registry: .standard,
            environment: environment)
        try graph.start(sidePackets: sides)
        try graph.waitUntilDone()
        return graph
    }

    @Test func readsEachIdIntoItsResource() throws {
        let dir = try directory(["a.tflite": [0, 1, 2, 255], "b.txt": Array("labels\n".utf8)])
        let g = try run(
            """
            input_side_packet: "RESOURCE_ID:0:a"
            input_side_packet: "RESOURCE_ID:1:b"
            output_side_packet: "RESOURCE:0:ra"
            output_side_packet: "RESOURCE:1:rb"
            """, ["a": dir + "/a.tflite", "b": dir + "/b.txt"])
        #expect(try g.outputSidePacket("ra")?.get([UInt8].self) == [0, 1, 2, 255])
        #expect(try g.outputSidePacket("rb")?.get([UInt8].self) == Array("labels\n".utf8))
    }

    @Test func idsFromTheOptionsAndRelativeToTheResourceRoot() throws {
        let dir = try directory(["m.bin": [9, 8, 7]])
        let g = try run(
            """
            output_side_packet: "RESOURCE:r"
            node_options { [type.googleapis.com/mediapipe.ResourceProviderCalculatorOptions] { resource_id: "m.bin" read_mode: READ_MODE_TEXT } }
            """, [:], environment: GraphEnvironment(resourceRoots: [dir]))
        #expect(try g.outputSidePacket("r")?.get([UInt8].self) == [9, 8, 7])
    }

    @Test func aMissingResourceIsAnErrorNamingIt() throws {
        let path = "/nonexistent-\(UUID().uuidString)/model.tflite"
        let e = #expect(throws: GraphError.self) {
            _ = try run("input_side_packet: \"RESOURCE_ID:p\"\noutput_side_packet: \"RESOURCE:r\"", ["p": path])
        }
        #expect(e?.description.contains(path) == true, "\(String(describing: e))")
    }

    @Test func aResourceWithoutAnIdIsAnError() throws {
        let e = #expect(throws: GraphError.self) { _ = try run("output_side_packet: \"RESOURCE:r\"", [:]) }
        #expect(e?.description.contains("RESOURCE:0 has no id") == true, "\(String(describing: e))")
        let empty = #expect(throws: GraphError.self) {
            _ = try run("input_side_packet: \"RESOURCE_ID:p\"\noutput_side_packet: \"RESOURCE:r\"", ["p": ""])
        }
        #expect(empty?.description.contains("cannot read resource") == true, "\(String(describing: empty))")
    }
}
