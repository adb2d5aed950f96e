import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// RefineLandmarksFromHeatmapCalculator: the windowed centre of mass of the sigmoid heatmap,
/// computed here from its definition, the edges, the thresholds, presence and visibility, and
/// the heatmaps it refuses.
@Suite struct RefineLandmarksFromHeatmapCalculatorTests {
    let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    func runner(_ options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "RefineLandmarksFromHeatmapCalculator"
                input_stream: "NORM_LANDMARKS:lm"
                input_stream: "TENSORS:hm"
                output_stream: "NORM_LANDMARKS:out"
                \(options.isEmpty ? "" : "options { [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] { \(options) } }")
                """, registry: registry)
    }

    /// A deterministic heatmap of `h`×`w`×`c` values in [−6, 6].
    func heatmap(_ h: Int, _ w: Int, _ c: Int) -> [Float] {
        (0..<(h * w * c)).map { k in Float((k * 7919) % 1201) / 100 - 6 }
    }

    /// The refined (x, y) and the window's largest confidence, from the definition.
    func reference(_ x: Double, _ y: Double, channel: Int, values: [Float], h: Int, w: Int, c: Int, kernel: Int) -> (Double, Double, Double)? {
        let col = Int(x * Double(w)), row = Int(y * Double(h))
        guard (0..<w).contains(col), (0..<h).contains(row) else { return nil }
        var s = 0.0, sc = 0.0, sr = 0.0, m = 0.0
        let o = (kernel - 1) / 2
        for r in max(0, row - o)...min(h - 1, row + o) {
            for cc in max(0, col - o)...min(w - 1, col + o) {
                let p = 1 / (1 + exp(-Double(values[(r * w + cc) * c + channel])))
                s += p
                sc += Double(cc) * p
                sr += Double(r) * p
                m = max(m, p)
            }
        }
        return (sc / Double(w) / s, sr / Double(h) / s, m)
    }

    @Test func centreOfMassInTheWindow() throws {
        let (h, w, c) = (16, 12, 5)
        let values = heatmap(h, w, c)
        // Inside, at two corners (clipped windows), and one outside the heatmap.
        let points: [(Double, Double)] = [(0.5, 0.5), (0.01, 0.02), (0.99, 0.97), (0.3, 0.8), (1.2, 0.5)]
        let list = NormalizedLandmarkList(points.map { NormalizedLandmark(x: $0.0, y: $0.1, z: 0.25, visibility: 0.9, presence: 0.95) })
        let r = try runner("kernel_size: 5 min_confidence_to_refine: 0.0 refine_presence: true refine_visibility: true")
        r.add(list, tag: "NORM_LANDMARKS", at: 1)
        r.add([Tensor(shape: [1, h, w, c], floats: values)], tag: "TENSORS", at: 1)
        try r.run()
        let out = try #require(try r.outputs("NORM_LANDMARKS").first?.get(NormalizedLandmarkList.self))
        for (i, p) in points.enumerated() {
            let got = out.landmark[i]
            #expect(got.z == 0.25)
            guard let (x, y, m) = reference(p.0, p.1, channel: i, values: values, h: h, w: w, c: c, kernel: 5) else {
                #expect(got == list.landmark[i], "landmark \(i) outside the heatmap stays")
                continue
            }
            #expect(abs(got.x - x) < 1e-5 && abs(got.y - y) < 1e-5, "landmark \(i): \(got.x), \(got.y) vs \(x), \(y)")
            #expect(abs(got.presence! - min(0.95, m)) < 1e-6 && abs(got.visibility! - min(0.9, m)) < 1e-6)
        }
    }

    /// Below min_confidence_to_refine the position stays; presence and visibility are refined
    /// only when asked and only where the landmark has them.
    @Test func thresholdsAndOptions() throws {
        let (h, w, c) = (8, 8, 2)
        let values = [Float](repeating: -3, count: h * w * c)  // sigmoid(−3) ≈ 0.047
        let list = NormalizedLandmarkList([
            NormalizedLandmark(x: 0.3, y: 0.3, visibility: 0.9, presence: 0.8), NormalizedLandmark(x: 0.6, y: 0.6),
        ])
        let r = try runner("refine_presence: true")
        r.add(list, tag: "NORM_LANDMARKS", at: 1)
        r.add([Tensor(shape: [h, w, c], floats: values)], tag: "TENSORS", at: 1)
        try r.run()
        let out = try #require(try r.outputs("NORM_LANDMARKS").first?.get(NormalizedLandmarkList.self))
        let m = Double(1 / (1 + exp(Float(3))))
        #expect(out.landmark[0].x == 0.3 && out.landmark[0].y == 0.3 && out.landmark[0].visibility == 0.9)
        #expect(abs(out.landmark[0].presence! - m) < 1e-7)
        #expect(out.landmark[1] == list.landmark[1])
    }

    /// Without a heatmap the landmarks pass; without landmarks nothing comes out.
    @Test func missingInputs() throws {
        let r = try runner()
        let list = NormalizedLandmarkList([NormalizedLandmark(x: 0.3, y: 0.3)])
        r.add(list, tag: "NORM_LANDMARKS", at: 1)
        r.add([Tensor(shape: [1, 2, 2, 1], floats: [0, 0, 0, 0])], tag: "TENSORS", at: 2)
        try r.run()
        let out = r.outputs("NORM_LANDMARKS")
        #expect(out.map(\.timestamp) == [1])
        #expect(try out.map { try $0.get(NormalizedLandmarkList.self) } == [list])
    }

    @Test(arguments: [
        ([2, 4, 4, 1], "B = 1"), ([4, 4], "dimensions"), ([4, 4, 3], "3 channels for 1 landmarks"),
    ])
    func badHeatmapsNameTheStream(shape: [Int], needle: String) throws {
        let r = try runner()
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0.3, y: 0.3)]), tag: "NORM_LANDMARKS", at: 1)
        r.add([Tensor(shape: shape, floats: [Float](repeating: 0, count: shape.reduce(1, *)))], tag: "TENSORS", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'hm'") && "\($0)".contains(needle) }
    }

    @Test func emptyTensorVectorNamesTheStream() throws {
        let r = try runner()
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0.3, y: 0.3)]), tag: "NORM_LANDMARKS", at: 1)
        r.add([Tensor](), tag: "TENSORS", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'hm'") && "\($0)".contains("empty") }
    }

    @Test func zeroKernelIsRefused() throws {
        #expect {
            let r = try runner("kernel_size: 0")
            r.add(NormalizedLandmarkList(), tag: "NORM_LANDMARKS", at: 1)
            try r.run()
        } throws: { "\($0)".contains("kernel_size") }
    }
}

extension RefineLandmarksFromHeatmapCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let node = "RefineLandmarksFromHeatmapCalculator", type = "mediapipe.RefineLandmarksFromHeatmapCalculatorOptions"
        let ports = "input_stream: \"NORM_LANDMARKS:landmarks\"\ninput_stream: \"TENSORS:heatmap\"\noutput_stream: \"NORM_LANDMARKS:refined\""
        expectRefused(node, type, "kernel_size: 9223372036854775807", field: "kernel_size", ports: ports)
        expectRefused(node, type, "min_confidence_to_refine: 1e30", field: "min_confidence_to_refine", ports: ports)
        #expect(optionError(node, type, "kernel_size: 7 min_confidence_to_refine: 0.5", ports: ports) == nil)
    }
}
