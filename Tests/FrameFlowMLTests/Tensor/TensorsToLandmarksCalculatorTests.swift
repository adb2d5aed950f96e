import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// TensorsToLandmarksCalculator against MediaPipe's decoding written out by formula: the
/// dimensions per landmark, flips, normalize_z, activations, and the refused tensors and options.
@Suite struct TensorsToLandmarksCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(_ body: String, options: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "TensorsToLandmarksCalculator"
                input_stream: "TENSORS:tensors"
                \(body)
                options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] { \(options) } }
                """, registry: registry)
    }

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-5 }

    /// Two landmarks of three values in a 100 × 50 image, flipped both ways, z normalized by 0.5.
    @Test func flipsAndNormalizeZ() throws {
        let r = try runner(
            "output_stream: \"NORM_LANDMARKS:norm\"\noutput_stream: \"LANDMARKS:abs\"",
            options: "num_landmarks: 2 input_image_width: 100 input_image_height: 50 flip_horizontally: true "
                + "flip_vertically: true normalize_z: 0.5")
        r.add([Tensor(shape: [1, 6], floats: [10, 20, 4, 30, 5, -8])], tag: "TENSORS", at: 9)
        try r.run()
        let abs = try r.outputs("LANDMARKS")[0].get(LandmarkList.self).landmark
        #expect(abs.map(\.x) == [90, 70] && abs.map(\.y) == [30, 45] && abs.map(\.z) == [4, -8])
        #expect(abs.allSatisfy { $0.visibility == nil && $0.presence == nil })
        let out = r.outputs("NORM_LANDMARKS")
        #expect(out.count == 1 && out[0].timestamp == 9)
        let norm = try out[0].get(NormalizedLandmarkList.self).landmark
        // x / w, y / h, z / w / normalize_z.
        #expect(close(norm[0].x, 0.9) && close(norm[0].y, 0.6) && close(norm[0].z, 4.0 / 100 / 0.5))
        #expect(close(norm[1].x, 0.7) && close(norm[1].y, 0.9) && close(norm[1].z, -8.0 / 100 / 0.5))
    }

    /// Five values per landmark: visibility and presence through their activations; 11 values
    /// for 2 landmarks still give 5 each (integer division), the rest unread.
    @Test func dimensionsAndActivations() throws {
        var o = TensorsToLandmarksCalculator.Options()
        o.numLandmarks = 2
        o.visibilityActivation = .sigmoid
        let v: [Float] = [1, 2, 3, 0, 0.25, 6, 7, 8, 2, 0.75, 99]
        let l = try TensorsToLandmarksCalculator.decode(v, options: o).landmark
        #expect(l.count == 2 && l[1].x == 6 && l[1].y == 7 && l[1].z == 8)
        #expect(close(l[0].visibility!, 0.5) && close(l[1].visibility!, 1 / (1 + exp(-2))))
        #expect(l[0].presence == 0.25 && l[1].presence == 0.75)
        // Two values each: x and y only, z 0 and no visibility.
        o.numLandmarks = 3
        let xy = try TensorsToLandmarksCalculator.decode([1, 2, 3, 4, 5, 6, 7], options: o).landmark
        #expect(xy.map(\.x) == [1, 3, 5] && xy.map(\.y) == [2, 4, 6] && xy.allSatisfy { $0.z == 0 && $0.visibility == nil })
        o.presenceActivation = .sigmoid
        o.numLandmarks = 1
        let p = try TensorsToLandmarksCalculator.decode([0, 0, 0, 0, 0], options: o).landmark[0]
        #expect(p.presence == 0.5)
    }

    /// A FLIP_HORIZONTALLY packet overrides the option at its timestamp only.
    @Test func flipStreamOverridesTheOptionPerTimestamp() throws {
        let r = try runner(
            "input_stream: \"FLIP_HORIZONTALLY:flip\"\noutput_stream: \"LANDMARKS:abs\"",
            options: "num_landmarks: 1 input_image_width: 10 input_image_height: 10 flip_horizontally: true")
        r.add([Tensor(shape: [3], floats: [2, 3, 0])], tag: "TENSORS", at: 1)
        r.add(false, tag: "FLIP_HORIZONTALLY", at: 1)
        r.add([Tensor(shape: [3], floats: [2, 3, 0])], tag: "TENSORS", at: 2)
        try r.run()
        let xs = try r.outputs("LANDMARKS").map { try $0.get(LandmarkList.self).landmark[0].x }
        #expect(xs == [2, 8])
    }

    @Test func flipSidePacket() throws {
        let r = try runner(
            "input_side_packet: \"FLIP_VERTICALLY:flip\"\noutput_stream: \"LANDMARKS:abs\"",
            options: "num_landmarks: 1 input_image_width: 10 input_image_height: 20")
        r.setSidePacket(true, tag: "FLIP_VERTICALLY")
        r.add([Tensor(shape: [2], floats: [2, 3])], tag: "TENSORS", at: 1)
        try r.run()
        #expect(try r.outputs("LANDMARKS")[0].get(LandmarkList.self).landmark[0].y == 17)
    }

    @Test func tooFewValuesNameTheStream() throws {
        let r = try runner("output_stream: \"LANDMARKS:abs\"", options: "num_landmarks: 4")
        r.add([Tensor(shape: [3], floats: [1, 2, 3])], tag: "TENSORS", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'tensors'") && "\($0)".contains("num_landmarks") }
        let i = try runner("output_stream: \"LANDMARKS:abs\"", options: "num_landmarks: 1")
        i.add([Tensor(shape: [3], ints: [1, 2, 3])], tag: "TENSORS", at: 1)
        #expect { try i.run() } throws: { "\($0)".contains("stream 'tensors'") && "\($0)".contains("float") }
    }

    @Test(arguments: [
        ("output_stream: \"LANDMARKS:abs\"", "input_image_width: 10", "num_landmarks"),
        ("output_stream: \"NORM_LANDMARKS:n\"", "num_landmarks: 1 input_image_width: 10", "NORM_LANDMARKS"),
        ("output_stream: \"LANDMARKS:abs\"", "num_landmarks: 1 flip_vertically: true", "flip"),
    ])
    func badOptionsAreRefused(body: String, options: String, needle: String) throws {
        #expect {
            let r = try runner(body, options: options)
            r.add([Tensor(shape: [3], floats: [1, 2, 3])], tag: "TENSORS", at: 1)
            try r.run()
        } throws: { $0 is GraphError && "\($0)".contains(needle) }
    }
}

extension TensorsToLandmarksCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let node = "TensorsToLandmarksCalculator", type = "mediapipe.TensorsToLandmarksCalculatorOptions"
        let ports = "input_stream: \"TENSORS:tensors\"\noutput_stream: \"NORM_LANDMARKS:landmarks\""
        expectRefused(
            node, type, "num_landmarks: 21 input_image_width: 224 input_image_height: 224 normalize_z: 0", field: "normalize_z", ports: ports)
        expectRefused(node, type, "num_landmarks: 21 input_image_width: -5 input_image_height: 224", field: "input_image_width", ports: ports)
        expectRefused(node, type, "num_landmarks: 9223372036854775807", field: "num_landmarks", ports: ports)
        #expect(optionError(node, type, "num_landmarks: 33 input_image_width: 256 input_image_height: 256 normalize_z: 0.4", ports: ports) == nil)
    }
}
