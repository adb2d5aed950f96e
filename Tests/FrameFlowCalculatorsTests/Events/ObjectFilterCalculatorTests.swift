import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite struct ObjectFilterCalculatorTests {
    func filter(_ settings: String, _ detections: [Detection], size: ImageSize? = nil) throws -> [Detection] {
        let runner = try CalculatorRunner(
            ObjectFilterCalculator.self, options: try EventTracks.settings(settings),
            inputs: size == nil ? ["DETECTIONS:d"] : ["DETECTIONS:d", "IMAGE_SIZE:s"], outputs: ["DETECTIONS:out"])
        runner.add(detections, tag: "DETECTIONS", at: 0)
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        try runner.run()
        return try runner.outputs("DETECTIONS")[0].get([Detection].self)
    }

    func box(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ score: Double = 0.9, _ label: String = "person") -> Detection {
        Detection(pixelBox: .init(xmin: x, ymin: y, width: w, height: h), score: score, label: label)
    }

    /// Each limit on its own, with the expected survivors worked out from the boxes' sizes.
    @Test func limitsPerLabel() throws {
        let dets = [
            box(0, 0, 10, 10),  // area 100, ratio 1
            box(0, 0, 20, 40),  // area 800, ratio 0.5
            box(0, 0, 40, 20, 0.3),  // area 800, ratio 2, low score
            box(0, 0, 100, 100, 0.9, "car"),  // area 10000
        ]
        func kept(_ s: String) throws -> [Int] { try filter(s, dets).map { d in dets.firstIndex(of: d)! } }
        #expect(try kept("filter { label: \"person\" min_area: 500 }") == [1, 2, 3])
        #expect(try kept("filter { label: \"person\" max_area: 500 }") == [0, 3])
        #expect(try kept("filter { label: \"person\" min_score: 0.5 }") == [0, 1, 3])
        #expect(try kept("filter { label: \"person\" max_ratio: 0.9 }") == [1, 3])
        #expect(try kept("filter { label: \"person\" min_ratio: 1.5 }") == [2, 3])
        // The empty label is every label without its own filter.
        #expect(try kept("filter { min_area: 20000 } filter { label: \"person\" min_area: 0 }") == [0, 1, 2])
        #expect(try kept("track: \"car\"") == [3])
        #expect(try kept("") == [0, 1, 2, 3])
    }

    /// A mask drops detections whose bottom centre is inside it; normalized masks and relative
    /// boxes are measured in pixels with IMAGE_SIZE.
    @Test func masks() throws {
        // The top half of a 200 × 100 frame.
        let mask = "mask { point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 0.5 } point { x: 0 y: 0.5 } }"
        let rel = [
            Detection(relativeBox: Rect(x: 0.1, y: 0.1, width: 0.1, height: 0.3), score: 0.9, label: "person"),  // bottom 0.4: masked
            Detection(relativeBox: Rect(x: 0.1, y: 0.1, width: 0.1, height: 0.5), score: 0.9, label: "person"),  // bottom 0.6: kept
        ]
        #expect(try filter(mask, rel) == [rel[1]])
        #expect(try filter(mask, rel, size: ImageSize(width: 200, height: 100)) == [rel[1]])
        // Pixel boxes: bottom centre y 40 (masked) and 60 (kept) in a 100-row frame.
        let px = [box(10, 0, 10, 40), box(10, 0, 10, 60)]
        #expect(try filter(mask, px, size: ImageSize(width: 200, height: 100)) == [px[1]])
        // Pixel boxes need the frame size for a normalized mask.
        #expect(throws: GraphError.self) { try filter(mask, px) }
    }
}
