import Foundation
import FrameFlow
@testable import FrameFlowML
import Testing

/// Decoders on synthetic tensors whose boxes are written down independently here.
@Suite struct TensorsToDetectionsCalculatorTests {
    /// Three boxes given as corners in a 640×480 input; the expected normalised boxes follow.
    static let boxes: [(x0: Double, y0: Double, x1: Double, y1: Double, cls: Int, score: Double)] = [
        (100, 50, 300, 250, 2, 0.9), (400, 300, 520, 460, 0, 0.7), (10, 10, 30, 40, 1, 0.2),
    ]

    func options(_ decoder: String) -> TensorsToDetectionsCalculator.Options {
        var o = TensorsToDetectionsCalculator.Options()
        o.decoder = decoder
        o.inputSizeWidth = 640
        o.inputSizeHeight = 480
        o.minScoreThresh = 0.5
        o.labels = ["person", "bicycle", "car"]
        return o
    }

    @Test func yolov5RowsPerBox() throws {
        // [1, N, 5 + 3]: cx, cy, w, h, objectness, class scores. score = objectness × class.
        var v: [Float] = []
        for b in Self.boxes {
            let obj = 0.95
            var row: [Double] = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2, b.x1 - b.x0, b.y1 - b.y0, obj, 0.01, 0.01, 0.01]
            row[5 + b.cls] = b.score / obj
            v += row.map(Float.init)
        }
        let dets = try TensorsToDetectionsCalculator.decode([Tensor(shape: [1, 3, 8], floats: v)], options: options("yolov5"), anchors: [])
        try check(dets)
    }

    @Test func yolov8ColumnsPerBox() throws {
        // [1, 4 + 3, N]: each field is a row over all boxes; no objectness.
        var fields = [[Float]](repeating: [], count: 7)
        for b in Self.boxes {
            let f: [Double] = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2, b.x1 - b.x0, b.y1 - b.y0]
            for k in 0..<4 { fields[k].append(Float(f[k])) }
            for c in 0..<3 { fields[4 + c].append(Float(c == b.cls ? b.score : 0.05)) }
        }
        let dets = try TensorsToDetectionsCalculator.decode([Tensor(shape: [1, 7, 3], floats: fields.flatMap { $0 })], options: options("yolov8"), anchors: [])
        try check(dets)
    }

    func check(_ dets: [Detection]) throws {
        #expect(dets.count == 2, "the 0.2 box is under the threshold")
        for (d, b) in zip(dets, Self.boxes) {
            #expect(abs(d.box.x - b.x0 / 640) < 1e-5 && abs(d.box.y - b.y0 / 480) < 1e-5)
            #expect(abs(d.box.maxX - b.x1 / 640) < 1e-5 && abs(d.box.maxY - b.y1 / 480) < 1e-5)
            #expect(abs(d.score - b.score) < 1e-5)
            #expect(d.labelID == b.cls && d.label == ["person", "bicycle", "car"][b.cls])
        }
        // Through a letterbox transform: a 640×480 image in a 640×640 tensor, bars of 80 rows.
        let t = TensorImageTransform(crop: Rect(x: 0, y: 0, width: 640, height: 480), content: Rect(x: 0, y: 80.0 / 640, width: 1, height: 480.0 / 640))
        let tensorBox = Rect(x: 100.0 / 640, y: (80.0 + 50) / 640, width: 200.0 / 640, height: 200.0 / 640)
        let r = t.imageRect(tensorBox)
        #expect(abs(r.x - 100) < 1e-9 && abs(r.y - 50) < 1e-9 && abs(r.width - 200) < 1e-9 && abs(r.height - 200) < 1e-9)
        let rel = t.relativeRect(tensorBox)
        #expect(abs(rel.x - 100.0 / 640) < 1e-9 && abs(rel.y - 50.0 / 480) < 1e-9 && abs(rel.maxY - 250.0 / 480) < 1e-9)
    }

    @Test func ssdDecodesRelativeToAnchors() throws {
        var o = TensorsToDetectionsCalculator.Options()
        o.numCoords = 6; o.numKeypoints = 1; o.keypointCoordOffset = 4
        o.xScale = 10; o.yScale = 10; o.wScale = 10; o.hScale = 10
        o.scoreClippingThresh = 100
        let anchors = [Anchor(x: 0.25, y: 0.5, width: 1, height: 1), Anchor(x: 0.75, y: 0.5, width: 1, height: 1)]
        // Anchor 0: centre moved by (+1, −2)/10, size 3×4 /10, keypoint at (+0.5, +0.5)/10.
        let raw: [Float] = [1, -2, 3, 4, 0.5, 0.5, 0, 0, 1, 1, 0, 0]
        let scores: [Float] = [2, -2]  // sigmoid: 0.881, 0.119
        let dets = try TensorsToDetectionsCalculator.decode([Tensor(shape: [1, 2, 6], floats: raw), Tensor(shape: [1, 2, 1], floats: scores)], options: o, anchors: anchors)
        #expect(dets.count == 1)
        let d = try #require(dets.first)
        #expect(abs(d.score - 1 / (1 + exp(-2))) < 1e-9)
        #expect(abs(d.box.x - (0.35 - 0.15)) < 1e-6 && abs(d.box.y - (0.3 - 0.2)) < 1e-6)
        #expect(abs(d.box.width - 0.3) < 1e-6 && abs(d.box.height - 0.4) < 1e-6)
        #expect(abs(d.keypoints[0].x - 0.3) < 1e-6 && abs(d.keypoints[0].y - 0.55) < 1e-6)
    }

    @Test func blazeFaceAnchors() throws {
        let a = try SSDAnchorOptions().anchors()
        #expect(a.count == 896, "16×16×2 + 8×8×6")
        #expect(a[0] == Anchor(x: 0.5 / 16, y: 0.5 / 16, width: 1, height: 1))
        #expect(a[1] == a[0], "two anchors per cell in the stride-8 layer")
        #expect(a[512] == Anchor(x: 0.5 / 8, y: 0.5 / 8, width: 1, height: 1))
        #expect(a[895] == Anchor(x: 7.5 / 8, y: 7.5 / 8, width: 1, height: 1))
        var o = SSDAnchorOptions()
        o.fixedAnchorSize = false
        o.numLayers = 2; o.strides = [8, 16]; o.minScale = 0.2; o.maxScale = 0.6
        let b = try o.anchors()
        // Layer 0: scale 0.2, ratio 1 → 0.2×0.2; interpolated √(0.2·0.6).
        #expect(abs(b[0].width - 0.2) < 1e-12 && abs(b[1].width - (0.2 * 0.6).squareRoot()) < 1e-12)
    }

    @Test func badOptionsAndTensorsAreClearErrors() throws {
        var o = TensorsToDetectionsCalculator.Options()
        o.decoder = "rcnn"
        #expect(throws: GraphError.self) { try o.validate() }
        o.decoder = "ssd"; o.numBoxes = 100
        #expect(throws: GraphError.self) { try TensorsToDetectionsCalculator(options: o) }
        o.numBoxes = 0; o.anchors.strides = [8]
        #expect(throws: GraphError.self) { try TensorsToDetectionsCalculator(options: o) }
        let ok = TensorsToDetectionsCalculator.Options()
        let anchors = try SSDAnchorOptions().anchors()
        #expect(throws: GraphError.self) { try TensorsToDetectionsCalculator.decode([Tensor(shape: [1, 10], floats: Array(repeating: 0, count: 10))], options: ok, anchors: anchors) }
        #expect(throws: GraphError.self) { try TensorsToDetectionsCalculator.decode([], options: ok, anchors: anchors) }
        var y = ok
        y.decoder = "yolov8"
        #expect(throws: GraphError.self) { try TensorsToDetectionsCalculator.decode([Tensor(shape: [1, 4, 5], floats: Array(repeating: 0, count: 20))], options: y, anchors: []) }
    }
}

