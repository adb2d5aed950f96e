import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// InverseMatrixCalculator: M·M⁻¹ = I on ImageToTensor-like and random matrices, the inverse of
/// a known matrix written out, and singular matrices refused naming the stream.
@Suite struct InverseMatrixCalculatorTests {
    func runner() throws -> CalculatorRunner {
        try CalculatorRunner(
            node: "calculator: \"InverseMatrixCalculator\"\ninput_stream: \"MATRIX:m\"\noutput_stream: \"MATRIX:inv\"", registry: .standard)
    }

    /// The product of `a` and `b` (row-major), in double.
    func product(_ a: [Float], _ b: [Float]) -> [Double] {
        (0..<16).map { k in (0..<4).reduce(0.0) { $0 + Double(a[k / 4 * 4 + $1]) * Double(b[$1 * 4 + k % 4]) } }
    }

    @Test func productIsIdentity() throws {
        var rng = SystemRandomNumberGenerator()
        var matrices = [
            ProjectionMatrix.rotatedSubRect(
                centerX: 300, centerY: 200, width: 256, height: 256, rotation: 0.3, imageWidth: 640, imageHeight: 480),
            ProjectionMatrix.rotatedSubRect(
                centerX: 100, centerY: 300, width: 90, height: 120, rotation: -2.5, imageWidth: 480, imageHeight: 640,
                flipHorizontally: true),
        ]
        for _ in 0..<20 { matrices.append(ProjectionMatrix((0..<16).map { _ in Float.random(in: -2...2, using: &rng) })!) }
        let r = try runner()
        for (t, m) in matrices.enumerated() { r.add(m, tag: "MATRIX", at: Timestamp(Int64(t))) }
        try r.run()
        let out = try r.outputs("MATRIX").map { try $0.get(ProjectionMatrix.self) }
        #expect(out.count == matrices.count)
        for (m, inv) in zip(matrices, out) {
            let p = product(m.values, inv.values)
            let scale = m.values.map { Double(abs($0)) }.max()! * inv.values.map { Double(abs($0)) }.max()!
            for k in 0..<16 { #expect(abs(p[k] - (k % 5 == 0 ? 1 : 0)) < 1e-6 * max(1, scale), "\(m.values) entry \(k): \(p[k])") }
        }
    }

    /// A scale-and-shift matrix: the inverse is written out by hand.
    @Test func knownInverse() throws {
        let m = ProjectionMatrix([2, 0, 0, 1, 0, 4, 0, -2, 0, 0, 0.5, 0, 0, 0, 0, 1])!
        #expect(InverseMatrixCalculator.inverse(of: m)?.values == [0.5, 0, 0, -0.5, 0, 0.25, 0, 0.5, 0, 0, 2, 0, 0, 0, 0, 1])
    }

    @Test func singularMatrixNamesTheStream() throws {
        let r = try runner()
        r.add(ProjectionMatrix([1, 2, 0, 0, 2, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])!, tag: "MATRIX", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'm'") && "\($0)".contains("no inverse") }
    }
}
