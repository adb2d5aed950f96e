import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Ultralytics' YOLOv8n, YOLOv5nu and YOLO11n as a user exports them (Tests/Fixtures/yolo,
/// scripts/fixtures/export_yolo.py): FrameFlowML against onnxruntime, and the decoding and
/// NMS of Graphs/object_detection_yolo.pbtxt against Ultralytics' own post-processing of the
/// same raw outputs (scripts/fixtures/make_yolo_fixtures.py, run by scripts/setup.sh test).
@Suite struct YOLOExportTests {
    static let models = ["yolov8n", "yolov5nu", "yolo11n"]
    static let photos = ["none", "face_and_hand", "two_hands"]

    /// `.build/fixtures/<relative>`, or a recorded issue naming it when setup has not made it.
    static func built(_ relative: String) -> String? {
        let path = RepositoryFiles.built(relative)
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("\(path) is missing: run scripts/setup.sh test (make test does)")
            return nil
        }
        return path
    }

    @Test(arguments: models)
    func matchesOnnxRuntime(name: String) throws {
        guard let modelPath = Self.built("models/\(name).onnx") else { return }
        let model = try Model(contentsOf: URL(fileURLWithPath: modelPath))
        let input = try loadTensorProto(contentsOfFile: RepositoryFiles.built("models/\(name).input_0.pb")).tensor
        let want = try loadTensorProto(contentsOfFile: RepositoryFiles.built("models/\(name).output_0.pb")).tensor
        #expect(input.shape == [1, 3, 640, 640] && want.shape == [1, 84, 8400])
        let feeds = [model.inputs[0].name: input]
        let workers = WorkerPool(threads: 2, name: "test.yolo")
        defer { workers.shutdown() }
        for (how, parallelism) in [("one thread", nil), ("two threads", Parallelism(workers))] {
            let outs = try model.run(feeds, parallelism: parallelism)
            let got = try #require(outs[model.outputs[0].name], "no output \(model.outputs[0].name) in \(outs.keys)")
            #expect(got.shape == want.shape)
            // Relative 1e-4 (and 1e-4 absolute near 0) for the class scores; the box centres and
            // sizes (rows 0-3) are anchors ± distances, each distance an expectation over 16 bins
            // of up to 32 px (the DFL head), so a difference of 1e-4 in a bin's probability moves
            // them by up to 0.05 px: theirs is relative to at least 128 px (0.0128 px). With the
            // 8-lane tiles (AVX2) yolov5nu's worst is 0.0049 px at 12.38 px; onnxruntime differs
            // from itself by up to 7e-4 px there with its graph optimizations off.
            var worst: Float = 0
            for i in 0..<want.floats.count {
                let scale = i < 4 * 8400 ? max(abs(want.floats[i]), 128) : abs(want.floats[i]) + 1
                worst = max(worst, abs(got.floats[i] - want.floats[i]) / scale)
            }
            #expect(worst <= 1e-4, "\(name), \(how): worst relative difference \(worst)")
        }
    }

    /// Ultralytics' boxes for one model on one photo.
    struct Reference: Decodable {
        var candidates: Int
        /// x0, y0, x1, y1 (input pixels), score, class.
        var boxes: [[Double]]
    }

    static let reference: [String: [String: Reference]] = {
        let path = RepositoryFiles.path("Tests/Fixtures/yolo/ultralytics_nms.json")
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        var out: [String: [String: Reference]] = [:]
        for m in models {
            guard let byPhoto = object[m], let json = try? JSONSerialization.data(withJSONObject: byPhoto) else { continue }
            out[m] = try? JSONDecoder().decode([String: Reference].self, from: json)
        }
        return out
    }()

    /// The decoder and NMS nodes of Graphs/object_detection_yolo.pbtxt, with their options as
    /// the graph file sets them, fed the model's raw output.
    static func postprocessing(decoder: String) throws -> Graph {
        var text = try String(contentsOfFile: RepositoryFiles.path("Graphs/object_detection_yolo.pbtxt"), encoding: .utf8)
        text = text.replacingOccurrences(of: "decoder: \"yolov8\"", with: "decoder: \"\(decoder)\"")
        var config = try GraphConfig(parsing: text, file: "object_detection_yolo.pbtxt")
        config.nodes = config.nodes.filter { ["TensorsToDetectionsCalculator", "NonMaxSuppressionCalculator"].contains($0.calculator) }
        #expect(config.nodes.count == 2)
        config.inputStreams = [StreamRef(name: "output_tensors")]
        config.outputStreams = [StreamRef(name: "filtered_detections")]
        config.inputSidePackets = []
        return try Graph(config, registry: MLFixtures.registry)
    }

    /// What the graph keeps for `output`, as (box in input pixels, score, class).
    static func detections(_ output: Tensor, decoder: String = "yolov8") throws -> [(box: Rect, score: Double, cls: Int)] {
        let graph = try postprocessing(decoder: decoder)
        let out = try PacketCollector(graph, "filtered_detections")
        try graph.start()
        try graph.send([output], to: "output_tensors", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let dets = try #require(out.packets.first).get([Detection].self)
        return dets.map { d -> (box: Rect, score: Double, cls: Int) in
            let b = d.box
            return (box: Rect(x: b.x * 640, y: b.y * 640, width: b.width * 640, height: b.height * 640), score: d.score, cls: d.labelID ?? -1)
        }
    }

    /// Each of Ultralytics' boxes has its own graph detection of the same class, IoU ≥ 0.99 and
    /// score ±1e-4, and there are as many of each.
    static func expectSame(_ got: [(box: Rect, score: Double, cls: Int)], _ want: Reference, _ what: String) {
        #expect(got.count == want.boxes.count, "\(what): \(got.count) detections, Ultralytics keeps \(want.boxes.count)")
        var free = Array(got.indices)
        for w in want.boxes {
            let r = Rect(x: w[0], y: w[1], width: w[2] - w[0], height: w[3] - w[1])
            let match = free.firstIndex { got[$0].cls == Int(w[5]) && abs(got[$0].score - w[4]) <= 1e-4 && got[$0].box.iou(r) >= 0.99 }
            guard let m = match else {
                Issue.record("\(what): no detection matches Ultralytics' \(w)")
                continue
            }
            free.remove(at: m)
        }
    }

    @Test(arguments: models)
    func graphPostprocessingMatchesUltralytics(name: String) throws {
        let refs = try #require(Self.reference[name], "Tests/Fixtures/yolo/ultralytics_nms.json has no \(name)")
        var overlapping = 0
        for photo in Self.photos {
            guard let path = Self.built("yolo/\(name).\(photo).output_0.pb") else { return }
            let raw = try loadTensorProto(contentsOfFile: path).tensor
            let want = try #require(refs[photo])
            // The candidates over the threshold are the same as Ultralytics counted: the raw
            // outputs are the ones its boxes were made from.
            var candidates = 0
            for i in 0..<8400 where (4..<84).contains(where: { raw.floats[$0 * 8400 + i] > 0.25 }) { candidates += 1 }
            #expect(candidates == want.candidates, "\(name) \(photo)")
            Self.expectSame(try Self.detections(raw), want, "\(name) \(photo)")
            overlapping += want.candidates - want.boxes.count
        }
        #expect(overlapping > 100, "\(name): NMS removed only \(overlapping) candidates over all photos")
    }

    /// The YOLOv5 layout (`[1, N, 5 + classes]`, score = objectness × class score): the
    /// YOLOv8 output rewritten with an objectness in (0.5, 1] per box and the class scores
    /// divided by it gives the same boxes (Ultralytics' exports, YOLOv5u included, are all
    /// anchor-free with no objectness; YOLOv5's own exports have it).
    @Test func yolov5LayoutGivesTheSameBoxes() throws {
        let refs = try #require(Self.reference["yolov8n"], "Tests/Fixtures/yolo/ultralytics_nms.json has no yolov8n")
        for photo in Self.photos {
            guard let path = Self.built("yolo/yolov8n.\(photo).output_0.pb") else { return }
            let raw = try loadTensorProto(contentsOfFile: path).tensor
            var rows = [Float](repeating: 0, count: 8400 * 85)
            for i in 0..<8400 {
                let objectness = 0.5 + 0.5 * Float((i * 7919) % 1000 + 1) / 1000
                for f in 0..<4 { rows[i * 85 + f] = raw.floats[f * 8400 + i] }
                rows[i * 85 + 4] = objectness
                for c in 0..<80 { rows[i * 85 + 5 + c] = raw.floats[(4 + c) * 8400 + i] / objectness }
            }
            let got = try Self.detections(Tensor(shape: [1, 8400, 85], floats: rows), decoder: "yolov5")
            Self.expectSame(got, try #require(refs[photo]), "yolov5 layout, \(photo)")
        }
    }
}
