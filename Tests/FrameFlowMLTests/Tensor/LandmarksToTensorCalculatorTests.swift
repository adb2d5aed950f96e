import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// LandmarksToTensorCalculator against the cases of MediaPipe's C++ test
/// (landmarks_to_tensor_calculator_test.cc: the same landmarks, shapes and values), and the
/// ports and options it refuses.
@Suite struct LandmarksToTensorCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(_ ports: String, _ options: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "LandmarksToTensorCalculator"
                \(ports)
                output_stream: "TENSORS:tensors"
                options { [mediapipe.LandmarksToTensorCalculatorOptions.ext] { \(options) } }
                """, registry: registry)
    }

    let absolute = LandmarkList([
        Landmark(x: 1, y: 2, z: 3, visibility: 4, presence: 5), Landmark(x: 6, y: 7, z: 8, visibility: 9, presence: 10),
    ])

    func tensor(_ r: CalculatorRunner) throws -> Tensor {
        let out = r.outputs("TENSORS")
        try #require(out.count == 1)
        let tensors = try out[0].get([Tensor].self)
        try #require(tensors.count == 1)
        return tensors[0]
    }

    @Test func allAttributes() throws {
        let r = try runner("input_stream: \"LANDMARKS:landmarks\"", "attributes: [X, Y, Z, VISIBILITY, PRESENCE]")
        r.add(absolute, tag: "LANDMARKS", at: 0)
        try r.run()
        let t = try tensor(r)
        #expect(t.shape == [1, 2, 5])
        #expect(t.floats == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }

    @Test func xyzAndFlattened() throws {
        for (flatten, shape) in [(false, [1, 2, 3]), (true, [1, 6])] {
            let r = try runner("input_stream: \"LANDMARKS:landmarks\"", "attributes: [X, Y, Z] flatten: \(flatten)")
            r.add(absolute, tag: "LANDMARKS", at: 0)
            try r.run()
            let t = try tensor(r)
            #expect(t.shape == shape)
            #expect(t.floats == [1, 2, 3, 6, 7, 8])
        }
    }

    /// X and Z × width, Y × height; visibility and presence as they are.
    @Test func normalizedLandmarksInPixels() throws {
        let r = try runner(
            "input_stream: \"NORM_LANDMARKS:landmarks\"\ninput_stream: \"IMAGE_SIZE:size\"", "attributes: [X, Y, Z, VISIBILITY, PRESENCE]")
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0.1, y: 0.5, z: 1, visibility: 4, presence: 5)]), tag: "NORM_LANDMARKS", at: 3)
        r.add(ImageSize(width: 200, height: 100), tag: "IMAGE_SIZE", at: 3)
        try r.run()
        let t = try tensor(r)
        #expect(t.shape == [1, 1, 5])
        #expect(zip(t.floats, [20, 50, 200, 4, 5] as [Float]).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(r.outputs("TENSORS")[0].timestamp == 3)
    }

    /// MediaPipe's proto fields read 0 when unset; FrameFlow's absent values do the same.
    @Test func absentVisibilityAndPresenceReadZero() throws {
        let r = try runner("input_stream: \"LANDMARKS:landmarks\"", "attributes: [PRESENCE, X, VISIBILITY]")
        r.add(LandmarkList([Landmark(x: 7, y: 1)]), tag: "LANDMARKS", at: 0)
        try r.run()
        #expect(try tensor(r).floats == [0, 7, 0])
    }

    @Test func normalizedLandmarksNeedAnImageSizePacket() throws {
        let r = try runner("input_stream: \"NORM_LANDMARKS:landmarks\"\ninput_stream: \"IMAGE_SIZE:size\"", "attributes: [X]")
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0.1, y: 0.5)]), tag: "NORM_LANDMARKS", at: 0)
        #expect { try r.run() } throws: { e in "\(e)".contains("IMAGE_SIZE has no packet") }
    }

    @Test(arguments: [
        "input_stream: \"LANDMARKS:a\"\ninput_stream: \"NORM_LANDMARKS:b\"\ninput_stream: \"IMAGE_SIZE:s\"",
        "input_stream: \"NORM_LANDMARKS:b\"",
        "input_stream: \"LANDMARKS:a\"\ninput_stream: \"IMAGE_SIZE:s\"",
    ])
    func wrongPortsAreRefused(ports: String) throws {
        #expect(throws: GraphError.self) {
            let r = try runner(ports, "attributes: [X]")
            try r.run()
        }
    }

    @Test(arguments: ["", "flatten: true", "attributes: [W]", "attributes: 1e308", "attributes: nan", "flatten: -1"])
    func badOptionsAreRefused(options: String) throws {
        #expect(throws: (any Error).self) {
            let r = try runner("input_stream: \"LANDMARKS:landmarks\"", options)
            r.add(LandmarkList([Landmark(x: 7, y: 1)]), tag: "LANDMARKS", at: 0)
            try r.run()
        }
    }

    @Test func optionsFromTheBinarySchema() {
        #expect(LandmarksToTensorCalculator.Options.protoSchema?.extensionNumber == 394_810_235)
    }
}
