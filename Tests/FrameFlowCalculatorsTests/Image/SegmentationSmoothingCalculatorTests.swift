import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// SegmentationSmoothingCalculator: MediaPipe's uncertainty-weighted mix, written out here,
/// checked against the entropy it approximates, and its pass-through and refusals.
@Suite struct SegmentationSmoothingCalculatorTests {
    func runner(ratio: Double?) throws -> CalculatorRunner {
        let options = ratio.map { "options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] { combine_with_previous_ratio: \($0) } }" }
        return try CalculatorRunner(
            node: """
                calculator: "SegmentationSmoothingCalculator"
                input_stream: "MASK:mask"
                input_stream: "MASK_PREVIOUS:previous"
                output_stream: "MASK_SMOOTHED:smoothed"
                \(options ?? "")
                """, registry: .standard)
    }

    /// MediaPipe's polynomial for the uncertainty of a mask value p.
    static func uncertainty(_ p: Double) -> Double {
        let x = (p - 0.5) * (p - 0.5)
        let poly = x * (5.68842 + x * (-0.748699 + x * (-57.8051 + x * (291.309 + x * -624.717))))
        return 1 - min(1, poly)
    }

    @Test func uncertaintyIsTheSquaredEntropy() {
        // What the polynomial stands for: H(p)², H the binary entropy in bits.
        for p in stride(from: 0.02, through: 0.98, by: 0.02) {
            let h = -(p * log2(p) + (1 - p) * log2(1 - p))
            #expect(abs(Self.uncertainty(p) - h * h) < 0.005, "p = \(p)")
        }
        #expect(Self.uncertainty(0.5) == 1)
    }

    @Test(arguments: [0.0, 0.7, 1.0]) func mixesByUncertaintyTimesRatio(ratio: Double) throws {
        let current: [Float] = [0, 0.5, 0.3, 0.9, 1, 0.6, 0.45, 0.1]
        let previous: [Float] = [1, 0, 0.8, 0.2, 0, 1, 0.9, 0.6]
        let r = try runner(ratio: ratio)
        r.add(try ImageFrame.grayFloat(width: 4, height: 2, values: current), tag: "MASK", at: 1)
        r.add(try ImageFrame.grayFloat(width: 4, height: 2, values: previous), tag: "MASK_PREVIOUS", at: 1)
        try r.run()
        let out = r.outputs("MASK_SMOOTHED")
        try #require(out.count == 1 && out[0].timestamp == 1)
        let got = try out[0].get(ImageFrame.self).grayFloatValues()
        var want: [Double] = []
        for (p, q) in zip(current, previous) {
            let (p, q) = (Double(p), Double(q))
            want.append(p + (q - p) * Self.uncertainty(p) * ratio)
        }
        let worst = zip(got, want).map { abs(Double($0) - $1) }.max() ?? .infinity
        #expect(worst < 2e-5, "\(got) vs \(want)")
        if ratio == 1 { #expect(got[1] == 0, "p = 0.5 at ratio 1 takes the previous value") }
        if ratio == 0 { #expect(got == current) }
    }

    @Test func passesTheMaskThroughWithoutAPreviousOne() throws {
        let r = try runner(ratio: 0.9)
        let mask = try ImageFrame.grayFloat(width: 2, height: 1, values: [0.5, 0.2])
        r.add(mask, tag: "MASK", at: 3)
        r.add(mask, tag: "MASK_PREVIOUS", at: 4)
        try r.run()
        let out = r.outputs("MASK_SMOOTHED")
        #expect(out.map(\.timestamp) == [3])
        #expect(try out.first?.get(ImageFrame.self).grayFloatValues() == [0.5, 0.2])
    }

    @Test func refusesMasksOfAnotherSizeOrFormat() throws {
        let r = try runner(ratio: 0.5)
        r.add(try ImageFrame.grayFloat(width: 2, height: 1, values: [0.5, 0.2]), tag: "MASK", at: 0)
        r.add(try ImageFrame.grayFloat(width: 1, height: 2, values: [0.5, 0.2]), tag: "MASK_PREVIOUS", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'previous'") && "\($0)".contains("MASK_PREVIOUS is 1×2") }

        let gray = try runner(ratio: 0.5)
        let g = try TestImages.random(width: 2, height: 2, format: .gray8)
        gray.add(g, tag: "MASK", at: 0)
        gray.add(g, tag: "MASK_PREVIOUS", at: 0)
        #expect { try gray.run() } throws: { "\($0)".contains("one-channel float image") }
    }
}
