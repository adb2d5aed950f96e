import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

@Suite("SnapshotSelectorCalculator")
struct SnapshotSelectorCalculatorTests {
    static func detection(_ id: Int, _ x: Double, _ y: Double, _ w: Double, _ h: Double, score: Double) -> Detection {
        var d = Detection(
            labels: ["person"], scores: [score],
            locationData: LocationData(format: .boundingBox, boundingBox: .init(xmin: Int(x), ymin: Int(y), width: Int(w), height: Int(h))))
        d.detectionID = id
        return d
    }

    /// The reference rule, written from Frigate's description: not cut off by the edge beats
    /// cut off, then the larger score × area.
    static func better(_ a: (score: Double, area: Double, edge: Bool), than b: (score: Double, area: Double, edge: Bool)) -> Bool {
        a.edge != b.edge ? !a.edge : a.score * a.area > b.score * b.area
    }

    @Test("emits a track's frame when it is its best so far, with the crop's pixels and the box drawn")
    func picksTheBestFrame() throws {
        let (w, h) = (320, 240)
        let frames = try (0..<6).map { try TestImages.random(width: w, height: h, format: .rgba8, extraStride: 12, seed: UInt64($0 + 1)) }
        // Track 7 and track 9, boxes in pixels (x, y, w, h, score).
        let boxes7: [(Double, Double, Double, Double, Double)] = [
            (0, 50, 80, 120, 0.9),  // on the left edge, big
            (60, 50, 40, 60, 0.5),  // inside: beats the edge one
            (60, 50, 30, 50, 0.6),  // smaller score × area
            (0, 10, 200, 200, 0.99),  // on the edge again: never beats an inside one
            (100, 40, 60, 90, 0.7),  // inside and larger score × area
            (100, 40, 60, 90, 0.7),  // equal: not better
        ]
        let boxes9: [(Double, Double, Double, Double, Double)?] = [nil, (200, 100, 50, 50, 0.8), nil, nil, nil, (190, 90, 60, 60, 0.8)]
        var options = SnapshotSelectorCalculator.Options()
        options.cropMargin = 0.25
        let runner = try CalculatorRunner(
            SnapshotSelectorCalculator.self, options: options, inputs: ["IMAGE:frame", "DETECTIONS:tracked"], outputs: ["SNAPSHOTS:snaps"])
        for i in frames.indices {
            var ds = [Self.detection(7, boxes7[i].0, boxes7[i].1, boxes7[i].2, boxes7[i].3, score: boxes7[i].4)]
            if let b = boxes9[i] { ds.append(Self.detection(9, b.0, b.1, b.2, b.3, score: b.4)) }
            ds.append(Detection(relativeBox: Rect(x: 0.1, y: 0.1, width: 0.2, height: 0.2), score: 1))  // no id: ignored
            runner.add(frames[i], tag: "IMAGE", at: Timestamp(Int64(i) * 100_000))
            runner.add(ds, tag: "DETECTIONS", at: Timestamp(Int64(i) * 100_000))
        }
        try runner.run()

        // What the rule expects, per frame.
        var expected: [(frame: Int, track: Int, box: (Double, Double, Double, Double, Double))] = []
        var best: [Int: (score: Double, area: Double, edge: Bool)] = [:]
        for i in frames.indices {
            for (id, b) in [(7, boxes7[i] as (Double, Double, Double, Double, Double)?), (9, boxes9[i])] {
                guard let b else { continue }
                let edge = b.0 <= 5 || b.1 <= 5 || b.0 + b.2 >= Double(w) - 5 || b.1 + b.3 >= Double(h) - 5
                let c = (score: b.4, area: b.2 * b.3, edge: edge)
                if let cur = best[id], !Self.better(c, than: cur) { continue }
                best[id] = c
                expected.append((i, id, b))
            }
        }
        #expect(expected.map(\.frame) == [0, 1, 1, 4, 5])
        let got = runner.outputs("SNAPSHOTS").flatMap { p in (try? p.get([ObjectSnapshot].self)) ?? [] }
        #expect(got.count == expected.count)
        for (s, e) in zip(got, expected) {
            #expect(s.trackID == e.track && s.timestamp == Timestamp(Int64(e.frame) * 100_000))
            #expect(s.box == Rect(x: e.box.0, y: e.box.1, width: e.box.2, height: e.box.3) && s.score == e.box.4 && s.label == "person")
            // The crop: the box grown by a quarter of its size on each side, inside the frame,
            // and the frame's pixels there.
            let x0 = max(0, Int((e.box.0 - 0.25 * e.box.2).rounded(.down))), y0 = max(0, Int((e.box.1 - 0.25 * e.box.3).rounded(.down)))
            let x1 = min(w, Int((e.box.0 + 1.25 * e.box.2).rounded(.up))), y1 = min(h, Int((e.box.1 + 1.25 * e.box.3).rounded(.up)))
            #expect(s.cropRect == Rect(x: Double(x0), y: Double(y0), width: Double(x1 - x0), height: Double(y1 - y0)))
            #expect(s.crop.width == x1 - x0 && s.crop.height == y1 - y0)
            let frame = frames[e.frame]
            for y in [0, (y1 - y0) / 2, y1 - y0 - 1] {
                #expect(Array(s.crop.row(y)[0..<((x1 - x0) * 4)]) == Array(frame.row(y0 + y)[(x0 * 4)..<(x1 * 4)]))
            }
            // Annotated: the box's outline is red, a pixel far from the box and its label is the frame's.
            let bx = Int(e.box.0), by = Int(e.box.1) + Int(e.box.3) - 1
            #expect(Array(s.annotated.row(by)[(bx * 4)..<(bx * 4 + 3)]) == [255, 0, 0])
            let far = e.box.1 > 150 ? 5 : h - 5
            let farX = e.box.0 > 150 ? 5 : w - 5
            #expect(Array(s.annotated.row(far)[(farX * 4)..<(farX * 4 + 4)]) == Array(frame.row(far)[(farX * 4)..<(farX * 4 + 4)]))
        }
    }

