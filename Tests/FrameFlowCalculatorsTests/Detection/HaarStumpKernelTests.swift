import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowCalculators

/// The stump-cascade kernel (`ff_haar_stumps`) at every level this machine runs, window by
/// window, against the stages written out here with `haarValue`: upright features
/// (frontalface_alt) and tilted ones (frontalcatface_extended).
@Suite struct HaarStumpKernelTests {
    @Test(arguments: KernelLevel.available)
    func stumpStagesMatchTheFormula(level: KernelLevel) throws {
        let photo = try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"))
        let gray = try ColorConvertCalculator.convert(photo, to: .gray8)
        for name in ["haarcascade_frontalface_alt.xml", "haarcascade_frontalcatface_extended.xml"] {
            let cascade = try CascadeClassifier(contentsOfFile: "/usr/share/opencv4/haarcascades/" + name)
            #expect(cascade.isStumpBased)
            let detector = HaarCascadeDetector(cascade: cascade)
            let pyramid = PyramidLevel(gray, width: 200, height: 190, tilted: true)
            let evaluator = HaarCascadeDetector.Evaluator(detector, pyramid)
            let (ww, wh) = cascade.windowSize
            var (windows, wrong, passed) = (0, 0, 0)
            for y in stride(from: 0, to: pyramid.height + 1 - wh, by: 3) {
                for x in stride(from: 0, to: pyramid.width + 1 - ww, by: 3) {
                    let got = KernelLevel.withThreadLevel(level) { evaluator.run(x, y) }
                    let want = Self.reference(evaluator, cascade, x, y)
                    windows += 1
                    if got != want { wrong += 1 }
                    if want > 0 { passed += 1 }
                }
            }
            #expect(wrong == 0, "\(wrong) of \(windows) windows differ, \(name) at \(level)")
            #expect(windows > 1000)
        }
    }

    /// OpenCV's stump evaluation: the window's inverse standard deviation, then per stage the
    /// sum (in double) of each stump's left or right value.
    static func reference(_ e: HaarCascadeDetector.Evaluator, _ cascade: CascadeClassifier, _ x: Int, _ y: Int) -> Int {
        let level = e.level, base = x + level.stride * y, n = e.norm
        let s = level.sum[base + n.0] &- level.sum[base + n.1] &- level.sum[base + n.2] &+ level.sum[base + n.3]
        let q = UInt32(bitPattern: level.sqsum[base + n.0] &- level.sqsum[base + n.1] &- level.sqsum[base + n.2] &+ level.sqsum[base + n.3])
        let nf = e.area * Double(q) - Double(s) * Double(s)
        guard nf > 0 else { return -1 }
        let vnf = Float(1 / nf.squareRoot())
        guard e.area * Double(vnf) < 0.1 else { return -1 }
        return level.sum.withUnsafeBufferPointer { sum in
            level.tilted.withUnsafeBufferPointer { tilted in
                for (si, stage) in cascade.stages.enumerated() {
                    var total = 0.0
                    for tree in stage.trees {
                        let node = tree.nodes[0]
                        let v = HaarCascadeDetector.Evaluator.haarValue(e.haar[Int(node.feature)], base, sum, tilted) * vnf
                        total += Double(v < node.threshold ? tree.leaves[-Int(node.left)] : tree.leaves[-Int(node.right)])
                    }
                    if total < Double(stage.threshold) { return -si }
                }
                return 1
            }
        }
    }
}
