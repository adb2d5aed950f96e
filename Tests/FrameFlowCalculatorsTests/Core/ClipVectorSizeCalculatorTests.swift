import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's ClipVectorSizeCalculator: the first max_vec_size elements; the side packet wins
/// over the option; sizes below 1 refused.
@Suite struct ClipVectorSizeCalculatorTests {
    func rects(_ n: Int) -> [NormalizedRect] {
        (0..<n).map { NormalizedRect(xCenter: Double($0), yCenter: 0, width: 1, height: 1) }
    }

    func runner(_ options: String, side: Bool = false) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                node {
                  calculator: "ClipNormalizedRectVectorSizeCalculator"
                  input_stream: "in"
                  output_stream: "out"
                  \(side ? "input_side_packet: \"size\"" : "")
                  options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] { \(options) } }
                }
                """, registry: CalculatorRegistry.standard)
    }

    @Test func keepsTheFirstElements() throws {
        let r = try runner("max_vec_size: 2")
        r.add(rects(5), at: 1)
        r.add(rects(1), at: 2)
        r.add(rects(0), at: 3)
        try r.run()
        #expect(try r.outputs().map { try $0.get([NormalizedRect].self).map(\.xCenter) } == [[0, 1], [0], []])
        #expect(r.outputs().map(\.timestamp) == [1, 2, 3])
    }

    @Test func defaultsToOneAndTheSidePacketWins() throws {
        let byDefault = try runner("")
        byDefault.add(rects(3), at: 0)
        try byDefault.run()
        #expect(try byDefault.outputs().map { try $0.get([NormalizedRect].self).count } == [1])

        let bySide = try runner("max_vec_size: 1", side: true)
        bySide.setSidePacket(3)
        bySide.add(rects(5), at: 0)
        try bySide.run()
        #expect(try bySide.outputs().map { try $0.get([NormalizedRect].self).count } == [3])
    }

    @Test func sizesBelowOneAreRefused() throws {
        #expect { try runner("max_vec_size: 0").run() } throws: { "\($0)".contains("max_vec_size") }
        let bySide = try runner("", side: true)
        bySide.setSidePacket(0)
        bySide.add(rects(1), at: 0)
        #expect { try bySide.run() } throws: { "\($0)".contains("max_vec_size") }
    }

    @Test func detectionsClipToo() throws {
        let r = try CalculatorRunner(
            ClipDetectionVectorSizeCalculator.self, options: .init(maxVecSize: 1), inputs: ["in"], outputs: ["out"])
        let d = (0..<2).map { Detection(relativeBox: Rect(x: 0, y: 0, width: 1, height: 1), score: Double($0)) }
        r.add(d, at: 0)
        try r.run()
        #expect(try r.outputs().map { try $0.get([Detection].self) } == [[d[0]]])
    }
}
