import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Fixtures from scripts/fixtures/make_haar_fixtures.py (run by scripts/setup.sh test).
enum HaarFixtures {
    static let dir = URL(fileURLWithPath: RepositoryFiles.fixture("")).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/fixtures/haar")
    static func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    static let cascadeDirs = ["/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades"]

    static func expected() throws -> [String: [String: [String: [[Int]]]]] {
        let url = dir.appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url) else {
            throw FixtureMissing(description: "\(url.path) is missing: run scripts/setup.sh test (make test does)")
        }
        return try JSONDecoder().decode([String: [String: [String: [[Int]]]]].self, from: data)
    }

    static func cascade(_ name: String) throws -> CascadeClassifier {
        let path = name.hasPrefix("lbp") ? "/usr/share/opencv4/lbpcascades/\(name)" : "/usr/share/opencv4/haarcascades/\(name)"
        return try CascadeClassifier(contentsOfFile: path)
    }

    struct FixtureMissing: Error, CustomStringConvertible { var description: String }
}

func iou(_ a: [Int], _ b: HaarCascadeDetector.Hit) -> Double {
    Rect(x: Double(a[0]), y: Double(a[1]), width: Double(a[2]), height: Double(a[3]))
        .iou(Rect(x: Double(b.x), y: Double(b.y), width: Double(b.width), height: Double(b.height)))
}

@Suite struct HaarCascadeDetectorTests {
    static let params: [String: HaarCascadeDetector.Parameters] = [
        "1.1,2,30": .init(scaleFactor: 1.1, minNeighbors: 2, minSize: (30, 30)),
        "1.2,3": .init(scaleFactor: 1.2, minNeighbors: 3),
    ]

    /// Every OpenCV box matched by one of ours with IoU ≥ 0.9, and no extra boxes: on the
    /// astronaut, the 100 faces and 100 non-faces of lfw_subset, and carphone frames.
    @Test(arguments: ["haarcascade_frontalface_alt.xml", "haarcascade_frontalface_default.xml", "lbpcascade_frontalface_improved.xml"])
    func matchesOpenCV(cascadeName: String) throws {
        let expected = try HaarFixtures.expected()
        let detector = HaarCascadeDetector(cascade: try HaarFixtures.cascade(cascadeName))
        var images = 0, boxes = 0
        var problems: [String] = []
        for (pname, p) in Self.params.sorted(by: { $0.key < $1.key }) {
            let byImage = try #require(expected[cascadeName]?[pname])
            for (image, want) in byImage.sorted(by: { $0.key < $1.key }) {
                let gray = try TestImages.readPNM(HaarFixtures.path(image + ".pgm"))
                let got = try detector.detect(gray, parameters: p)
                images += 1
                boxes += want.count
                for w in want where !got.contains(where: { iou(w, $0) >= 0.9 }) {
                    problems.append("\(pname) \(image): OpenCV box \(w) not found in \(got.map { [$0.x, $0.y, $0.width, $0.height] })")
                }
                if got.count > want.count {
                    problems.append(
                        "\(pname) \(image): \(got.count) boxes, OpenCV has \(want.count): \(got.map { [$0.x, $0.y, $0.width, $0.height] }) vs \(want)"
                    )
                }
            }
        }
        #expect(images == 2 * 213)
        #expect(boxes > 100)
        #expect(problems.isEmpty, "\(problems.count) mismatches, first: \(problems.prefix(8).joined(separator: "\n"))")
    }

    @Test func integralImagesMatchOpenCV() throws {
        let data = try Data(contentsOf: HaarFixtures.dir.appendingPathComponent("integral.json"))
        struct Ref: Decodable { var image: [[UInt8]]; var sum: [[Int32]]; var sqsum: [[Int64]]; var tilted: [[Int32]] }
        let ref = try JSONDecoder().decode(Ref.self, from: data)
        let h = ref.image.count, w = ref.image[0].count
        let img = try TestImages.make(width: w, height: h, format: .gray8) { x, y, _ in ref.image[y][x] }
        let levels = HaarCascadeDetector.integrals(of: img)
        #expect(levels.sum == ref.sum.flatMap { $0 })
        #expect(levels.sqsum == ref.sqsum.flatMap { $0 }.map { Int32(truncatingIfNeeded: $0) })
        #expect(levels.tilted == ref.tilted.flatMap { $0 })
    }
}

