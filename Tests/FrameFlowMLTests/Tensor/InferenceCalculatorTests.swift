import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowML

/// InferenceCalculator with MediaPipe's options and side packets, on MediaPipe's
/// face_detection_short_range.tflite against the outputs LiteRT gives for the same input
/// (scripts/fixtures/make_model_fixtures.py).
@Suite struct InferenceCalculatorTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("models"))

    /// MODEL_BLOB bytes → TfLiteModelCalculator → MODEL; the OP_RESOLVER side packet and the
    /// xnnpack delegate are accepted; output_tensor_indices_map [1, 0] swaps the outputs.
    @Test func modelFromBlobWithMediaPipeOptions() throws {
        let modelURL = Self.dir.appendingPathComponent("face_detection_short_range.tflite")
        let blob = try [UInt8](Data(contentsOf: modelURL))
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.input_0.pb").path)
            .tensor
        let want = try (0..<2).map {
            try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.output_\($0).pb").path).tensor
        }
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_side_packet: "blob"
                    input_stream: "in"
                    output_stream: "out"
                    node {
                      calculator: "TfLiteModelCalculator"
                      input_side_packet: "MODEL_BLOB:blob"
                      output_side_packet: "MODEL:model"
                    }
                    node {
                      calculator: "TfLiteCustomOpResolverCalculator"
                      output_side_packet: "OP_RESOLVER:op_resolver"
                      options { [mediapipe.TfLiteCustomOpResolverCalculatorOptions.ext] { use_gpu: false } }
                    }
                    node {
                      calculator: "InferenceCalculator"
                      input_stream: "TENSORS:in"
                      output_stream: "TENSORS:out"
                      input_side_packet: "MODEL:model"
                      input_side_packet: "OP_RESOLVER:op_resolver"
                      options { [mediapipe.InferenceCalculatorOptions.ext] {
                        delegate { xnnpack {} }
                        input_output_config { output_tensor_indices_map { model_tensor_indices: 1 model_tensor_indices: 0 } } } }
                    }
                    """), registry: MLFixtures.registry)
        let out = try PacketCollector(graph, "out")
        try graph.start(sidePackets: ["blob": blob])
        try graph.send([input], to: "in", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try #require(out.packets.first).get([Tensor].self)
        #expect(got.map(\.shape) == [want[1].shape, want[0].shape])
        for (g, w) in zip(got, [want[1], want[0]]) {
            let worst = zip(g.floats, w.floats).map { abs($0 - $1) - 1e-4 * abs($1) }.max() ?? 1
            #expect(worst <= 1e-4)
        }
    }

    /// MediaPipe 0.10.15+'s model loader: RESOURCE_ID → ResourceProviderCalculator → RESOURCE →
    /// TfLiteModelCalculator's MODEL_RESOURCE → MODEL, giving LiteRT's outputs.
    @Test func modelFromAResourceAsMediaPipesNewerLoadersRead() throws {
        let input = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.input_0.pb").path)
            .tensor
        let want = try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.output_0.pb").path)
            .tensor
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_side_packet: "path"
                    input_stream: "in"
                    output_stream: "out"
                    node {
                      calculator: "ResourceProviderCalculator"
                      input_side_packet: "RESOURCE_ID:path"
                      output_side_packet: "RESOURCE:resource"
                    }
                    node {
                      calculator: "TfLiteModelCalculator"
                      input_side_packet: "MODEL_RESOURCE:resource"
                      output_side_packet: "MODEL:model"
                    }
                    node {
                      calculator: "InferenceCalculator"
                      input_stream: "TENSORS:in"
                      output_stream: "TENSORS:out"
                      input_side_packet: "MODEL:model"
                    }
                    """), registry: MLFixtures.registry, environment: GraphEnvironment(resourceRoots: [Self.dir.path]))
        let out = try PacketCollector(graph, "out")
        try graph.start(sidePackets: ["path": "face_detection_short_range.tflite"])
        try graph.send([input], to: "in", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try #require(out.packets.first).get([Tensor].self)
        #expect(got.first?.shape == want.shape)
        let worst = zip(got[0].floats, want.floats).map { abs($0 - $1) - 1e-4 * abs($1) }.max() ?? 1
        #expect(worst <= 1e-4)
    }

    /// The delegate names what it is; unknown delegates and tensor names are errors.
    @Test func optionsDecodeAndNamesAreChecked() throws {
        func options(_ body: String) throws -> InferenceCalculator.Options {
            let graph = try GraphConfig(
                parsing: """
                    input_stream: "in"
                    node {
                      calculator: "InferenceCalculator"
                      input_stream: "TENSORS:in"
                      output_stream: "TENSORS:out"
                      options { [mediapipe.InferenceCalculatorOptions.ext] { \(body) } }
                    }
                    """)
            let g = try Graph(graph, registry: MLFixtures.registry)
            return try #require(g.options(ofNode: g.nodeNames[0]) as? InferenceCalculator.Options)
        }
        let o = try options(#"model_path: "m.tflite" delegate { gpu { use_advanced_gpu_api: true } }"#)
        #expect(o.modelPath == "m.tflite" && o.delegate?.kind == "gpu")
        #expect(try options("delegate { tflite {} }").delegate?.kind == "tflite")
        #expect(throws: (any Error).self) { try options("delegate { tpu {} }") }
        #expect(try InferenceCalculator.names(["a", "b"], names: [], map: nil, indices: nil, side: "output") == ["a", "b"])
        var map = InferenceCalculator.Options.TensorNamesMap()
        map.tensorNames = ["b"]
        #expect(try InferenceCalculator.names(["a", "b"], names: [], map: map, indices: nil, side: "output") == ["b"])
        map.tensorNames = ["c"]
        #expect { try InferenceCalculator.names(["a", "b"], names: [], map: map, indices: nil, side: "output") } throws: {
            "\($0)".contains("'c'")
        }
        var idx = InferenceCalculator.Options.TensorIndicesMap()
        idx.modelTensorIndices = [2]
        #expect { try InferenceCalculator.names(["a", "b"], names: [], map: nil, indices: idx, side: "input") } throws: {
            "\($0)".contains("input tensor 2")
        }
    }

    @Test func badModelBlobIsAnError() throws {
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_side_packet: "blob"
                    node {
                      calculator: "TfLiteModelCalculator"
                      input_side_packet: "MODEL_BLOB:blob"
                      output_side_packet: "MODEL:model"
                    }
                    """), registry: MLFixtures.registry)
        #expect {
            try graph.start(sidePackets: ["blob": [UInt8](repeating: 7, count: 64)]); try graph.waitUntilDone()
        } throws: {
            "\($0)".contains("MODEL_BLOB")
        }
    }

    @Test func updateNamesAMissingModel() throws {
        var o = InferenceCalculator.Options()
        o.modelPath = "/nonexistent/model.onnx"
        let c = try InferenceCalculator(options: o)
        var n = o
        n.modelPath = "/nonexistent/other.onnx"
        #expect { try c.update(options: n) } throws: { "\($0)".contains("/nonexistent/other.onnx") }
    }
}

extension InferenceCalculatorTests {
    @Test func cpuNumThreadOutsideItsRangeIsRefused() {
        let ports = "input_stream: \"TENSORS:in_tensors\"\noutput_stream: \"TENSORS:out_tensors\""
        expectRefused(
            "InferenceCalculator", "mediapipe.InferenceCalculatorOptions", "model_path: \"m.tflite\" cpu_num_thread: 99999",
            field: "cpu_num_thread", ports: ports)
    }
}