@Suite struct NonMaxSuppressionCalculatorTests {
    static let dets = [
        Detection(relativeBox: Rect(x: 0, y: 0, width: 10, height: 10), score: 0.9, labelID: 0, keypoints: [Point(x: 5, y: 5)]),
        Detection(relativeBox: Rect(x: 1, y: 0, width: 10, height: 10), score: 0.6, labelID: 0, keypoints: [Point(x: 8, y: 5)]),
        Detection(relativeBox: Rect(x: 50, y: 50, width: 10, height: 10), score: 0.8, labelID: 1, keypoints: [Point(x: 55, y: 55)]),
        Detection(relativeBox: Rect(x: 2, y: 1, width: 10, height: 10), score: 0.7, labelID: 1, keypoints: [Point(x: 7, y: 6)]),
    ]

    @Test func defaultKeepsTheBestOfEachCluster() {
        let out = NonMaxSuppressionCalculator.suppress(Self.dets, options: .init())
        #expect(out.map(\.score) == [0.9, 0.8])
        var perClass = NonMaxSuppressionCalculator.Options()
        perClass.perClass = true
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: perClass).map(\.score) == [0.9, 0.8, 0.7])
        var two = NonMaxSuppressionCalculator.Options()
        two.maxNumDetections = 1
        #expect(NonMaxSuppressionCalculator.suppress(Self.dets, options: two).count == 1)
    }

    @Test func weightedAveragesTheCluster() throws {
        var o = NonMaxSuppressionCalculator.Options()
        o.algorithm = "weighted"
        let out = NonMaxSuppressionCalculator.suppress(Self.dets, options: o)
        let first = try #require(out.first)
        // Cluster {0.9 @ x 0, 0.7 @ x 2, 0.6 @ x 1} (IoUs 0.67, 0.68 > 0.3): weights by score.
        let total = 0.9 + 0.7 + 0.6
        #expect(abs(first.box.x - (0.9 * 0 + 0.7 * 2 + 0.6 * 1) / total) < 1e-12)
        #expect(abs(first.box.y - (0.7 * 1) / total) < 1e-12)
        #expect(abs(first.keypoints[0].x - (0.9 * 5 + 0.7 * 7 + 0.6 * 8) / total) < 1e-12)
        #expect(first.score == 0.9)
        #expect(out.count == 2)
        o.algorithm = "soft"
        #expect(throws: GraphError.self) { try o.validate() }
    }
}