@Suite struct CascadeClassifierTests {
    @Test func everyInstalledCascadeLoads() throws {
        var loaded = 0
        for dir in HaarFixtures.cascadeDirs {
            for file in try FileManager.default.contentsOfDirectory(atPath: dir) where file.hasSuffix(".xml") {
                let c = try CascadeClassifier(contentsOfFile: dir + "/" + file)
                #expect(!c.stages.isEmpty, "\(file)")
                #expect(c.featureType == (dir.contains("lbp") ? .lbp : .haar), "\(file)")
                loaded += 1
            }
        }
        #expect(loaded >= 20)
        let alt = try HaarFixtures.cascade("haarcascade_frontalface_alt.xml")
        #expect(alt.windowSize == (20, 20) && alt.stages.count == 22 && alt.isStumpBased)
        #expect(!(try HaarFixtures.cascade("haarcascade_lefteye_2splits.xml")).isStumpBased)
    }

    static let valid = """
        <?xml version="1.0"?>
        <opencv_storage>
        <cascade><stageType>BOOST</stageType><featureType>HAAR</featureType><height>4</height><width>4</width>
          <stageParams><maxWeakCount>1</maxWeakCount></stageParams>
          <featureParams><maxCatCount>0</maxCatCount></featureParams>
          <stageNum>1</stageNum>
          <stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>-1.0</stageThreshold>
            <weakClassifiers><_><internalNodes>0 -1 0 0.5</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages>
          <features><_><rects><_>0 0 4 2 -1.</_><_>0 2 4 2 1.</_></rects></_></features>
        </cascade>
        </opencv_storage>
        """

    @Test func aMinimalCascadeLoads() throws {
        let c = try CascadeClassifier(xml: Data(Self.valid.utf8))
        #expect(c.haarFeatures.count == 1 && c.stages[0].trees[0].leaves == [-1, 1])
    }

    /// Each malformed case names the element and its line.
    @Test(arguments: [
        ("<featureType>HAAR</featureType>", "<featureType>SIFT</featureType>", "cascade/featureType", "SIFT"),
        ("<width>4</width>", "<width>four</width>", "cascade/width", "not an integer"),
        ("<width>4</width>", "", "cascade", "missing <width>"),
        ("0 -1 0 0.5", "0 -1 0", "internalNodes", "not a multiple of 4"),
        ("<leafValues>-1. 1.</leafValues>", "<leafValues>-1.</leafValues>", "leafValues", "1 leaf values for 1 nodes"),
        ("<stageThreshold>-1.0</stageThreshold>", "<stageThreshold>x</stageThreshold>", "stageThreshold", "'x' is not a number"),
        ("0 2 4 2 1.", "0 2 4 2", "rects/_", "needs x y width height weight"),
        ("0 2 4 2 1.", "0 3 4 2 1.", "rects", "outside the 4×4 window"),
        ("0 -1 0 0.5", "0 -1 3 0.5", "features", "trees use feature 3"),
        ("<stageNum>1</stageNum>", "<stageNum>2</stageNum>", "stageNum", "stageNum says 2"),
        ("<width>4</width>", "<width>4</wdth>", "", "XML error"),
    ])
    func malformed(find: String, replace: String, element: String, message: String) {
        let xml = Self.valid.replacingOccurrences(of: find, with: replace)
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: Data(xml.utf8), file: "bad.xml") }
        #expect(e?.file == "bad.xml")
        #expect(element.isEmpty || e?.element.contains(element) == true, "\(String(describing: e))")
        #expect(e?.description.contains(message) == true, "\(String(describing: e))")
        #expect((e?.line ?? 0) > 0, "\(String(describing: e))")
    }

    @Test func missingFile() {
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(contentsOfFile: "/nonexistent.xml") }
        #expect(e?.description.hasPrefix("/nonexistent.xml") == true)
    }
}

