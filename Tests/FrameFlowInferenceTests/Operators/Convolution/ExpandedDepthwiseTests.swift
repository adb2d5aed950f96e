import Foundation
import FrameFlow
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// `NHWC.bandedDepthwise` (1 × 1 convolutions folded into the depthwise one between them,
/// band by band) against the ops run one after the other, which it must equal bit for bit;
/// and `TFLiteGraph.fuseExpansions` / `fuseProjections` on MediaPipe's hand and palm models.
@Suite struct ExpandedDepthwiseTests {
    enum Stages: CaseIterable { case expansion, projection, both }

    /// 3 × 3 and 5 × 5 filters at strides 1 and 2, SAME and VALID padding, channel counts
    /// with 8- and 16-lane remainders, PRELU slopes or a clamp on the 1 × 1 convolutions, a
    /// residual on the projection, the pixel and block kernels, band budgets from one row
    /// (every band moves rows) to the whole image, and the output rows split as three
    /// threads take them.
    @Test(
        arguments: [
            (3, 24, 1, true, true), (3, 40, 2, true, false), (5, 32, 1, false, true), (5, 20, 2, true, true), (3, 16, 2, false, false),
        ], Stages.allCases)
    func matchesTheOpsInTurn(_ shape: (k: Int, channels: Int, stride: Int, same: Bool, pixels: Bool), stages: Stages) {
        for level in KernelLevel.available { check(shape, stages: stages, level: level) }
    }

