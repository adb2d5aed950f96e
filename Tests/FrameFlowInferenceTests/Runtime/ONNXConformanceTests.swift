import Foundation
@testable import FrameFlowInference
import Testing

/// ONNX's own backend node tests (Debian's libonnx-testdata, installed by scripts/setup.sh test).
@Suite struct ONNXConformanceTests {
    /// Cases that use what FrameFlow deliberately leaves out, with the reason.
    static let leftOut: [String: String] = [
        "test_cast_BFLOAT16_to_FLOAT": "bfloat16 tensors", "test_cast_FLOAT_to_BFLOAT16": "bfloat16 tensors",
        "test_castlike_BFLOAT16_to_FLOAT_expanded": "bfloat16 tensors", "test_castlike_FLOAT_to_BFLOAT16_expanded": "bfloat16 tensors",
        "test_cast_FLOAT_to_STRING": "string tensors", "test_cast_STRING_to_FLOAT": "string tensors",
        "test_castlike_FLOAT_to_STRING_expanded": "string tensors", "test_castlike_STRING_to_FLOAT_expanded": "string tensors",
        "test_castlike_BFLOAT16_to_FLOAT": "bfloat16 tensors", "test_castlike_FLOAT_to_BFLOAT16": "bfloat16 tensors",
        "test_castlike_FLOAT_to_STRING": "string tensors", "test_castlike_STRING_to_FLOAT": "string tensors",
        "test_identity_opt": "optional values", "test_identity_sequence": "sequence values",
        "test_training_dropout": "Dropout in training mode: random masks", "test_training_dropout_default": "Dropout in training mode: random masks",
        "test_training_dropout_default_mask": "Dropout in training mode: random masks",
        "test_training_dropout_mask": "Dropout in training mode: random masks",
    ]

    @Test func everySupportedCasePasses() throws {
        guard FileManager.default.fileExists(atPath: ONNXConformance.defaultDirectory) else {
            Issue.record("\(ONNXConformance.defaultDirectory) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let results = ONNXConformance.run()
        let failures = results.compactMap { r -> String? in
            if case .failed(let why) = r.outcome, Self.leftOut[r.name] == nil { return "\(r.name): \(why)" }
            return nil
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.prefix(10).joined(separator: "\n"))")
        let passed = results.filter { $0.outcome == .passed }
        #expect(passed.count >= 858, "\(passed.count) cases passed")
        // Every op implemented so far passes at least one case of its own.
        for op in [
            "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Abs", "Relu",
            "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Clip", "Softmax", "LogSoftmax",
            "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "Concat", "Split",
            "Slice", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Pad", "Shape", "Gather", "Constant",
            "Identity", "Cast", "ReduceMean", "ReduceMax", "ArgMax", "ConvTranspose", "Resize", "Upsample",
        ]
            + Ops.table.keys.sorted()
        {
            #expect(passed.contains { $0.ops.contains(op) }, "no passing case for \(op)")
        }
    }
}

@Suite struct ModelLoadingTests {
    static let relu = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx"

    @Test func truncatedAndCorruptFilesAreErrors() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.relu))
        for cut in [1, 5, data.count / 2, data.count - 1] {
            #expect(throws: ModelError.self, "cut at \(cut)") { try Model(onnx: data.prefix(cut), file: "cut.onnx") }
        }
        var garbage = [UInt8](data)
        for i in stride(from: 3, to: garbage.count, by: 7) { garbage[i] = 0xFF }
        _ = try? Model(onnx: Data(garbage), file: "garbage.onnx")  // an error or a model, never a crash
        let e = #expect(throws: ModelError.self) { try Model(onnx: Data("not a model".utf8), file: "text.onnx") }
        #expect(e?.description.contains("text.onnx") == true)
    }

    /// If nodes nested 40 deep (written here as protobuf bytes): an error naming the depth,
    /// not a decoder recursing without end; 3 deep loads (and its innermost If has no
    /// branches, which the run reports).
    @Test func deeplyNestedSubgraphsAreAnError() throws {
        func varint(_ v: Int) -> [UInt8] {
            var v = v, out: [UInt8] = []
            while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            return out + [UInt8(v)]
        }
        func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] { [UInt8(number << 3 | 2)] + varint(bytes.count) + bytes }
        func nested(_ depth: Int) -> [UInt8] {
            var graph: [UInt8] = field(12, field(1, Array("y".utf8)))  // output "y"
            for _ in 0..<depth {
                let attribute = field(1, Array("then_branch".utf8)) + field(6, graph) + varint(20 << 3) + [5]
                let node = field(1, Array("c".utf8)) + field(2, Array("y".utf8)) + field(4, Array("If".utf8)) + field(5, attribute)
                graph = field(1, node) + field(11, field(1, Array("c".utf8))) + field(12, field(1, Array("y".utf8)))
            }
            return field(7, graph) + field(8, [2 << 3, 13])
        }
        let e = #expect(throws: ModelError.self) { try Model(onnx: Data(nested(40)), file: "nested.onnx") }
        #expect(e?.description.contains("nested more than") == true, "\(String(describing: e))")
        let shallow = try Model(onnx: Data(nested(3)), file: "shallow.onnx")
        #expect(throws: ModelError.self) { try shallow.run(["c": Tensor(shape: [], ints: [1], type: .bool)]) }
    }

    @Test func unknownOpNamesNodeAndOpset() throws {
        let e = #expect(throws: ModelError.self) {
            try Model(contentsOf: URL(fileURLWithPath: "/usr/share/libonnx-testdata/data/node/test_scan9_sum/model.onnx"))
        }
        #expect(e?.description.contains("op 'Scan'") == true && e?.description.contains("opset") == true, "\(String(describing: e))")
    }

    @Test func inputsAreChecked() throws {
        let model = try Model(contentsOf: URL(fileURLWithPath: Self.relu))
        #expect(model.inputs.map(\.name) == ["x"])
        #expect(throws: ModelError.self) { try model.run([:]) }
        #expect(throws: ModelError.self) { try model.run(["x": Tensor(shape: [2], floats: [1, -1])]) }
        // A shape that promises more values than the tensor holds.
        #expect(throws: ModelError.self) { try model.run(["x": Tensor(shape: [3, 4, 5], floats: [1, 2, 3])]) }
        let y = try model.run(["x": Tensor(shape: [3, 4, 5], floats: (0..<60).map { Float($0) - 30 })])
        #expect(y["y"]?.floats.prefix(3) == [0, 0, 0] && y["y"]?.floats.last == 29)
    }
}
