import Foundation
import FrameFlow
@testable import FrameFlowML
import FrameFlowTesting
import Testing

/// `NHWC.expandedDepthwise` (a 1 × 1 convolution folded into the depthwise one after it,
/// band by band) against the two ops run one after the other, which it must equal bit for
/// bit; and `TFLiteGraph.fuseExpansions` on the hand landmark model.
@Suite struct ExpandedDepthwiseTests {
    /// 3 × 3 and 5 × 5 filters at strides 1 and 2, SAME and VALID padding, channel counts
    /// with 8- and 16-lane remainders, PRELU slopes or a clamp on the expansion, the pixel and
    /// block kernels, band budgets from one row (every band moves rows) to the whole image,
    /// and the output rows split as three threads take them.
    @Test(
        arguments: [
            (3, 24, 1, true, true), (3, 40, 2, true, false), (5, 32, 1, false, true), (5, 20, 2, true, true), (3, 16, 2, false, false),
        ], KernelLevel.available)
    func matchesTheTwoOps(_ shape: (k: Int, channels: Int, stride: Int, same: Bool, pixels: Bool), level: KernelLevel) throws {
        let (k, c, s, same, pixels) = shape
        let c0 = 6
        for (h, w) in [(1, 1), (9, 7), (17, 12)] {
            let (oh, pt) = NHWC.padding(same, h, k, s, 1), (ow, pl) = NHWC.padding(same, w, k, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c0, seed: 91), w1 = GEMMTests.random(c * c0, seed: 92), b1 = GEMMTests.random(c, seed: 93)
            let wd = GEMMTests.random(k * k * c, seed: 94), bd = GEMMTests.random(c, seed: 95)
            let slopes = c % 16 == 0 ? GEMMTests.random(c, seed: 96) : nil
            let e = TFLiteGraph.Expansion(
                filter: PackedFilter(outputsByInputs: w1, outputs: c, bias: b1), activation: slopes == nil ? 3 : 0, slopes: slopes)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            // The two ops: the 1 × 1 convolution into a whole tensor, then the depthwise one.
            var expanded = [Float](repeating: .nan, count: h * w * c), want = [Float](repeating: .nan, count: oh * ow * c)
            KernelLevel.withThreadLevel(level) {
                x.withUnsafeBufferPointer { X in
                    expanded.withUnsafeMutableBufferPointer { E in
                        (slopes ?? []).withUnsafeBufferPointer { S in
                            var ep = GEMMEpilogue()
                            ep.columnSlope = S.isEmpty ? nil : S.baseAddress
                            e.filter.apply(
                                rows: h * w, a: X.baseAddress!, lda: c0, c: E.baseAddress!, ldc: c, epilogue: ep, clamp: NHWC.clampRange(e.activation)
                            )
                        }
                    }
                }
                expanded.withUnsafeBufferPointer { E in
                    wd.withUnsafeBufferPointer { W in
                        want.withUnsafeMutableBufferPointer { Y in
                            let kernel = pixels ? NHWC.depthwisePixels : NHWC.depthwiseBlocks
                            kernel(g, E.baseAddress!, W.baseAddress!, bd, Y.baseAddress!, (-1.5, 2))
                        }
                    }
                }
            }
            // Split as three threads would split it (the ranges run one after another here).
            let split = Parallelism(threads: 3) { count, grain, body in
                for r0 in stride(from: 0, to: count, by: grain) { body(r0..<min(count, r0 + grain)) }
            }
            for (bandFloats, threads) in [(1, 1), (w * c * (k + s), 1), (w * c * (k + s), 3), (1 << 20, 1)] {
                var got = [Float](repeating: .nan, count: oh * ow * c)
                Scratch.$parallelism.withValue(threads == 1 ? nil : split) {
                    KernelLevel.withThreadLevel(level) {
                        x.withUnsafeBufferPointer { X in
                            wd.withUnsafeBufferPointer { W in
                                got.withUnsafeMutableBufferPointer { Y in
                                    NHWC.expandedDepthwise(
                                        g, expansion: e, x: X.baseAddress!, c0: c0, w: W.baseAddress!, bias: bd, pixels: pixels, y: Y.baseAddress!,
                                        clamp: (-1.5, 2), bandFloats: bandFloats)
                                }
                            }
                        }
                    }
                }
                let differ = zip(got, want).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(
                    differ == 0,
                    "\(level) \(shape) \(h)×\(w), band budget \(bandFloats), \(threads) threads: \(differ) of \(got.count) outputs differ")
            }
        }
    }

    /// hand_landmark_full's 1 × 1 expansions whose outputs reach `NHWC.expansionFloats` are
    /// folded into the depthwise ops after them (its LiteRT comparison runs the fused graph).
    @Test func handModelFoldsItsLargeExpansions() throws {
        guard let m = try TFLiteBuiltinOpsTests.manifest() else { return }
        let file = try #require(m.models.first { $0.model == "hand_landmark_full" }?.file, "no hand_landmark_full run recorded")
        let path = RepositoryFiles.path(file)
        let graph = try TFLiteGraph(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
        let fused = graph.ops.filter { $0.expansion != nil }
        // 112 × 112 × 64 and the two 56 × 56 × 144 tensors.
        #expect(fused.count == 3, "\(fused.count) expansions fused")
        #expect(fused.allSatisfy { $0.code == .depthwiseConv2D })
    }
}
