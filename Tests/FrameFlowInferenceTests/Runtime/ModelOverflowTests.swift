import Foundation
import FrameFlow
import FrameFlowTestSupport
import Testing

@testable import FrameFlowInference

/// Tiny ONNX models written as protobuf bytes, for tests that need a crafted file.
enum ONNXBytes {
    static func varint(_ value: UInt64) -> [UInt8] {
        var v = value, out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        return out + [UInt8(v)]
    }
    static func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] { varint(UInt64(number << 3 | 2)) + varint(UInt64(bytes.count)) + bytes }
    static func field(_ number: Int, _ text: String) -> [UInt8] { field(number, Array(text.utf8)) }
    static func int(_ number: Int, _ v: Int64) -> [UInt8] { varint(UInt64(number << 3)) + varint(UInt64(bitPattern: v)) }

    static func int64Tensor(_ name: String, _ values: [Int64]) -> [UInt8] {
        int(1, Int64(values.count)) + int(2, 7) + values.flatMap { int(7, $0) } + field(8, name)
    }
    static func floatTensor(_ name: String, _ values: [Float]) -> [UInt8] {
        int(1, Int64(values.count)) + int(2, 1) + values.flatMap { [UInt8(4 << 3 | 5)] + withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
            + field(8, name)
    }
    /// A float tensor's ValueInfo with these dimensions (nil: symbolic, "n").
    static func valueInfo(_ name: String, _ dims: [Int?]) -> [UInt8] {
        let shape = dims.flatMap { d in field(1, d.map { int(1, Int64($0)) } ?? field(2, "n")) }
        return field(1, name) + field(2, field(1, int(1, 1) + field(2, shape)))
    }
    static func node(_ name: String, _ op: String, _ inputs: [String], _ outputs: [String], attributes: [[UInt8]] = []) -> [UInt8] {
        inputs.flatMap { field(1, $0) } + outputs.flatMap { field(2, $0) } + field(3, name) + field(4, op) + attributes.flatMap { field(5, $0) }
    }
    /// One graph of `nodes` reading float input x, writing y, with `initializers`.
    static func model(_ nodes: [[UInt8]], x: [Int?], initializers: [[UInt8]], opset: Int64 = 13) -> Data {
        let graph =
            nodes.flatMap { field(1, $0) } + field(2, "g") + initializers.flatMap { field(5, $0) }
            + field(11, valueInfo("x", x)) + field(12, field(1, "y"))
        return Data(int(1, 7) + field(8, int(2, opset)) + field(7, graph))
    }
}

/// Issue 21's crafted models, whose sizes overflowed and trapped (SIGILL): each an error
/// naming its node, or, where ONNX defines a result (Slice by step INT64_MIN), that result.
@Suite struct ModelOverflowTests {
    static let fixtures = URL(fileURLWithPath: RepositoryFiles.fixture("fuzz/onnx"))

    /// Runs `model` on x = 0, 1, 2, … of `shape` and expects a ModelError naming `node`.
    func expectError(_ model: Data, x shape: [Int], node: String, file: String) {
        let x = Tensor(shape: shape, floats: (0..<shape.reduce(1, *)).map(Float.init))
        let e = #expect(throws: ModelError.self, "\(file)") { try Model(onnx: model, file: file).run(["x": x]) }
        #expect(e?.description.contains("'\(node)'") == true, "\(file): \(String(describing: e))")
    }

