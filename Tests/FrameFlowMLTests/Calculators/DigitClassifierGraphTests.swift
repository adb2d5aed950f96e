import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// Graphs/digit_classifier.pbtxt with the committed Models/digit_classifier.onnx, on the 1000
/// digits.png cells held out from training (scripts/train_digit_classifier.py), against the true
/// labels and onnxruntime's answers (scripts/fixtures/make_digit_fixtures.py), and on digits
/// photographed onto larger noisy canvases.
@Suite struct DigitClassifierGraphTests {
    struct Expected: Decodable {
        var labels: [Int]
        var ort_top1: [Int]
        var ort_score: [Double]
        var canvas_labels: [String: Int]
    }

    static var expected: Expected? {
        FileManager.default.contents(atPath: MLFixtures.path(".build/fixtures/digits/expected.json"))
            .flatMap { try? JSONDecoder().decode(Expected.self, from: $0) }
    }

    /// Runs the graph on every image, in order, and returns the classifications.
    func classify(_ images: [ImageFrame]) throws -> [[Classification]] {
        let graph = try MLFixtures.graph("digit_classifier")
        let out = try PacketCollector(graph, "classification")
        try graph.start()
        for (i, image) in images.enumerated() { try graph.send(image, to: "input_video", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.timestamps == (0..<images.count).map { Timestamp(Int64($0)) }, "one classification per image, none dropped")
        return try out.packets.map { try $0.get(ClassificationList.self).classification }
    }

    @Test func heldOutDigitsMatchOnnxRuntimeAndAreAccurate() throws {
        let e = try #require(Self.expected, "run scripts/setup.sh test")
        let sheet = try TestImages.readPNM(MLFixtures.path(".build/fixtures/digits/heldout.pgm"))
        try #require(sheet.width == 20 && sheet.height == 20 * e.labels.count)
        let cells = try (0..<e.labels.count).map { try ImageCroppingCalculator.crop(sheet, x: 0, y: 20 * $0, width: 20, height: 20) }
        let got = try classify(cells)
        try #require(got.count == e.labels.count)
        var correct = 0, disagreements: [Int] = []
        for (i, c) in got.enumerated() {
            let best = try #require(c.first)
            #expect(c.count == 1 && best.label == String(best.index))
            if best.index != e.ort_top1[i] { disagreements.append(i) }
            #expect(abs(best.score - e.ort_score[i]) < 1e-4, "image \(i): score \(best.score), onnxruntime \(e.ort_score[i])")
            if best.index == e.labels[i] { correct += 1 }
        }
        #expect(disagreements.isEmpty, "top-1 differs from onnxruntime on held-out images \(disagreements)")
        let accuracy = Double(correct) / Double(got.count)
        #expect(accuracy >= 0.98, "held-out accuracy \(accuracy)")
    }

    @Test func photographedDigitsOnNoisyCanvasesClassify() throws {
        let e = try #require(Self.expected, "run scripts/setup.sh test")
        let names = e.canvas_labels.keys.sorted()
        try #require(names.count == 10)
        let images = try names.map { try TestImages.readPNM(MLFixtures.path(".build/fixtures/digits/\($0).pgm")) }
        #expect(images.allSatisfy { $0.width == 120 && $0.height == 120 })
        let got = try classify(images)
        for (name, c) in zip(names, got) {
            #expect(c.first?.label == String(e.canvas_labels[name]!), "\(name): \(c)")
        }
    }

    @Test func jsonLineHasTheBestLabelAndScore() throws {
        let one = ClassificationList([Classification(index: 7, score: 0.75, label: "7")]).jsonObject
        #expect(one["label"] as? String == "7" && one["score"] as? Double == 0.75 && one["index"] as? Int == 7)
        #expect((one["classification"] as? [[String: Any]])?.count == 1)
        let two = ClassificationList([Classification(index: 3, score: 0.6), Classification(index: 8, score: 0.3)]).jsonObject
        #expect(two["label"] as? String == "3", "no labels file: the index as text")
        #expect((two["classification"] as? [[String: Any]])?.map { $0["index"] as? Int } == [3, 8])
        let none = ClassificationList().jsonObject
        #expect(none["label"] == nil && (none["classification"] as? [Any])?.isEmpty == true)
    }
}