@Suite struct HaarCascadeDetectorCalculatorTests {
    @Test func detectsTheAstronautsFaceInColour() throws {
        var o = HaarCascadeDetectorCalculator.Options()
        o.minNeighbors = 3
        let runner = try CalculatorRunner(HaarCascadeDetectorCalculator.self, options: o, inputs: ["IMAGE:in"], outputs: ["DETECTIONS:faces"])
        runner.add(try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true), tag: "IMAGE", at: 0)
        try runner.run()
        let faces = try runner.outputs("DETECTIONS")[0].get([Detection].self)
        #expect(faces.count == 1)
        let f = try #require(faces.first)
        // The face is around (88…136, 32…80) in the half-size photo.
        #expect(f.box.x > 80 && f.box.maxX < 145 && f.box.y > 20 && f.box.maxY < 90, "\(f.box)")
        #expect(f.label == "face" && f.score > 3)
    }

    @Test func badOptions() {
        var o = HaarCascadeDetectorCalculator.Options()
        o.scaleFactor = 1.0
        #expect(throws: GraphError.self) { try o.validate() }
        o.scaleFactor = 1.1
        o.minSize = [30]
        #expect(throws: GraphError.self) { try o.validate() }
    }

    /// A scale factor so close to 1 that the pyramid keeps 1000 near-full-size levels (or so
    /// large it is meaningless), and huge counts and sizes, are refused when the graph is built;
    /// the edges of the ranges run.
    @Test(arguments: [
        ("scale_factor: 1.0000001", "scale_factor"), ("scale_factor: 1e308", "scale_factor"), ("scale_factor: 1.009", "scale_factor"),
        ("min_neighbors: 2147483647", "min_neighbors"), ("min_neighbors: -1", "min_neighbors"),
        ("min_size: [2147483647, 1]", "min_size"), ("max_size: [1, 32769]", "max_size"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "HaarCascadeDetectorCalculator" input_stream: "IMAGE:in" output_stream: "DETECTIONS:d"
            options { [frameflow.HaarCascadeDetectorCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }

    @Test(arguments: [
        "scale_factor: 1.01 min_neighbors: 100000 min_size: [0, 0] max_size: [32768, 32768]",
        "scale_factor: 100 min_neighbors: 0 min_size: [32768, 32768]",
    ])
    func edgesOfTheRangesRun(options: String) throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "HaarCascadeDetectorCalculator" input_stream: "IMAGE:in" output_stream: "DETECTIONS:d"
                options { [frameflow.HaarCascadeDetectorCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        runner.add(try TestImages.random(width: 64, height: 48, format: .gray8, seed: 4), tag: "IMAGE", at: 0)
        try runner.run()
        #expect(try runner.outputs("DETECTIONS")[0].get([Detection].self).isEmpty)
    }

    /// The tutorial graph on one photo: the overlay waits for that frame's detections, so the
    /// only frame carries its own box (it drew the previous frame's boxes before: none).
    @Test func aSinglePhotoGetsItsOwnBox() throws {
        let path = URL(fileURLWithPath: RepositoryFiles.fixture("")).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Graphs/face_detection_haar.pbtxt").path
        let graph = try Graph(contentsOfFile: path, registry: .standard)
        let video = try PacketCollector(graph, "output_video")
        let detections = try PacketCollector(graph, "detections")
        try graph.start()
        try graph.send(try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true), to: "input_video", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let frame = try #require(video.packets.first).get(ImageFrame.self)
        let found = try #require(detections.packets.first).get([Detection].self)
        let box = try #require(found.first).box
        #expect(frame[Int(box.x) + 5, Int(box.y)] == [255, 64, 64, 255])
    }

    /// The tutorial graph: every video frame comes out, detection runs on some of them, and
    /// frames after the first detection carry the box.
    @Test func faceDetectionGraphKeepsFullFrameRate() throws {
        let path = URL(fileURLWithPath: RepositoryFiles.fixture("")).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Graphs/face_detection_haar.pbtxt"
        ).path
        let graph = try Graph(contentsOfFile: path, registry: .standard)
        let video = try PacketCollector(graph, "output_video")
        let detections = try PacketCollector(graph, "detections")
        try graph.start()
        let photo = try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true)
        for i in 0..<20 {
            try graph.send(photo, to: "input_video", at: Timestamp(Int64(i) * 33_333))
            if i == 0 { try graph.waitUntilIdle() }  // the first detection is in before frame 1
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(video.packets.count == 20)
        #expect(detections.packets.count >= 1 && detections.packets.count <= 20)
        let last = try video.packets.last!.get(ImageFrame.self)
        let box = try #require(try detections.packets.last!.get([Detection].self).first).box
        // The overlay's box colour (255, 64, 64) on the box's top edge.
        #expect(last[Int(box.x) + 5, Int(box.y)] == [255, 64, 64, 255])
    }
}

/// Inputs the fuzzers found; each must now be a clean error.
@Suite struct CascadeFuzzRegressionTests {
    @Test func invalidUTF8InAComment() throws {
        let data = try Data(
            contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("")).appendingPathComponent("fuzz/cascade/invalid-utf8-comment.xml"))
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: data, file: "fuzzed.xml") }
        #expect(e?.description.contains("not valid UTF-8") == true, "\(String(describing: e))")
        #expect(e?.line == 26, "the line of byte 1232, the first invalid one")
    }

    @Test func everyCommittedFindingIsAnErrorOrLoads() throws {
        let dir = URL(fileURLWithPath: RepositoryFiles.fixture("")).appendingPathComponent("fuzz/cascade")
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            _ = try? CascadeClassifier(xml: Data(contentsOf: dir.appendingPathComponent(f)), file: f)  // must not crash
        }
    }

    @Test func processingInstructionWithoutData() throws {
        let data = try Data(
            contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("")).appendingPathComponent("fuzz/cascade/processing-instruction.xml"))
        let e = #expect(throws: CascadeError.self) { try CascadeClassifier(xml: data, file: "fuzzed.xml") }
        #expect(e?.description.contains("processing instructions") == true, "\(String(describing: e))")
    }
}
