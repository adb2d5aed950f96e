import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// `MotionGateCalculator`: its rule on random inputs, its ports, a static five-minute scene
/// (the detector must almost never run) and vtest.avi (gating must lose no person).
@Suite struct MotionGateCalculatorTests {
    /// On random motion and object sequences, the decisions follow the rule: the first frame,
    /// every frame with a large enough motion box, and, while objects exist, no run of
    /// `stationary_interval` frames without the detector (nor of `max_interval` frames when set);
    /// and never otherwise.
    @Test(arguments: [(0.0, 25, 0), (500.0, 10, 0), (0.0, 1, 0), (100.0, 7, 30)])
    func decisionsFollowTheRule(minArea: Double, interval: Int, maxInterval: Int) {
        var options = MotionGateCalculator.Options()
        options.minMotionArea = minArea
        options.stationaryInterval = interval
        options.maxInterval = maxInterval
        var policy = MotionGateCalculator.Policy(options)
        var rng = SplitMix64(seed: UInt64(interval * 1000 + maxInterval))
        var lastRun = -1
        var objects = false
        var runs = 0
        for f in 0..<3000 {
            let boxes: [Rect] =
                Int.random(in: 0..<10, using: &rng) == 0
                ? (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                    Rect(x: 0, y: 0, width: Double.random(in: 1...40, using: &rng), height: Double.random(in: 1...40, using: &rng))
                } : []
            let report: Bool? = Int.random(in: 0..<50, using: &rng) == 0 ? Bool.random(using: &rng) : nil
            if let report { objects = report }
            let run = policy.decide(motion: boxes, objectsPresent: report)
            let motion = boxes.contains { $0.width * $0.height >= minArea }
            let due = (objects && f - lastRun >= interval) || (maxInterval > 0 && f - lastRun >= maxInterval)
            #expect(run == (f == 0 || motion || due), "frame \(f)")
            if run {
                lastRun = f
                runs += 1
            }
        }
        #expect(runs > 0 && runs < 3000)
    }

