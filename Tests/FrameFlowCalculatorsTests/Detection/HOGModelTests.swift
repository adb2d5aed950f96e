import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Broken HOG descriptor files: each is refused when loading with an error naming the file,
/// the element and what is wrong; none traps or loads half-checked.
@Suite struct HOGModelTests {
    /// OpenCV's saved people detector with `edit` applied, written to a temporary file; the
    /// error loading it.
    static func loadError(_ edit: (String) -> String) throws -> HOGModelError? {
        let good = try String(contentsOfFile: HOGFixtures.model, encoding: .utf8)
        let edited = edit(good)
        #expect(edited != good, "the edit changed nothing")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hog-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("broken.xml").path
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        var error: HOGModelError?
        #expect(throws: HOGModelError.self) {
            do { _ = try HOGDescriptor(contentsOfFile: path) } catch let e as HOGModelError {
                error = e
                throw e
            }
        }
        #expect(error?.file == path, "\(String(describing: error))")
        return error
    }

    static func replacing(_ element: String, with value: String) -> (String) -> String {
        { s in
            guard let a = s.range(of: "<\(element)>"), let b = s.range(of: "</\(element)>", range: a.upperBound..<s.endIndex) else { return s }
            return s.replacingCharacters(in: a.upperBound..<b.lowerBound, with: value)
        }
    }

    @Test(arguments: [
        ("winSize", "64", "2 integers expected, found 1"), ("winSize", "100000 128", "out of range"),
        ("winSize", "4096 4096", "over 2²⁰ pixels"), ("winSize", "8 128", "smaller than blockSize"),
        ("winSize", "-64 128", "out of range"), ("blockSize", "64 64", "over 1024 pixels"), ("cellSize", "7 7", "does not divide"),
        ("blockStride", "5 5", "do not tile"), ("blockStride", "0 8", "out of range"), ("nbins", "0", "out of range"),
        ("nbins", "9.5", "not an integer"), ("winSigma", "nan", "not a finite number"), ("winSigma", "1e308", "out of range"),
        ("L2HysThreshold", "-0.2", "out of range"), ("L2HysThreshold", "inf", "not a finite number"), ("gammaCorrection", "2", "out of range"),
        ("nlevels", "1000000", "out of range"), ("histogramNormType", "1", "only L2Hys"),
    ])
    func wrongGeometryOrSettings(element: String, value: String, message: String) throws {
        let e = try Self.loadError(Self.replacing(element, with: value))
        #expect(e?.description.contains(message) == true, "\(String(describing: e))")
        #expect(e?.element.hasSuffix(element) == true || e?.element.hasSuffix("SVMDetector") == true, "\(String(describing: e))")
    }

    /// Coefficients: too few, too many, NaN (OpenCV writes `.Nan`), infinite, beyond Float.
    @Test(arguments: [
        ("drop", "3778 coefficients"), ("extra", "3782 coefficients"), (".Nan", "coefficient 0: '.Nan' is not a number"),
        ("inf", "coefficient 0 is inf, not a finite float"), ("1e39", "coefficient 0 is 1e39, not a finite float"),
        ("-.Inf", "coefficient 0: '-.Inf' is not a number"),
    ])
    func brokenCoefficients(change: String, message: String) throws {
        let e = try Self.loadError { s in
            guard let a = s.range(of: "<SVMDetector>"), let b = s.range(of: "</SVMDetector>") else { return s }
            var values = s[a.upperBound..<b.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
            switch change {
            case "drop": values.removeLast(3)
            case "extra": values.append("0.5")
            default: values[0] = change
            }
            return s.replacingCharacters(in: a.upperBound..<b.lowerBound, with: values.joined(separator: " "))
        }
        #expect(e?.description.contains(message) == true, "\(String(describing: e))")
        #expect(e?.element.hasSuffix("SVMDetector") == true && (e?.line ?? 0) > 1, "\(String(describing: e))")
    }

    @Test func truncatedMissingAndNotXML() throws {
        let half = try Self.loadError { String($0.prefix($0.count / 2)) }
        // Cut inside <SVMDetector>: a parser error, or (when the parser closes the open elements
        // at the end) too few coefficients.
        #expect(
            half?.description.contains("XML error") == true || half?.description.contains("coefficients, the descriptor has 3780") == true,
            "\(String(describing: half))")
        let noSVM = try Self.loadError { s in
            s.replacingOccurrences(of: #"<SVMDetector>[^<]*</SVMDetector>"#, with: "", options: .regularExpression)
        }
        #expect(noSVM?.description.contains("missing <SVMDetector>") == true, "\(String(describing: noSVM))")
        let noWin = try Self.loadError { s in s.replacingOccurrences(of: "winSize>", with: "windowSize>") }
        #expect(noWin?.description.contains("missing <winSize>") == true, "\(String(describing: noWin))")
        let root = try Self.loadError { s in s.replacingOccurrences(of: "opencv_storage>", with: "storage>") }
        #expect(root?.description.contains("<opencv_storage>") == true, "\(String(describing: root))")
        let empty = try Self.loadError { _ in "<?xml version=\"1.0\"?>\n<opencv_storage></opencv_storage>\n" }
        #expect(empty?.description.contains("no descriptor") == true, "\(String(describing: empty))")
        #expect(throws: HOGModelError.self) { try HOGDescriptor(xml: Data([0x3C, 0xFF, 0xFE, 0x3E]), file: "bytes.xml") }
        #expect(throws: HOGModelError.self) { try HOGDescriptor(contentsOfFile: "/nonexistent/hog.xml") }
    }
}