    @Test func softmaxOfAnIntegerTensorIsAnError() throws {
        // A fuzz finding: Softmax read the float values of an int64 input (index out of range).
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("softmax-of-int64.onnx"))
        let m = try Model(onnx: data, file: "softmax-of-int64.onnx")
        let x = Tensor(shape: [3, 4, 5], ints: Array(repeating: 0, count: 60))
        let e = #expect(throws: ModelError.self) { try m.run(["x": x]) }
        #expect(e?.description.contains("needs a floating-point tensor") == true, "\(String(describing: e))")
    }

    @Test func reshapeTo1e12By1e12() {
        let m = ONNXBytes.model(
            [ONNXBytes.node("reshape_1e12", "Reshape", ["x", "shape"], ["y"])], x: [1, 4],
            initializers: [ONNXBytes.int64Tensor("shape", [1_000_000_000_000, 1_000_000_000_000])])
        expectError(m, x: [1, 4], node: "reshape_1e12", file: "reshape.onnx")
    }

    @Test func padBy2e62() {
        let m = ONNXBytes.model(
            [ONNXBytes.node("pad_2e62", "Pad", ["x", "pads"], ["y"])], x: [1, 4],
            initializers: [ONNXBytes.int64Tensor("pads", [0, 1 << 62, 0, 1 << 62])])
        expectError(m, x: [1, 4], node: "pad_2e62", file: "pad.onnx")
    }

    @Test func resizeBy1e30() {
        let m = ONNXBytes.model(
            [ONNXBytes.node("resize_1e30", "Resize", ["x", "", "scales"], ["y"])], x: [1, 1, 2, 2],
            initializers: [ONNXBytes.floatTensor("scales", [1, 1, 1e30, 1e30])])
        expectError(m, x: [1, 1, 2, 2], node: "resize_1e30", file: "resize.onnx")
    }

    /// Step INT64_MIN from the last element: numpy's x[3::-2⁶³], the last element alone.
    @Test func sliceWithStepInt64Min() throws {
        let m = ONNXBytes.model(
            [ONNXBytes.node("slice_step_int64min", "Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])], x: [1, 4],
            initializers: [
                ONNXBytes.int64Tensor("starts", [-1]), ONNXBytes.int64Tensor("ends", [.min]), ONNXBytes.int64Tensor("axes", [1]),
                ONNXBytes.int64Tensor("steps", [.min]),
            ])
        let y = try Model(onnx: m, file: "slice.onnx").run(["x": Tensor(shape: [1, 4], floats: [0, 1, 2, 3])])["y"]
        #expect(y?.shape == [1, 1] && y?.floats == [3])
    }

    /// The same four models as files (scripts/fixtures/make_onnx_overflow_reproducers.py).
    @Test func reproducerFiles() throws {
        for (file, node, shape) in [
            ("reshape-1e12.onnx", "reshape_1e12", [1, 4]), ("pad-2e62.onnx", "pad_2e62", [1, 4]), ("resize-1e30.onnx", "resize_1e30", [1, 1, 2, 2]),
        ] {
            expectError(try Data(contentsOf: Self.fixtures.appendingPathComponent(file)), x: shape, node: node, file: file)
        }
        let slice = try Model(contentsOf: Self.fixtures.appendingPathComponent("slice-step-int64min.valid.onnx"))
        let y = try slice.run(["x": Tensor(shape: [1, 4], floats: [0, 1, 2, 3])])["y"]
        #expect(y?.shape == [1, 1] && y?.floats == [3])
    }

    /// Other ops whose output size comes from values or attributes, each past Int or the
    /// tensor budget: a ModelError naming the op, never a trap or a huge allocation.
    @Test func sizesFromValuesAreChecked() {
        func node(_ op: String, _ attributes: [String: AttributeValue] = [:], outputs: [String] = ["y"]) -> ONNXNode {
            ONNXNode(name: "n", opType: op, domain: "", inputs: [], outputs: outputs, attributes: attributes)
        }
        let x = Tensor(shape: [1, 1, 2, 2], floats: [1, 2, 3, 4]), row = Tensor(shape: [1, 4], floats: [1, 2, 3, 4])
        func ints(_ v: [Int64]) -> Tensor { Tensor(shape: [v.count], ints: v) }
        let big: Int64 = 1 << 40
        let cases: [(String, ONNXNode, [Tensor?])] = [
            ("Reshape negative", node("Reshape"), [row, ints([-2, -2])]),
            ("Reshape two -1", node("Reshape"), [row, ints([-1, -1])]),
            ("Pad short pads", node("Pad"), [row, ints([1, 1])]),
            ("Pad -2^62", node("Pad"), [row, ints([0, -(1 << 62), 0, -(1 << 62)])]),
            ("Pad budget", node("Pad"), [row, ints([0, 1 << 28, 0, 0])]),
            ("Pad edge of empty", node("Pad", ["mode": .string("edge")]), [Tensor(shape: [1, 0], floats: []), ints([0, 1, 0, 1])]),
            ("Slice bad axis", node("Slice"), [row, ints([0]), ints([1]), ints([5])]),
            ("Slice short ends", node("Slice"), [row, ints([0, 0]), ints([1])]),
            ("Split int64 max", node("Split", outputs: ["a", "b"]), [row, ints([.max, .max])]),
            ("Split num_outputs", node("Split", ["axis": .int(1), "num_outputs": .int(.max)]), [row]),
            ("Resize NaN scale", node("Resize"), [x, nil, Tensor(shape: [4], floats: [1, 1, .nan, 1])]),
            ("Resize budget", node("Resize"), [x, nil, Tensor(shape: [4], floats: [1, 1, 1e5, 1e5])]),
            ("Resize short sizes", node("Resize"), [x, nil, nil, ints([1, 1])]),
            ("Resize bad axis", node("Resize", ["axes": .ints([7])]), [x, nil, Tensor(shape: [1], floats: [2])]),
            (
                "Resize crop without roi", node("Resize", ["coordinate_transformation_mode": .string("tf_crop_and_resize")]),
                [x, nil, Tensor(shape: [4], floats: [1, 1, 2, 2])]
            ),
            ("Tile overflow", node("Tile"), [row, ints([big, big])]),
            ("Expand budget", node("Expand"), [Tensor(shape: [1, 1], floats: [1]), ints([1 << 14, 1 << 14])]),
            ("ConstantOfShape budget", node("ConstantOfShape"), [ints([1 << 14, 1 << 14])]),
            ("Range budget", node("Range"), [Tensor(shape: [], floats: [0]), Tensor(shape: [], floats: [1e9]), Tensor(shape: [], floats: [1])]),
            (
                "OneHot budget", node("OneHot"),
                [
                    Tensor(shape: [64], ints: Array(repeating: 0, count: 64)), Tensor(shape: [], floats: [8_388_608]),
                    Tensor(shape: [2], floats: [0, 1]),
                ]
            ),
            (
                "Gather budget", node("Gather"),
                [Tensor(shape: [4096, 4096], floats: []), Tensor(shape: [1 << 16], ints: Array(repeating: 0, count: 1 << 16))]
            ),
            ("Conv pads budget", node("Conv", ["pads": .ints([60000, 60000, 60000, 60000])]), [x, Tensor(shape: [1, 1, 1, 1], floats: [1])]),
            ("MaxPool pads budget", node("MaxPool", ["kernel_shape": .ints([1, 1]), "pads": .ints([60000, 60000, 60000, 60000])]), [x]),
            ("ConvTranspose strides", node("ConvTranspose", ["strides": .ints([big, big])]), [x, Tensor(shape: [1, 1, 1, 1], floats: [1])]),
            ("ConvTranspose group 0", node("ConvTranspose", ["group": .int(0)]), [x, Tensor(shape: [1, 1, 1, 1], floats: [1])]),
            (
                "ConvTranspose output_shape", node("ConvTranspose", ["output_shape": .ints([.min, 2])]),
                [x, Tensor(shape: [1, 1, 1, 1], floats: [1])]
            ),
            ("DepthToSpace blocksize", node("DepthToSpace", ["blocksize": .int(1 << 40)]), [x]),
            (
                "MaxUnpool strides", node("MaxUnpool", ["kernel_shape": .ints([2, 2]), "strides": .ints([big << 20, big << 20])]),
                [x, Tensor(shape: [1, 1, 2, 2], ints: [0, 0, 0, 0])]
            ),
            (
                "RoiAlign output", node("RoiAlign", ["output_height": .int(big), "output_width": .int(big)]),
                [x, Tensor(shape: [1, 4], floats: [0, 0, 1, 1]), Tensor(shape: [1], ints: [0])]
            ),
            (
                "RNN hidden_size", node("RNN", ["hidden_size": .int(1 << 62)]),
                [Tensor(shape: [1, 1, 1], floats: [1]), Tensor(shape: [1, 1, 1], floats: [1]), Tensor(shape: [1, 1, 1], floats: [1])]
            ),
        ]
        for (what, n, inputs) in cases {
            #expect(throws: ModelError.self, "\(what)") { try Ops.run(n, inputs, opset: 18) }
        }
    }

    /// Values that are valid but were computed with trapping arithmetic: a NaN OneHot index
    /// is out of range (all off), reflect padding as wide as the axis reflects back and forth.
    @Test func edgeValuesRun() throws {
        let node = { (op: String, a: [String: AttributeValue]) in
            ONNXNode(name: "n", opType: op, domain: "", inputs: [], outputs: ["y"], attributes: a)
        }
        let hot = try Ops.run(
            node("OneHot", [:]), [Tensor(shape: [2], floats: [.nan, 1]), Tensor(shape: [], floats: [3]), Tensor(shape: [2], floats: [0, 1])],
            opset: 13)
        #expect(hot.first?.floats == [0, 0, 0, 0, 1, 0])
        let reflect = try Ops.run(
            node("Pad", ["mode": .string("reflect")]), [Tensor(shape: [3], floats: [1, 2, 3]), Tensor(shape: [2], ints: [4, 5])], opset: 13)
        #expect(reflect.first?.floats == [1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2])
    }
}

/// Which loader a model file goes to, and what its error says (issue 21: an empty or random
/// .tflite was "not an ONNX file").
@Suite struct ModelFileKindTests {
    @Test func notATFLiteModelIsSaidSo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-kind-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var random = SystemRandomNumberGenerator()
        let noise = [0xFF] + (0..<999).map { _ in UInt8.random(in: 0...255, using: &random) }
        for (name, bytes) in [("empty.tflite", []), ("random.tflite", noise), ("random.bin", noise), ("empty", [])] as [(String, [UInt8])] {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            let e = #expect(throws: ModelError.self, "\(name)") { try Model(contentsOf: url) }
            let message = e?.description ?? ""
            #expect(
                message.contains(url.path) && message.contains("not a TFLite (FlatBuffers) model") && !message.contains("not an ONNX file"),
                "\(name): \(message)")
        }
        // An .onnx file is read as ONNX whatever it holds.
        let onnx = dir.appendingPathComponent("noise.onnx")
        try Data(noise).write(to: onnx)
        let e = #expect(throws: ModelError.self) { try Model(contentsOf: onnx) }
        #expect(e?.description.contains(onnx.path) == true && e?.description.contains("TFLite") == false, "\(String(describing: e))")
    }
}