    @Test("out-of-range options are errors naming the option")
    func optionRanges() {
        for (field, value) in [
            ("edge_threshold", "nan"), ("edge_threshold", "-1"), ("crop_margin", "inf"), ("crop_margin", "1e308"), ("min_score", "2"),
            ("forget_seconds", "0"), ("box_thickness", "0"), ("text_scale", "-3"),
        ] {
            let text = """
                input_stream: "frame"
                input_stream: "tracked"
                node {
                  calculator: "SnapshotSelectorCalculator"
                  input_stream: "IMAGE:frame"
                  input_stream: "DETECTIONS:tracked"
                  output_stream: "SNAPSHOTS:snaps"
                  options { [frameflow.SnapshotSelectorCalculatorOptions.ext] { \(field): \(value) } }
                }
                """
            let e = GraphBuildErrors.firstOptionError(text, registry: .standard)
            #expect(e?.kind == .invalidOption && e?.description.contains(field) == true, "\(field): \(value) → \(String(describing: e))")
            #expect(e?.description.contains("graph.pbtxt:") == true)
        }
    }

    @Test("a planar image is an error naming the stream, not a crash")
    func planarImageIsAnError() throws {
        let runner = try CalculatorRunner(
            SnapshotSelectorCalculator.self, inputs: ["IMAGE:frame", "DETECTIONS:tracked"], outputs: ["SNAPSHOTS:snaps"])
        runner.add(try ImagePool.shared.makeImage(width: 64, height: 48, format: .i420(.video)).freeze(), tag: "IMAGE", at: Timestamp(0))
        runner.add([Self.detection(1, 10, 10, 20, 20, score: 0.9)], tag: "DETECTIONS", at: Timestamp(0))
        do {
            try runner.run()
            Issue.record("a planar image gave no error")
        } catch { #expect("\(error)".contains("frame") && "\(error)".contains("packed"), "\(error)") }
    }
}