@Suite struct HOGPeopleDetectorCalculatorTests {
    /// The calculator on a frame of vtest.avi in a graph: OpenCV's boxes and weights, labelled.
    @Test func detectsPeopleOnAStreetFrame() throws {
        let expected = try HOGFixtures.expected()
        let name = "vtest_300"
        var o = HOGPeopleDetectorCalculator.Options()
        o.modelPath = HOGFixtures.model
        let runner = try CalculatorRunner(HOGPeopleDetectorCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["DETECTIONS:people"])
        runner.add(try HOGFixtures.frame(name, gray: false, expected), tag: "IMAGE", at: 0)
        try runner.run()
        let people = try runner.outputs("DETECTIONS")[0].get([Detection].self)
        let got = people.map { [Int($0.box.x), Int($0.box.y), Int($0.box.width), Int($0.box.height)] }.sorted { $0.lexicographicallyPrecedes($1) }
        let want = try #require(expected.settings["default"]?.detections[name])
        #expect(got == want.map { $0.prefix(4).map { Int($0) } })
        #expect(people.allSatisfy { $0.label == "person" })
        let scores = people.map(\.score).sorted(), wantScores = want.map { $0[4] }.sorted()
        #expect(zip(scores, wantScores).allSatisfy { abs($0 - $1) < 1e-9 }, "\(scores) vs \(wantScores)")
    }

    /// NaN, infinities, 1e308, 0 and negatives where they make no sense, and wrong pair
    /// lengths, are refused when the graph is built, naming the option.
    @Test(arguments: [
        ("hit_threshold: nan", "hit_threshold"), ("hit_threshold: inf", "hit_threshold"), ("hit_threshold: 1e308", "hit_threshold"),
        ("scale: nan", "scale"), ("scale: 0", "scale"), ("scale: -1.05", "scale"), ("scale: 1e308", "scale"), ("scale: inf", "scale"),
        ("group_threshold: -1", "group_threshold"), ("group_threshold: 2147483647", "group_threshold"),
        ("win_stride: [-8, 8]", "win_stride"), ("win_stride: [8, 0]", "win_stride"), ("win_stride: [8]", "win_stride"),
        ("win_stride: [100000, 8]", "win_stride"), ("padding: [-1, 0]", "padding"), ("padding: [1000000, 0]", "padding"),
        ("min_size: [-1, 0]", "min_size"), ("max_size: [0, 2147483647]", "max_size"), ("model_path: \"\"", "model_path"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "HOGPeopleDetectorCalculator" input_stream: "IMAGE:in" output_stream: "DETECTIONS:d"
            options { [frameflow.HOGPeopleDetectorCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    /// The edges of the ranges run (on a small random image: no people, no crash), and NV12
    /// input is converted.
    @Test(arguments: [
        "scale: 1 hit_threshold: -100 group_threshold: 0 win_stride: [1, 1] padding: [512, 512]",
        "scale: 100 hit_threshold: 100 group_threshold: 100000 win_stride: [512, 512] min_size: [32768, 32768] max_size: [32768, 32768]",
    ])
    func edgesOfTheRangesRun(options: String) throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "HOGPeopleDetectorCalculator" input_stream: "IMAGE:in" output_stream: "DETECTIONS:d"
                options { [frameflow.HOGPeopleDetectorCalculatorOptions.ext] { model_path: "\(HOGFixtures.model)" \(options) } }
                """, registry: .standard)
        let rgb = try TestImages.random(width: 72, height: 136, format: .rgb8, seed: 4)
        runner.add(try ColorConvertCalculator.convert(rgb, to: .nv12(.video)), tag: "IMAGE", at: 0)
        try runner.run()
        _ = try runner.outputs("DETECTIONS")[0].get([Detection].self)
    }

    /// Graphs/people_detection_hog.pbtxt (its model path resolved under the repository) on two
    /// frames of vtest.avi: both frames come out, the detector's boxes are OpenCV's, and the
    /// overlay draws them in the graph's colour.
    @Test func peopleDetectionGraphDrawsOpenCVsBoxes() throws {
        let expected = try HOGFixtures.expected()
        let graph = try Graph(
            contentsOfFile: RepositoryFiles.path("Graphs/people_detection_hog.pbtxt"), registry: .standard,
            environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        let video = try PacketCollector(graph, "output_video")
        let detections = try PacketCollector(graph, "detections")
        try graph.start()
        try graph.send(try HOGFixtures.frame("vtest_300", gray: false, expected), to: "input_video", at: Timestamp(0))
        try graph.waitUntilIdle()
        try graph.send(try HOGFixtures.frame("vtest_330", gray: false, expected), to: "input_video", at: Timestamp(40_000))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(video.packets.count == 2)
        let first = try detections.packets[0].get([Detection].self)
        let boxes = first.map { [Int($0.box.x), Int($0.box.y), Int($0.box.width), Int($0.box.height)] }.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(boxes == expected.settings["default"]!.detections["vtest_300"]!.map { $0.prefix(4).map { Int($0) } })
        let frame = try video.packets[0].get(ImageFrame.self)
        let b = try #require(first.first).box
        let edge = frame[Int(b.x) + Int(b.width) / 2, Int(b.y)]
        #expect(Array(edge.prefix(3)) == [64, 255, 64], "\(edge) on the top edge of \(b)")
    }

    /// A model path that does not exist fails when the graph opens, naming the path.
    @Test func missingModel() throws {
        var o = HOGPeopleDetectorCalculator.Options()
        o.modelPath = "no/such/hog.xml"
        let runner = try CalculatorRunner(HOGPeopleDetectorCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["DETECTIONS:people"])
        runner.add(try TestImages.random(width: 64, height: 128, format: .gray8, seed: 1), tag: "IMAGE", at: 0)
        #expect { try runner.run() } throws: { "\($0)".contains("no/such/hog.xml") }
    }
}
