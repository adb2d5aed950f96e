import Foundation
import FrameFlow
import Testing

@testable import FrameFlowML

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
        let dets = try TensorsToDetectionsCalculator.decode(
            [Tensor(shape: [1, 3, 8], floats: v)], options: options("yolov5"), anchors: nil)
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
        let dets = try TensorsToDetectionsCalculator.decode(
            [Tensor(shape: [1, 7, 3], floats: fields.flatMap { $0 })], options: options("yolov8"), anchors: nil)
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
    }

    static func ssdOptions() -> TensorsToDetectionsCalculator.Options {
        var o = TensorsToDetectionsCalculator.Options()
        o.numClasses = 1; o.numBoxes = 2; o.numCoords = 6; o.numKeypoints = 1; o.keypointCoordOffset = 4
        o.xScale = 10; o.yScale = 10; o.wScale = 10; o.hScale = 10
        o.sigmoidScore = true; o.scoreClippingThresh = 100; o.minScoreThresh = 0.5
        return o
    }

    /// MediaPipe's DecodeBoxes by hand: centre = v / scale × anchor size + anchor centre,
    /// size = v / scale × anchor size; YXHW order by default, XYWH with reverse_output_order
    /// (keypoints x, y then), exp on the size with apply_exponential_on_box_size.
    @Test func decodesRelativeToAnchorsAsMediaPipe() throws {
        var o = Self.ssdOptions()
        o.reverseOutputOrder = true
        let anchors = [Anchor(x: 0.25, y: 0.5, width: 1, height: 1), Anchor(x: 0.75, y: 0.5, width: 0.5, height: 2)]
        // Anchor 0 (XYWH): centre moved by (+1, −2)/10, size 3×4 /10, keypoint at (+0.5, +0.5)/10.
        let raw: [Float] = [1, -2, 3, 4, 0.5, 0.5, 2, 0, 1, 1, -1, 3]
        let scores: [Float] = [2, 300]  // sigmoid(2) = 0.881; 300 is clipped to 100 first
        let t = [Tensor(shape: [1, 2, 6], floats: raw), Tensor(shape: [1, 2, 1], floats: scores)]
        let dets = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors)
        #expect(dets.count == 2)
        let d = dets[0]
        #expect(abs(d.score - 1 / (1 + exp(-2))) < 1e-6 && d.labelIDs == [0] && d.labels.isEmpty)
        #expect(abs(d.box.x - (0.35 - 0.15)) < 1e-6 && abs(d.box.y - (0.3 - 0.2)) < 1e-6)
        #expect(abs(d.box.width - 0.3) < 1e-6 && abs(d.box.height - 0.4) < 1e-6)
        #expect(abs(d.keypoints[0].x - 0.3) < 1e-6 && abs(d.keypoints[0].y - 0.55) < 1e-6)
        // Anchor 1 scales by its own size: x 0.75 + 0.2·0.5, width 0.1·0.5; y 0.5 + 0, height 0.1·2.
        let e = dets[1]
        #expect(abs(e.box.x - (0.85 - 0.025)) < 1e-6 && abs(e.box.width - 0.05) < 1e-6 && abs(e.box.height - 0.2) < 1e-6)
        #expect(abs(e.keypoints[0].x - (0.75 - 0.05)) < 1e-6 && abs(e.keypoints[0].y - (0.5 + 0.6)) < 1e-6)
        #expect(abs(e.score - 1 / (1 + exp(-100))) < 1e-6)
        // YXHW (the default order): the same numbers are y, x, h, w and keypoints y, x.
        o.reverseOutputOrder = false
        let f = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors)[0]
        #expect(abs(f.box.x - (0.25 - 0.2 - 0.2)) < 1e-6 && abs(f.box.y - (0.6 - 0.15)) < 1e-6 && abs(f.box.width - 0.4) < 1e-6)
        #expect(abs(f.keypoints[0].x - 0.3) < 1e-6 && abs(f.keypoints[0].y - 0.55) < 1e-6)
        // Exponential sizes: w = exp(3 / 10) × 1.
        o.reverseOutputOrder = true
        o.applyExponentialOnBoxSize = true
        let g = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors)[0]
        #expect(abs(g.box.width - exp(0.3)) < 1e-5 && abs(g.box.height - exp(0.4)) < 1e-5)
        // flip_vertically mirrors y: ymin = 1 − ymax.
        o.applyExponentialOnBoxSize = false
        o.flipVertically = true
        let h = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors)[0]
        #expect(abs(h.box.y - (1 - 0.5)) < 1e-6 && abs(h.keypoints[0].y - 0.45) < 1e-6)
        // Without sigmoid_score the raw score is compared with the threshold.
        o.flipVertically = false
        o.sigmoidScore = false
        #expect(try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors).map(\.score) == [2, 300])
        o.maxResults = 1
        #expect(try TensorsToDetectionsCalculator.decode(t, options: o, anchors: anchors).count == 1)
    }

    /// Classes: the best allowed class wins; ignore_classes and allow_classes filter; a box
    /// whose decoded size is negative is dropped; a third tensor supplies anchors (y, x, h, w).
    @Test func classesNegativeBoxesAndAnchorTensor() throws {
        var o = Self.ssdOptions()
        o.numClasses = 3; o.numKeypoints = 0; o.numCoords = 4; o.sigmoidScore = false; o.minScoreThresh = 0.1
        let raw: [Float] = [0, 0, 1, 1, 0, 0, -1, 1]  // box 1 has a negative height (YXHW)
        let scores: [Float] = [0.2, 0.9, 0.5, 0.3, 0.3, 0.3]
        let anchorTensor = Tensor(shape: [2, 4], floats: [0.5, 0.25, 1, 1, 0.5, 0.75, 1, 1])
        let t = [Tensor(shape: [1, 2, 4], floats: raw), Tensor(shape: [1, 2, 3], floats: scores), anchorTensor]
        let all = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: nil)
        #expect(all.count == 1 && all[0].labelIDs == [1] && all[0].scores == [Double(Float(0.9))])
        #expect(abs(all[0].box.x - (0.25 - 0.05)) < 1e-6)
        o.ignoreClasses = [1]
        #expect(try TensorsToDetectionsCalculator.decode(t, options: o, anchors: nil).first?.labelIDs == [2])
        o.ignoreClasses = []
        o.allowClasses = [0]
        #expect(try TensorsToDetectionsCalculator.decode(t, options: o, anchors: nil).first?.labelIDs == [0])
        #expect(
            try TensorsToDetectionsCalculator.decode(t, options: Self.ssdOptionsNoKeypoints(o), anchors: nil, ignoreClasses: [0, 1]).first?
                .labelIDs == [2])
    }

    static func ssdOptionsNoKeypoints(_ o: TensorsToDetectionsCalculator.Options) -> TensorsToDetectionsCalculator.Options {
        var p = o
        p.allowClasses = []
        return p
    }

    /// Four post-processed tensors (boxes ymin, xmin, ymax, xmax; classes; scores; count) are
    /// taken as they are, with box_boundaries_indices reordering the corners.
    @Test func postProcessedTensors() throws {
        var o = TensorsToDetectionsCalculator.Options()
        o.numClasses = 90; o.numCoords = 4; o.minScoreThresh = 0.5
        let boxes = Tensor(shape: [1, 3, 4], floats: [0.1, 0.2, 0.5, 0.6, 0, 0, 1, 1, 0.3, 0.3, 0.4, 0.4])
        let t = [
            boxes, Tensor(shape: [1, 3], floats: [17, 3, 5]), Tensor(shape: [1, 3], floats: [0.9, 0.4, 0.8]),
            Tensor(shape: [1], floats: [2]),
        ]
        let d = try TensorsToDetectionsCalculator.decode(t, options: o, anchors: nil)
        #expect(d.count == 1, "count 2, and the second scores 0.4")
        #expect(d[0].labelIDs == [17] && abs(d[0].box.x - 0.2) < 1e-6 && abs(d[0].box.y - 0.1) < 1e-6 && abs(d[0].box.maxX - 0.6) < 1e-6)
        var x = o
        x.boxBoundariesIndices = .init()
        x.boxBoundariesIndices!.xmin = 0; x.boxBoundariesIndices!.ymin = 1; x.boxBoundariesIndices!.xmax = 2;
        x.boxBoundariesIndices!.ymax = 3
        let e = try TensorsToDetectionsCalculator.decode(t, options: x, anchors: nil)
        #expect(abs(e[0].box.x - 0.1) < 1e-6 && abs(e[0].box.y - 0.2) < 1e-6)
    }

    @Test func badOptionsAndTensorsAreClearErrors() throws {
        var o = Self.ssdOptions()
        try o.validate()
        for (bad, field) in [
            ({ (x: inout TensorsToDetectionsCalculator.Options) in x.decoder = "rcnn" }, "decoder"), ({ $0.numCoords = 7 }, "num_coords"),
            ({ $0.numClasses = 0 }, "num_classes"), ({ $0.maxResults = 0 }, "max_results"),
            ({ $0.numValuesPerKeypoint = 3 }, "num_values_per_keypoint"),
            (
                {
                    $0.allowClasses = [1]; $0.ignoreClasses = [2]
                }, "allow_classes"
            ),
        ] {
            var b = o
            bad(&b)
            #expect { try b.validate() } throws: { "\($0)".contains(field) }
        }
        let anchors = [Anchor(x: 0, y: 0, width: 1, height: 1), Anchor(x: 0, y: 0, width: 1, height: 1)]
        let scores = Tensor(shape: [1, 2, 1], floats: [0, 0])
        #expect {
            try TensorsToDetectionsCalculator.decode(
                [Tensor(shape: [1, 2, 5], floats: Array(repeating: 0, count: 10)), scores], options: o, anchors: anchors)
        } throws: {
            ($0 as? GraphError)?.stream == "TENSORS" && "\($0)".contains("[1, 2, 6]")
        }
        let boxes = Tensor(shape: [1, 2, 6], floats: Array(repeating: 0, count: 12))
        #expect { try TensorsToDetectionsCalculator.decode([boxes, scores], options: o, anchors: nil) } throws: {
            "\($0)".contains("ANCHORS")
        }
        #expect { try TensorsToDetectionsCalculator.decode([boxes, scores], options: o, anchors: [anchors[0]]) } throws: {
            "\($0)".contains("num_boxes")
        }
        #expect { try TensorsToDetectionsCalculator.decode([boxes], options: o, anchors: anchors) } throws: {
            "\($0)".contains("2, 3 or 4")
        }
        o.xScale = 0
        #expect { try TensorsToDetectionsCalculator.decode([boxes, scores], options: o, anchors: anchors) } throws: {
            "\($0)".contains("x_scale")
        }
        var y = TensorsToDetectionsCalculator.Options()
        y.decoder = "yolov8"; y.inputSizeWidth = 8; y.inputSizeHeight = 8
        #expect(throws: GraphError.self) {
            try TensorsToDetectionsCalculator.decode(
                [Tensor(shape: [1, 4, 5], floats: Array(repeating: 0, count: 20))], options: y, anchors: nil)
        }
    }

    /// In a graph, a tensor of the wrong shape fails naming the node's input stream.
    @Test func badTensorsNameTheStream() throws {
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "model_output"
                    node {
                      calculator: "SsdAnchorsCalculator"
                      output_side_packet: "anchors"
                      options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
                        num_layers: 1 input_size_width: 16 input_size_height: 16 strides: 8 aspect_ratios: 1.0
                        interpolated_scale_aspect_ratio: 0 fixed_anchor_size: true } }
                    }
                    node {
                      calculator: "TensorsToDetectionsCalculator"
                      input_stream: "TENSORS:model_output"
                      input_side_packet: "ANCHORS:anchors"
                      output_stream: "DETECTIONS:dets"
                      options { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
                        num_classes: 1 num_boxes: 4 num_coords: 4 x_scale: 1 y_scale: 1 w_scale: 1 h_scale: 1 } }
                    }
                    """), registry: MLFixtures.registry)
        try graph.start()
        try graph.send(
            [Tensor(shape: [1, 4, 5], floats: Array(repeating: 0, count: 20)), Tensor(shape: [1, 4, 1], floats: [0, 0, 0, 0])],
            to: "model_output", at: Timestamp(0))
        try graph.closeAllInputStreams()
        #expect { try graph.waitUntilDone() } throws: { "\($0)".contains("model_output") && "\($0)".contains("[1, 4, 4]") }
    }
}

/// SsdAnchorsCalculator against MediaPipe's algorithm written out here and its anchor counts.
@Suite struct SsdAnchorsCalculatorTests {
    static func faceOptions(fullRange: Bool) -> SsdAnchorsCalculator.Options {
        var o = SsdAnchorsCalculator.Options()
        o.numLayers = fullRange ? 1 : 4
        o.minScale = 0.1484375; o.maxScale = 0.75
        o.inputSizeWidth = fullRange ? 192 : 128; o.inputSizeHeight = o.inputSizeWidth
        o.strides = fullRange ? [4] : [8, 16, 16, 16]
        o.aspectRatios = [1.0]; o.fixedAnchorSize = true
        o.interpolatedScaleAspectRatio = fullRange ? 0 : 1
        return o
    }

    /// Short range: 16×16 cells × 2 anchors (stride 8) + 8×8 × 6 (three stride-16 layers × 2)
    /// = 896; full range: 48×48 × 1 = 2304. Centres are (cell + 0.5) / cells, sizes 1.
    @Test func faceDetectionAnchors() throws {
        let a = try SsdAnchorsCalculator.anchors(Self.faceOptions(fullRange: false))
        #expect(a.count == 896)
        #expect(a[0] == Anchor(x: 0.5 / 16, y: 0.5 / 16, width: 1, height: 1) && a[1] == a[0])
        #expect(a[2] == Anchor(x: 1.5 / 16, y: 0.5 / 16, width: 1, height: 1))
        #expect(a[512] == Anchor(x: 0.5 / 8, y: 0.5 / 8, width: 1, height: 1) && a[517] == a[512] && a[518].x == 1.5 / 8)
        #expect(a[895] == Anchor(x: 7.5 / 8, y: 7.5 / 8, width: 1, height: 1))
        let f = try SsdAnchorsCalculator.anchors(Self.faceOptions(fullRange: true))
        // Computed in Float, as MediaPipe does.
        let first = Double(Float(0.5) / 48), second = Double(Float(1.5) / 48)
        #expect(f.count == 2304 && f[0] == Anchor(x: first, y: first, width: 1, height: 1) && f[1].x == second && f[48].y == second)
    }

    /// Free anchor sizes: layer scales min + (max − min)·i/(n − 1), one anchor per ratio r at
    /// (s·√r, s/√r), the interpolated one at √(s·s_next) (1 after the last layer); the lowest
    /// layer's 1, 2, ½ at 0.1, s, s with reduce_boxes_in_lowest_layer; ⌈input/stride⌉ cells.
    @Test func scalesRatiosAndFeatureMaps() throws {
        var o = SsdAnchorsCalculator.Options()
        o.numLayers = 2; o.strides = [8, 16]; o.minScale = 0.2; o.maxScale = 0.6
        o.inputSizeWidth = 20; o.inputSizeHeight = 10; o.aspectRatios = [1, 4]
        let b = try SsdAnchorsCalculator.anchors(o)
        // Layer 0: ⌈20/8⌉ × ⌈10/8⌉ = 3 × 2 cells × 3 anchors; layer 1: 2 × 1 × 3.
        #expect(b.count == 18 + 6)
        #expect(abs(b[0].width - 0.2) < 1e-6 && abs(b[1].width - 0.4) < 1e-6 && abs(b[1].height - 0.1) < 1e-6)
        #expect(abs(b[2].width - (0.2 * 0.6).squareRoot()) < 1e-6)
        #expect(abs(b[3].x - 1.5 / 3) < 1e-6 && abs(b[9].y - 1.5 / 2) < 1e-6)
        #expect(abs(b[20].width - 0.6.squareRoot()) < 1e-6, "the last layer interpolates towards 1")
        o.reduceBoxesInLowestLayer = true
        let r = try SsdAnchorsCalculator.anchors(o)
        #expect(
            abs(r[0].width - 0.1) < 1e-6 && abs(r[1].width - 0.2 * 2.0.squareRoot()) < 1e-6
                && abs(r[2].height - 0.2 * 2.0.squareRoot()) < 1e-6)
        o.fixedAnchors = [Anchor(x: 0.1, y: 0.2, width: 0.3, height: 0.4)]
        #expect(throws: GraphError.self) { try SsdAnchorsCalculator.anchors(o) }
        var fixed = SsdAnchorsCalculator.Options()
        fixed.fixedAnchors = o.fixedAnchors
        #expect(try SsdAnchorsCalculator.anchors(fixed) == o.fixedAnchors)
    }

    /// Multiscale (RetinaNet) anchors: level l, stride 2^l, base 2^l·anchor_scale, octave
    /// scales 2^(k/scales_per_octave), offset stride/2, normalised by the input size.
    @Test func multiscaleAnchors() throws {
        var o = SsdAnchorsCalculator.Options()
        o.multiscaleAnchorGeneration = true; o.minLevel = 3; o.maxLevel = 3; o.aspectRatios = [1]; o.scalesPerOctave = 2
        o.inputSizeWidth = 16; o.inputSizeHeight = 16; o.strides = [8]; o.anchorScale = 4
        let a = try SsdAnchorsCalculator.anchors(o)
        #expect(a.count == 2 * 2 * 2)
        #expect(abs(a[0].x - 4.0 / 16) < 1e-6 && abs(a[0].width - 32.0 / 16) < 1e-6 && abs(a[1].width - 32 * 2.0.squareRoot() / 16) < 1e-5)
        #expect(abs(a[2].x - 12.0 / 16) < 1e-6)
    }

    @Test func badOptionsAndTheSidePacket() throws {
        var o = Self.faceOptions(fullRange: false)
        o.strides = [8, 16]
        #expect { try o.validate() } throws: { "\($0)".contains("strides") }
        o = Self.faceOptions(fullRange: false)
        o.inputSizeWidth = 0
        #expect { try o.validate() } throws: { "\($0)".contains("input_size") }
        o.inputSizeWidth = 16384; o.inputSizeHeight = 16384; o.strides = [1, 16, 16, 16]
        #expect { try SsdAnchorsCalculator.anchors(o) } throws: { "\($0)".contains("more than") }
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    output_side_packet: "anchors"
                    node {
                      calculator: "SsdAnchorsCalculator"
                      output_side_packet: "anchors"
                      options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
                        num_layers: 4 min_scale: 0.1484375 max_scale: 0.75 input_size_width: 128 input_size_height: 128
                        anchor_offset_x: 0.5 anchor_offset_y: 0.5 strides: 8 strides: 16 strides: 16 strides: 16
                        aspect_ratios: 1.0 fixed_anchor_size: true } }
                    }
                    """), registry: MLFixtures.registry)
        try graph.start()
        try graph.waitUntilDone()
        let anchors = try #require(graph.outputSidePacket("anchors")).get([Anchor].self)
        #expect(anchors.count == 896)
    }
}