    func check(_ shape: (k: Int, channels: Int, stride: Int, same: Bool, pixels: Bool), stages: Stages, level: KernelLevel) {
        let (k, c, s, same, pixels) = shape
        let expands = stages != .projection, projects = stages != .expansion
        let c0 = expands ? 6 : c, oc = 10, rc = 7
        for (h, w) in [(1, 1), (9, 7), (17, 12)] {
            let (oh, pt) = NHWC.padding(same, h, k, s, 1), (ow, pl) = NHWC.padding(same, w, k, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c0, seed: 91), w1 = GEMMTests.random(c * c0, seed: 92), b1 = GEMMTests.random(c, seed: 93)
            let wd = GEMMTests.random(k * k * c, seed: 94), bd = GEMMTests.random(c, seed: 95)
            let w2 = GEMMTests.random(oc * c, seed: 96), b2 = GEMMTests.random(oc, seed: 97), residual = GEMMTests.random(oh * ow * rc, seed: 98)
            let slopes = c % 16 == 0 ? GEMMTests.random(c, seed: 99) : nil
            let slopes2 = GEMMTests.random(16, seed: 100)
            let e = TFLiteGraph.Expansion(
                filter: PackedFilter(outputsByInputs: w1, outputs: c, bias: b1), activation: slopes == nil ? 3 : 0, slopes: slopes)
            let projectionFilter = PackedFilter(outputsByInputs: w2, outputs: oc, bias: b2)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            // The ops in turn: the expansion into a whole tensor, the depthwise one, the projection.
            var expanded = x, middle = [Float](repeating: .nan, count: oh * ow * c), want = [Float](repeating: .nan, count: oh * ow * oc)
            residual.withUnsafeBufferPointer { R in
                slopes2.withUnsafeBufferPointer { S2 in
                    let projection = NHWC.BandProjection(
                        filter: projectionFilter, slopes: S2.baseAddress, clamp: (-1, 1.5), residual: R.baseAddress, residualChannels: rc)
                    KernelLevel.withThreadLevel(level) {
                        if expands {
                            expanded = [Float](repeating: .nan, count: h * w * c)
                            x.withUnsafeBufferPointer { X in
                                expanded.withUnsafeMutableBufferPointer { E in
                                    (slopes ?? []).withUnsafeBufferPointer { S in
                                        var ep = GEMMEpilogue()
                                        ep.columnSlope = S.isEmpty ? nil : S.baseAddress
                                        e.filter.apply(
                                            rows: h * w, a: X.baseAddress!, lda: c0, c: E.baseAddress!, ldc: c, epilogue: ep,
                                            clamp: NHWC.clampRange(e.activation))
                                    }
                                }
                            }
                        }
                        expanded.withUnsafeBufferPointer { E in
                            wd.withUnsafeBufferPointer { W in
                                middle.withUnsafeMutableBufferPointer { Y in
                                    let kernel = pixels ? NHWC.depthwisePixels : NHWC.depthwiseBlocks
                                    kernel(g, E.baseAddress!, W.baseAddress!, bd, Y.baseAddress!, (-1.5, 2))
                                }
                            }
                        }
                        if projects {
                            middle.withUnsafeBufferPointer { M in
                                want.withUnsafeMutableBufferPointer { Y in
                                    var ep = GEMMEpilogue()
                                    ep.columnSlope = projection.slopes
                                    (ep.residual, ep.residualStride, ep.residualColumns) = (projection.residual, rc, rc)
                                    projectionFilter.apply(
                                        rows: oh * ow, a: M.baseAddress!, lda: c, c: Y.baseAddress!, ldc: oc, epilogue: ep, clamp: projection.clamp)
                                }
                            }
                        } else {
                            want = middle
                        }
                    }
                    // Split as three threads would split it (the ranges run one after another here).
                    let split = Parallelism(threads: 3) { count, grain, body in
                        for r0 in stride(from: 0, to: count, by: grain) { body(r0..<min(count, r0 + grain)) }
                    }
                    for (bandFloats, threads) in [(1, 1), (w * c * (k + s), 1), (w * c * (k + s), 3), (1 << 20, 1)] {
                        var got = [Float](repeating: .nan, count: want.count)
                        Scratch.$parallelism.withValue(threads == 1 ? nil : split) {
                            KernelLevel.withThreadLevel(level) {
                                x.withUnsafeBufferPointer { X in
                                    wd.withUnsafeBufferPointer { W in
                                        got.withUnsafeMutableBufferPointer { Y in
                                            NHWC.bandedDepthwise(
                                                g, expansion: expands ? e : nil, projection: projects ? projection : nil, x: X.baseAddress!, c0: c0,
                                                w: W.baseAddress!, bias: bd, pixels: pixels, y: Y.baseAddress!, clamp: (-1.5, 2),
                                                bandFloats: bandFloats)
                                        }
                                    }
                                }
                            }
                        }
                        let differ = zip(got, want).filter { $0.bitPattern != $1.bitPattern }.count
                        #expect(
                            differ == 0,
                            "\(level) \(stages) \(shape) \(h)×\(w), band budget \(bandFloats), \(threads) threads: \(differ) of \(got.count) differ")
                    }
                }
            }
        }
    }

    /// hand_landmark_full's and palm_detection_full's 1 × 1 convolutions beside depthwise
    /// ones whose tensors reach `NHWC.expansionFloats` are folded in (their LiteRT
    /// comparisons run the fused graphs): the hand model's expansions to 112 × 112 × 64 and
    /// twice 56 × 56 × 144, its projections from 112 × 112 × 24 and 56 × 56 × 144; the palm
    /// detector's projections from its four 96 × 96 × 32 depthwise outputs.
    @Test(arguments: [("hand_landmark_full", 3, 2), ("palm_detection_full", 0, 4)])
    func modelsFoldTheirLargeBlocks(_ model: (name: String, expansions: Int, projections: Int)) throws {
        guard let m = try TFLiteBuiltinOpsTests.manifest() else { return }
        let file = try #require(m.models.first { $0.model == model.name }?.file, "no \(model.name) run recorded")
        let path = RepositoryFiles.path(file)
        let graph = try TFLiteGraph(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
        #expect(graph.ops.filter { $0.expansion != nil }.count == model.expansions, "\(model.name): expansions fused")
        #expect(graph.ops.filter { $0.projection != nil }.count == model.projections, "\(model.name): projections fused")
    }
}
