import Foundation
import FrameFlow
import Testing

@testable import FrameFlowInference

/// The run-copying Slice (and Split built on it) and the row-wise Softmax, against the
/// index formula and Foundation's exp written out here.
@Suite struct SliceSoftmaxRowsTests {
    static func node(_ op: String, _ attributes: [String: AttributeValue] = [:], outputs: Int = 1)
        -> ONNXNode
    {
        ONNXNode(
            name: "", opType: op, domain: "", inputs: [], outputs: (0..<outputs).map { "y\($0)" },
            attributes: attributes)
    }

    /// x[a, b, c, d] = a·1000 + b·100 + c·10 + d: each value names its own position.
    static let x: Tensor = {
        var v: [Float] = []
        for a in 0..<2 {
            for b in 0..<3 {
                for c in 0..<4 {
                    for d in 0..<5 {
                        let value: Int = a * 1000 + b * 100 + c * 10 + d
                        v.append(Float(value))
                    }
                }
            }
        }
        return Tensor(shape: [2, 3, 4, 5], floats: v)
    }()

    static let sliceCases: [([Int], [Int])] = [
        ([0, 1, 0, 0], [2, 3, 4, 5]), ([1, 0, 0, 0], [2, 3, 4, 5]), ([0, 0, 1, 0], [2, 3, 3, 5]),
        ([0, 0, 0, 2], [2, 3, 4, 4]),
        ([0, 1, 1, 1], [1, 2, 3, 4]), ([0, 0, 0, 0], [2, 3, 4, 5]), ([0, -2, 0, 0], [2, 99, 4, 5]),
    ]

    @Test(arguments: sliceCases)
    func unitStepSlicesCopyTheRightValues(starts: [Int], ends: [Int]) throws {
        let ints = { (v: [Int]) in Tensor(shape: [v.count], ints: v.map(Int64.init)) }
        let y = try Ops.slice(Self.node("Slice"), [Self.x, ints(starts), ints(ends)], opset: 13)
        let lo: [Int] = starts.enumerated().map { (k: Int, v: Int) -> Int in
            v < 0 ? v + Self.x.shape[k] : v
        }
        let hi: [Int] = ends.enumerated().map { (k: Int, v: Int) -> Int in min(v, Self.x.shape[k]) }
        let wantShape: [Int] = zip(lo, hi).map { (l: Int, h: Int) -> Int in h - l }
        #expect(y.shape == wantShape)
        var want: [Float] = []
        for a in lo[0]..<hi[0] {
            for b in lo[1]..<hi[1] {
                for c in lo[2]..<hi[2] {
                    for d in lo[3]..<hi[3] {
                        let value: Int = a * 1000 + b * 100 + c * 10 + d
                        want.append(Float(value))
                    }
                }
            }
        }
        #expect(y.floats == want)
    }

    @Test func splitHalvesTheChannels() throws {
        let parts = try Ops.split(
            Self.node("Split", ["axis": .int(1)], outputs: 2),
            [Self.x, Tensor(shape: [2], ints: [1, 2])], opset: 13)
        #expect(parts.map { (t: Tensor) in t.shape } == [[2, 1, 4, 5], [2, 2, 4, 5]])
        #expect(
            parts[0].floats.allSatisfy { Int($0) / 100 % 10 == 0 }
                && parts[1].floats.allSatisfy { Int($0) / 100 % 10 != 0 })
        #expect(parts[0].floats.count + parts[1].floats.count == 120)
    }

    @Test(arguments: [1, 3, -1])
    func softmaxOverAnAxis(axis: Int) throws {
        let shape = [2, 16, 3, 7]
        let n = shape.reduce(1, *)
        let v = (0..<n).map { Float(sin(Double($0) * 0.37) * 6) }
        let y = try Ops.softmax(
            Tensor(shape: shape, floats: v), Self.node("Softmax", ["axis": .int(Int64(axis))]), opset: 13,
            log: false)
        let a = axis < 0 ? axis + 4 : axis
        let len = shape[a]
        let inner = shape[(a + 1)...].reduce(1, *)
        let outer = n / (len * inner)
        for o in 0..<outer {
            for i in 0..<inner {
                let idx = (0..<len).map { (o * len + $0) * inner + i }
                let m = idx.map { Double(v[$0]) }.max()!
                let sum = idx.reduce(0.0) { $0 + Foundation.exp(Double(v[$1]) - m) }
                for j in idx {
                    #expect(abs(Double(y.floats[j]) - Foundation.exp(Double(v[j]) - m) / sum) < 1e-6)
                }
            }
        }
    }
}