extension TensorsToDetectionsCalculatorTests {
    static let rangePorts = "input_stream: \"TENSORS:tensors\"\noutput_stream: \"DETECTIONS:detections\""

    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let node = "TensorsToDetectionsCalculator", type = "mediapipe.TensorsToDetectionsCalculatorOptions"
        // 4 + num_keypoints × 2 overflowed (a trap) before the range was checked.
        expectRefused(
            node, type, "num_classes: 1 num_boxes: 1 num_coords: 4 num_keypoints: 4611686018427387904", field: "num_keypoints",
            ports: Self.rangePorts)
        expectRefused(
            node, type, "num_classes: 1 num_boxes: 1 num_coords: 4 max_classes_per_detection: 9223372036854775807",
            field: "max_classes_per_detection", ports: Self.rangePorts)
        expectRefused(node, type, "num_classes: 1 num_boxes: 1 num_coords: 4 x_scale: 1e300", field: "x_scale", ports: Self.rangePorts)
        expectRefused(
            node, type, "num_classes: 1 num_boxes: 1 num_coords: 4 box_coord_offset: 9223372036854775807", field: "box_coord_offset",
            ports: Self.rangePorts)
        #expect(
            optionError(
                node, type,
                "num_classes: 1 num_boxes: 896 num_coords: 16 box_coord_offset: 0 keypoint_coord_offset: 4 num_keypoints: 6 num_values_per_keypoint: 2 sigmoid_score: true score_clipping_thresh: 100.0 reverse_output_order: true x_scale: 128.0 y_scale: 128.0 h_scale: 128.0 w_scale: 128.0 min_score_thresh: 0.5",
                ports: Self.rangePorts) == nil)
    }

    /// Post-processed tensors whose count and classes are NaN or huge: no trap.
    @Test func nonFiniteCountsAndClassesDoNotTrap() throws {
        var o = TensorsToDetectionsCalculator.Options()
        o.numClasses = 1
        o.numCoords = 4
        func tensors(count: Float, cls: Float) -> [Tensor] {
            [
                Tensor(shape: [1, 2, 4], floats: [0, 0, 1, 1, 0, 0, 1, 1]), Tensor(shape: [1, 2], floats: [cls, cls]),
                Tensor(shape: [1, 2], floats: [0.9, 0.9]), Tensor(shape: [1], floats: [count]),
            ]
        }
        #expect(try TensorsToDetectionsCalculator.decode(tensors(count: .nan, cls: 0), options: o, anchors: nil).isEmpty)
        #expect(throws: GraphError.self) {
            _ = try TensorsToDetectionsCalculator.decode(tensors(count: 1e30, cls: 0), options: o, anchors: nil)
        }
        let d = try TensorsToDetectionsCalculator.decode(tensors(count: 2, cls: .nan), options: o, anchors: nil)
        #expect(d.map(\.labelIDs) == [[0], [0]])
        let big = try TensorsToDetectionsCalculator.decode(tensors(count: 1, cls: 1e30), options: o, anchors: nil)
        #expect(big.map(\.labelIDs) == [[Int.max]])
    }
}

extension SsdAnchorsCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let node = "SsdAnchorsCalculator", type = "mediapipe.SsdAnchorsCalculatorOptions", ports = "output_side_packet: \"anchors\""
        // max_level − min_level + 1 overflowed (a trap); max_level is an int32 in MediaPipe's proto.
        expectRefused(
            node, type,
            "multiscale_anchor_generation: true min_level: -1 max_level: 9223372036854775807 strides: 8 input_size_width: 8 input_size_height: 8 aspect_ratios: 1",
            field: "max_level", ports: ports)
        expectRefused(
            node, type,
            "multiscale_anchor_generation: true min_level: -2147483648 max_level: 2147483647 strides: 8 input_size_width: 8 input_size_height: 8 aspect_ratios: 1",
            field: "min_level", ports: ports)
        // Fewer strides than layers next to feature maps looped for ever.
        expectRefused(
            node, type, "num_layers: 2 feature_map_width: [2, 2] feature_map_height: [2, 2] strides: 8 aspect_ratios: 1", field: "strides",
            ports: ports)
        expectRefused(
            node, type, "num_layers: 1 strides: 8 input_size_width: 8 input_size_height: 8 aspect_ratios: 1 min_scale: 1e300",
            field: "min_scale", ports: ports)
    }
}