    /// The node: ALLOW per MOTION packet; TRACKS packets (from earlier frames) only update
    /// whether objects exist.
    @Test func calculatorAllowsOnMotionAndRechecksTrackedObjects() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "MotionGateCalculator" input_stream: "MOTION:motion" input_stream: "TRACKS:tracks" output_stream: "ALLOW:allow"
                options { [frameflow.MotionGateCalculatorOptions.ext] { stationary_interval: 3 } }
                """, registry: .standard)
        let box = Detection(pixelBox: .init(xmin: 5, ymin: 5, width: 10, height: 10), score: 1, label: "motion")
        let track = TrackedObject.testValue
        let motion: [[Detection]] = [[], [], [box], [], [], [], [], [], []]
        for (f, m) in motion.enumerated() {
            runner.add(m, tag: "MOTION", at: Timestamp(Int64(f) * 1000))
            if f == 2 { runner.add([track], tag: "TRACKS", at: Timestamp(Int64(f) * 1000)) }
            if f == 6 { runner.add([TrackedObject](), tag: "TRACKS", at: Timestamp(Int64(f) * 1000)) }
        }
        try runner.run()
        let allow = try runner.outputs("ALLOW").map { try $0.get(Bool.self) }
        // 0: first frame; 2: motion; 5: three frames since, with an object; after 6 none.
        #expect(allow == [true, false, true, false, false, true, false, false, false])
    }

    /// A still from a real clip (a corner of vtest.avi's first frame, 48 × 36) for five minutes
    /// at 30 fps (9000 frames) with Gaussian sensor noise (σ 2 grey levels), a slow lighting
    /// ramp (+30 levels) and a light switched on (+50 at 2:30): the detector runs on fewer than
    /// 5 % of the frames; a dark figure crossing the scene once makes it run on every frame
    /// the figure moves in.
    @Test func staticSceneRunsTheDetectorRarely() throws {
        let still = try MotionFixtures.vtest(0..<1)[0]
        let (w, h) = (48, 36)
        var base = [Int](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { base[y * w + x] = Int(still.row(4 * y)[4 * x]) } }
        var parameters = MotionDetector.Parameters()
        parameters.frameHeight = h
        var detector = try MotionDetector(parameters)
        var policy = MotionGateCalculator.Policy(MotionGateCalculator.Options())
        var rng = SplitMix64(seed: 7)
        let normals = (0..<4096).map { _ in  // Box–Muller, σ 2
            2 * (-2 * Foundation.log(Double.random(in: 1e-12...1, using: &rng))).squareRoot()
                * Foundation.cos(2 * Double.pi * Double.random(in: 0..<1, using: &rng))
        }
        let crossing = 7000..<7040
        var runs = 0, lightning = 0
        var pixels = [UInt8](repeating: 0, count: w * h)
        for t in 0..<9000 {
            let light = 30 * t / 9000 + (t >= 4500 ? 50 : 0)
            var state = UInt64(t) &* 0x9E37_79B9_7F4A_7C15 | 1
            for i in 0..<(w * h) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let v = Double(base[i] + light) + normals[Int(state >> 52)]
                pixels[i] = UInt8(min(max(v.rounded(), 0), 255))
            }
            if crossing.contains(t) {  // a 6 × 14 dark figure walking right, one pixel a frame
                let x0 = t - crossing.lowerBound
                for y in 12..<26 { for x in x0..<min(x0 + 6, w) { pixels[y * w + x] = 20 } }
            }
            let result = try detector.detect(try MotionFixtures.gray(pixels, width: w, height: h))
            lightning += result.lightning ? 1 : 0
            // The tracker's objects: the figure, until a second after it left.
            let objects = t >= crossing.lowerBound + 1 && t < crossing.upperBound + 30
            let run = policy.decide(motion: result.boxes, objectsPresent: objects)
            if run { runs += 1 }
            if t > crossing.lowerBound && t < crossing.upperBound { #expect(run, "frame \(t): the figure moves") }
        }
        print("static scene, 9000 frames: detector ran on \(runs) (\(Double(runs) / 90) %), lighting changes \(lightning)")
        #expect(runs < 450)
        #expect(lightning == 1)
    }

    /// vtest.avi, all 795 frames: with the detector gated by motion alone (no re-checks), every
    /// person the ungated detector finds on a frame is found by the gated one — the frame's own
    /// detections when the gate ran, else those of the last frame it ran on (IoU ≥ 0.5).
    /// The HOG detector runs on every frame the gate skipped and on the frame it ran before it
    /// (a debug build checks the first 3 of them); on the frames of the HOG fixtures (OpenCV's
    /// people, every 30th frame) every person also lies in a motion box.
    @Test func gatingOnVtestLosesNoPerson() throws {
        let expected = try HOGFixtures.expected()
        var detector = try MotionDetector(MotionDetector.Parameters())
        var options = MotionGateCalculator.Options()
        options.stationaryInterval = 1_000_000
        var policy = MotionGateCalculator.Policy(options)
        var skipped: [(frame: Int, ranOn: Int)] = []
        var lastRun = 0
        var motionBoxes: [Int: [Rect]] = [:]
        for start in stride(from: 0, to: MotionFixtures.clipFrames, by: 53) {
            for (k, frame) in try MotionFixtures.vtest(start..<min(start + 53, MotionFixtures.clipFrames)).enumerated() {
                let f = start + k
                let r = try detector.detect(frame)
                if f % 30 == 0 { motionBoxes[f] = r.boxes }
                if policy.decide(motion: r.boxes, objectsPresent: false) { lastRun = f } else { skipped.append((f, lastRun)) }
            }
        }
        print("vtest.avi: the gate skipped \(skipped.count) of \(MotionFixtures.clipFrames) frames")
        let hog = try HOGDescriptor(contentsOfFile: HOGFixtures.model)
        for (f, ranOn) in skipped.prefix(HOGFixtures.optimized ? skipped.count : 3) {
            let frames = try MotionFixtures.vtest(ranOn..<(ranOn + 1)) + MotionFixtures.vtest(f..<(f + 1))
            let gated = try hog.detectMultiScale(frames[0], parameters: .init())
            for p in try hog.detectMultiScale(frames[1], parameters: .init()) {
                #expect(gated.contains { iou($0, p) >= 0.5 }, "frame \(f): person \(p) not found on frame \(ranOn)")
            }
        }
        var people = 0
        for (name, boxes) in try #require(expected.settings["default"]).detections {
            let f = try #require(Int(name.dropFirst("vtest_".count)))
            guard f > 0 else { continue }  // the first frame has no background yet (the gate runs on it)
            for b in boxes {
                let person = Rect(x: b[0], y: b[1], width: b[2], height: b[3])
                #expect(try #require(motionBoxes[f]).contains { $0.intersects(person) }, "\(name): person \(b) outside every motion box")
                people += 1
            }
        }
        #expect(people >= 40)
    }

    /// Graphs/people_detection_hog_gated.pbtxt on the synthetic sequence (no people; the graph
    /// has no mask, so the square in the corner moves too): every frame comes out with the
    /// motion boxes drawn, the motion boxes are `MotionDetector`'s with the graph's settings,
    /// and the detector (so the tracker) ran on the first frame and on the frames with motion only.
    @Test func gatedGraphRunsTheDetectorOnMotionFrames() throws {
        let expected = try MotionFixtures.expected().synthetic
        let graph = try Graph(
            contentsOfFile: RepositoryFiles.path("Graphs/people_detection_hog_gated.pbtxt"), registry: .standard,
            environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        let video = try PacketCollector(graph, "output_video")
        let detections = try PacketCollector(graph, "detections")
        let motion = try PacketCollector(graph, "motion")
        let tracks = try PacketCollector(graph, "tracks")
        var detector = try MotionDetector(MotionDetector.Parameters())
        var own: [[Rect]] = []
        try graph.start()
        for t in 0..<expected.frames.count {
            let px = MotionFixtures.syntheticPixels(t)
            let image = try TestImages.make(width: 160, height: 120, format: .rgb8) { x, y, _ in px[y * 160 + x] }
            try graph.send(image, to: "input_video", at: Timestamp(Int64(t) * 100_000))
            try graph.waitUntilIdle()
            own.append(try detector.detect(try MotionFixtures.gray(px, width: 160, height: 120)).boxes)
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(video.packets.count == expected.frames.count && motion.packets.count == expected.frames.count)
        let boxes = try motion.packets.map { try $0.get([Detection].self) }
        #expect(boxes.map { $0.count } == own.map(\.count))
        #expect(try tracks.packets.allSatisfy { try $0.get([TrackedObject].self).isEmpty })  // no one: no re-checks
        let ran = [0] + boxes.indices.filter { !boxes[$0].isEmpty }
        #expect(ran.count > 30 && ran.count < expected.frames.count)
        #expect(detections.packets.map { Int($0.timestamp.microseconds / 100_000) } == ran)
        // The motion boxes are drawn in the graph's yellow.
        let f = try #require(ran.dropFirst().first)
        let frame = try video.packets[f].get(ImageFrame.self)
        let box = try #require(motion.packets[f].get([Detection].self).first).box
        let edge = frame[Int(box.x) + Int(box.width) / 2, Int(box.y)]
        #expect(Array(edge.prefix(3)) == [255, 220, 0], "\(edge) on the top edge of \(box)")
    }

    @Test(arguments: [
        ("min_motion_area: nan", "min_motion_area"), ("min_motion_area: inf", "min_motion_area"), ("min_motion_area: -1", "min_motion_area"),
        ("min_motion_area: 1e308", "min_motion_area"), ("stationary_interval: 0", "stationary_interval"),
        ("stationary_interval: -25", "stationary_interval"), ("stationary_interval: 100000000000", "stationary_interval"),
        ("max_interval: -1", "max_interval"), ("max_interval: 100000000000", "max_interval"),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "MotionGateCalculator" input_stream: "MOTION:m" output_stream: "ALLOW:a"
            options { [frameflow.MotionGateCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}

/// Intersection over union of two HOG boxes.
private func iou(_ a: HOGDescriptor.Hit, _ b: HOGDescriptor.Hit) -> Double {
    let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
    let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
    let inter = Double(w * h)
    return inter / (Double(a.width * a.height + b.width * b.height) - inter)
}

extension Rect {
    /// Whether the two rectangles overlap.
    fileprivate func intersects(_ o: Rect) -> Bool { x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height }
}

extension TrackedObject {
    /// A confirmed track, for the gate's TRACKS input.
    fileprivate static var testValue: TrackedObject {
        let tracker = ByteTracker(ByteTracker.Parameters())
        _ = tracker.update([.init(x1: 10, y1: 10, x2: 30, y2: 60, score: 0.9)], time: 0)
        return tracker.tracks[0]
    }
}
