import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Graphs/digit_classifier.pbtxt with the committed Models/digit_classifier.onnx, on the 1000
/// digits.png cells held out from training (scripts/train_digit_classifier.py), against the true
/// labels and onnxruntime's answers (scripts/fixtures/make_digit_fixtures.py); on the held-out
/// digits drawn onto canvases of 28 to 512 pixels at other scales and places, light on dark and
/// dark on light; and on digits photographed onto larger noisy canvases.
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

    /// Runs the graph (or `graph`) on every image, in order, and returns the classifications.
    func classify(_ images: [ImageFrame], graph: Graph? = nil, sidePackets: [String: any Sendable] = [:]) throws -> [[Classification]] {
        try classify(images.count, graph: graph, sidePackets: sidePackets) { images[$0] }
    }

    /// Runs the graph (or `graph`) on `count` images made one at a time by `image`, in order.
    func classify(
        _ count: Int, graph given: Graph? = nil, sidePackets: [String: any Sendable] = [:], image: (Int) throws -> ImageFrame
    ) throws -> [[Classification]] {
        let graph = try given ?? MLFixtures.graph("digit_classifier")
        let out = try PacketCollector(graph, "classification")
        try graph.start(sidePackets: sidePackets)
        for i in 0..<count { try graph.send(try image(i), to: "input_video", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.timestamps == (0..<count).map { Timestamp(Int64($0)) }, "one classification per image, none dropped")
        return try out.packets.map { try $0.get(ClassificationList.self).classification }
    }

    /// The held-out 20×20 cells.
    static func cells(_ e: Expected) throws -> [ImageFrame] {
        let sheet = try TestImages.readPNM(MLFixtures.path(".build/fixtures/digits/heldout.pgm"))
        try #require(sheet.width == 20 && sheet.height == 20 * e.labels.count)
        return try (0..<e.labels.count).map { try ImageCroppingCalculator.crop(sheet, x: 0, y: 20 * $0, width: 20, height: 20) }
    }

    /// The network's path against onnxruntime, which was given each cell centred in 28×28: the
    /// graph with ImageToTensorCalculator fed the whole cell (no ink region), which is exactly that.
    @Test func heldOutDigitsMatchOnnxRuntimeAndAreAccurate() throws {
        let e = try #require(Self.expected, "run scripts/setup.sh test")
        let cells = try Self.cells(e)
        var text = try String(contentsOfFile: MLFixtures.path("Graphs/digit_classifier.pbtxt"), encoding: .utf8)
        for (from, to) in [("\"IMAGE:ink\"", "\"IMAGE:input_video\""), ("input_stream: \"NORM_RECT:ink_rect\"", "")] {
            try #require(text.contains(from))
            text = text.replacingOccurrences(of: from, with: to)
        }
        text = text.replacingOccurrences(of: "\"Models/", with: "\"\(MLFixtures.path("Models"))/")
        let whole = try Graph(GraphConfig(parsing: text, file: "digit_classifier.pbtxt"), registry: MLFixtures.registry)
        let got = try classify(cells, graph: whole)
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

    /// How a held-out digit is drawn: canvas size, the digit's scale range (its 20×20 cell
    /// becomes round(20·scale) pixels), light ink on black or dark ink on light paper, format.
    struct Drawing: Sendable, CustomTestStringConvertible {
        var size: Int
        var scales: ClosedRange<Double>
        var darkOnLight = false
        var format = PixelFormat.gray8
        var testDescription: String {
            "\(size)×\(size), scale \(scales), \(darkOnLight ? "dark on light" : "light on dark") \(format)"
        }
    }

    /// Digits drawn at least at the cells' own resolution (scale ≥ 1): one shrunk first
    /// has lost detail before the graph sees it (97.0 % at 0.6…0.8 on 28×28, 97.8 % at 0.8…1).
    static let drawings: [Drawing] = [
        Drawing(size: 28, scales: 1...1.4),  // anywhere on a 28×28 canvas
        Drawing(size: 96, scales: 2.5...4.8),  // larger and off-centre: 80.6 % without the ink region
        Drawing(size: 96, scales: 2.5...4.8, darkOnLight: true, format: .rgb8),
        Drawing(size: 200, scales: 1...10),
        Drawing(size: 512, scales: 4...25),
        Drawing(size: 512, scales: 4...25, darkOnLight: true, format: .rgba8),
    ]

    /// `cell` resized to `side` pixels (bilinear up, area down) at (`x`, `y`) on a black canvas,
    /// in `format`; for dark ink, v becomes 235 − v · 235 / 255 (black ink on grey-235 paper).
    static func draw(_ cell: ImageFrame, on d: Drawing, side: Int, x: Int, y: Int) throws -> ImageFrame {
        let big = try Resize.resize(cell, width: side, height: side, interpolation: side >= 20 ? .bilinear : .area).packedBytes()
        let n = d.format.bytesPerPixel()
        var image = try ImagePool.shared.makeImage(width: d.size, height: d.size, format: d.format)
        image.fill(d.darkOnLight ? 235 : 0)
        for py in 0..<d.size {
            image.withMutableRow(py) { row in
                if n == 4 { for px in 0..<d.size { row[px * 4 + 3] = 255 } }
                guard py >= y && py < y + side else { return }
                for px in x..<(x + side) {
                    let v = Int(big[(py - y) * side + px - x])
                    for c in 0..<min(n, 3) { row[px * n + c] = UInt8(d.darkOnLight ? 235 - v * 235 / 255 : v) }
                }
            }
        }
        return image.freeze()
    }

    /// The held-out digits drawn as `d` says at random places: at least 98 % right, as on the
    /// 20×20 cells themselves.
    @Test(arguments: drawings)
    func drawnDigitsAnySizeAndPlaceAreAccurate(_ d: Drawing) throws {
        let e = try #require(Self.expected, "run scripts/setup.sh test")
        let cells = try Self.cells(e)
        var rng = SplitMix64(seed: UInt64(d.size) &* 1000 &+ UInt64(d.scales.upperBound * 10) &+ (d.darkOnLight ? 7 : 0))
        // All of them: 98 % of a sample of a few hundred would be a matter of luck.
        let got = try classify(cells.count, sidePackets: d.darkOnLight ? ["dark_on_light": true] : [:]) { i in
            let side = max(1, min(d.size, Int((20 * Double.random(in: d.scales, using: &rng)).rounded())))
            let x = Int.random(in: 0...(d.size - side), using: &rng), y = Int.random(in: 0...(d.size - side), using: &rng)
            return try Self.draw(cells[i], on: d, side: side, x: x, y: y)
        }
        try #require(got.count == cells.count)
        let correct = zip(e.labels, got).filter { label, c in c.first?.index == label }.count
        let accuracy = Double(correct) / Double(cells.count)
        #expect(accuracy >= 0.98, "\(d.testDescription): \(correct) of \(cells.count) right")
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
