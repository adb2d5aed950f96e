import FrameFlow
import FrameFlowCalculators
import Foundation
import FrameFlowTestSupport
import Testing

@Suite struct GraphConfigTests {
    @Test func seedGraphLoadsAsWritten() throws {
        let config = try GraphConfig(contentsOfFile: RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt"))
        #expect(config.inputStreams.map(\.name) == ["input_video"])
        #expect(config.outputStreams.map(\.name) == ["output_video"])
        #expect(config.nodes.map(\.calculator) == ["LuminanceCalculator", "SobelEdgesCalculator"])
        #expect(config.nodes[0].inputStreams == [StreamRef(name: "input_video")])
        #expect(config.nodes[0].outputStreams == [StreamRef(name: "luma_video")])
        #expect(config.nodes[1].inputStreams == [StreamRef(name: "luma_video")])
        #expect(config.nodes[1].outputStreams == [StreamRef(name: "output_video")])
        #expect(config.nodes[1].location?.line == 18)
    }

    @Test func streamReferences() throws {
        #expect(try StreamRef(parsing: "IMAGE:0:frame") == StreamRef(tag: "IMAGE", index: 0, name: "frame"))
        #expect(try StreamRef(parsing: "IN:2:b") == StreamRef(tag: "IN", index: 2, name: "b"))
        #expect(try StreamRef(parsing: "TAG:x") == StreamRef(tag: "TAG", index: 0, name: "x"))
        for bad in ["Bad", "tag:x", "A:B:c", "A:-1:c", "A:1:2:3", "", "a-b"] {
            #expect(throws: GraphError.self, "\(bad)") { try StreamRef(parsing: bad) }
        }
    }

    @Test func everyFieldOfTheIssue() throws {
        let text = """
            input_stream: "IMAGE:0:input_video"
            output_stream: "out"
            input_side_packet: "MODEL:model_path"
            output_side_packet: "result"
            max_queue_size: 4
            num_threads: 2
            input_stream_handler { input_stream_handler: "ImmediateInputStreamHandler" }
            node <
              calculator: "FlowLimiterCalculator"
              name: "limiter"
              input_stream: "input_video"
              input_stream: "FINISHED:out"
              input_stream_info: { tag_index: "FINISHED" back_edge: true }
              output_stream: "out"
              input_side_packet: "MODEL:model_path"
              input_stream_handler { input_stream_handler: "DefaultInputStreamHandler" }
              options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 2 } }
            >
            node {
              calculator: "X"
              node_options: { [type.googleapis.com/mediapipe.XOptions] { a: 1 } }
            }
            """
        let c = try GraphConfig(parsing: text)
        #expect(c.maxQueueSize == 4 && c.numThreads == 2 && c.inputPolicy == .immediate)
        #expect(c.inputStreams[0].tag == "IMAGE" && c.inputSidePackets[0].tag == "MODEL")
        #expect(c.outputSidePackets.map(\.name) == ["result"])
        let n = c.nodes[0]
        #expect(n.name == "limiter" && n.inputPolicy == .default)
        #expect(n.inputStreamInfo.first?.tagIndex == "FINISHED" && n.inputStreamInfo.first?.backEdge == true)
        guard case .text(let t1, _)? = n.options, case .text(let t2, _)? = c.nodes[1].options else {
            Issue.record("options missing")
            return
        }
        #expect(t1 == "mediapipe.FlowLimiterCalculatorOptions")
        #expect(t2 == "mediapipe.XOptions")
    }

    @Test func unknownFieldsAreErrors() {
        let e = #expect(throws: GraphError.self) { try GraphConfig(parsing: "input_stream: \"a\"\nnode { calculator: \"X\" bogus: 1 }") }
        #expect(e?.kind == .unknownField && e?.location?.line == 2 && e?.location?.column == 24)
        #expect(throws: GraphError.self) { try GraphConfig(parsing: "nonsense: 1") }
        #expect(throws: GraphError.self) { try GraphConfig(parsing: "node { input_stream: \"a\" }") }
        #expect(throws: GraphError.self) { try GraphConfig(parsing: "node { calculator: 5 }") }
        #expect(throws: GraphError.self) { try GraphConfig(parsing: "input_stream: \"Bad Name\"") }
        let missing = #expect(throws: GraphError.self) { try GraphConfig(contentsOfFile: "/nonexistent/graph.pbtxt") }
        #expect(missing?.description.contains("/nonexistent/graph.pbtxt") == true)
    }

    @Test func dotExport() throws {
        let config = try GraphConfig(contentsOfFile: RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt"))
        let dot = config.dot(name: "edge")
        #expect(dot.hasPrefix("digraph \"edge\" {"))
        #expect(dot.contains("\"node:LuminanceCalculator\" -> \"node:SobelEdgesCalculator\" [label=\"luma_video\"]"))
        #expect(dot.contains("\"in:input_video\" -> \"node:LuminanceCalculator\""))
        #expect(dot.contains("\"node:SobelEdgesCalculator\" -> \"out:output_video\""))
    }

    /// A `.pbtxt` with a NUL byte is graph text with a bad character at its line and column,
    /// not a binary graph ("wire type 1 at byte 0").
    @Test func aControlByteInGraphTextIsATextError() throws {
        let path = NSTemporaryDirectory() + "nul-\(UUID().uuidString).pbtxt"
        defer { unlink(path) }
        try Data("input_stream: \"in\"\nnode { calculator: \"Pass\u{0}ThroughCalculator\" }\n".utf8).write(to: URL(fileURLWithPath: path))
        let e = #expect(throws: GraphError.self) { try GraphConfig(contentsOfFile: path) }
        #expect(e?.kind == .syntax && e?.location?.line == 2 && e?.location?.column == 25, "\(String(describing: e))")
        #expect(e?.description.contains("control character 0x00 in graph text") == true, "\(String(describing: e))")
    }

    /// A generated graph with 100 001 dangling streams: the errors are counted, not all printed.
    @Test func thousandsOfErrorsPrintAScreenful() throws {
        var text = "input_stream: \"in\"\n"
        for i in 0..<100_001 { text += "output_stream: \"s\(i)\"\n" }
        text += "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" output_stream: \"s0\" }\n"
        let config = try GraphConfig(parsing: text)
        let e = #expect(throws: GraphErrors.self) { try Graph(config, registry: .standard) }
        #expect(e?.errors.count == 100_000)
        let shown = e?.description ?? ""
        #expect(
            shown.split(separator: "\n").count == GraphErrors.shownLimit + 1 && shown.hasSuffix("… and 99980 more errors"), "\(shown.suffix(200))")
    }
}
