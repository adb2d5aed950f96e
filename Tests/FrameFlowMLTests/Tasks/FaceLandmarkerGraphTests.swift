import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// `mediapipe.tasks.vision.face_landmarker.FaceLandmarkerGraph`, loaded through MediaPipe's own
/// top-level task configs, against MediaPipe Tasks' FaceLandmarker on the same pixels
/// (Tests/Fixtures/mediapipe/tasks/face_landmarker.json, from
/// scripts/fixtures/make_mediapipe_tasks_fixtures.py): the same faces; 478 landmarks within
/// 0.5 % of the width on average and 2 % at worst (photos), ≥ 97 % of frames within 1 % (clip,
/// tracking; smoothing with num_faces 1); the 52 blendshapes named and ordered as MediaPipe's,
/// scores within 0.01. FACE_GEOMETRY is taken off the configs: FrameFlow's graph does not make
/// it yet (see tasks_face_landmarker_graph.pbtxt).
@Suite struct FaceLandmarkerGraphTests {
    struct Face: Decodable {
        var landmarks: [Double]
        var blendshapes: [Double]
    }
    struct Frame: Decodable {
        var index: Int
        var timestamp_ms: Int64?
        var rgb_sums: [String]
        var faces: [Face]
    }
    struct Names: Decodable { var blendshape_names: [String] }

    static let streams = ["norm_landmarks", "blendshapes"]

    /// How far FrameFlow's face is from MediaPipe's, in fractions of the width.
    struct Distance {
        var mean: Double
        var worst: Double
        var blendshapes: Double
    }

    /// Mean and largest landmark distance (x and y, y in width units) and the largest
    /// blendshape score difference.
    static func distance(_ got: NormalizedLandmarkList, _ blend: ClassificationList?, _ want: Face, width: Int, height: Int) -> Distance {
        let aspect = Double(height) / Double(width)
        var sum = 0.0
        var worst = 0.0
        for (k, p) in got.landmark.enumerated() where 3 * k + 1 < want.landmarks.count {
            let d = hypot(p.x - want.landmarks[3 * k], (p.y - want.landmarks[3 * k + 1]) * aspect)
            sum += d
            worst = max(worst, d)
        }
        let scores = blend?.classification.map(\.score) ?? []
        let blendDiff = scores.count == want.blendshapes.count ? zip(scores, want.blendshapes).map { abs($0 - $1) }.max() ?? 0 : .infinity
        return Distance(mean: sum / Double(max(got.landmark.count, 1)), worst: worst, blendshapes: blendDiff)
    }

    /// FrameFlow's faces of one frame, each paired with the nearest of MediaPipe's.
    static func pair(_ out: [String: Packet], _ want: [Face], width: Int, height: Int, where label: String) throws -> [Distance] {
        let faces = try out["norm_landmarks"]?.get([NormalizedLandmarkList].self) ?? []
        let blends = try out["blendshapes"]?.get([ClassificationList].self) ?? []
        #expect(faces.count == want.count, "\(label): \(faces.count) faces, MediaPipe \(want.count)")
        #expect(blends.count == faces.count, "\(label): \(blends.count) blendshape lists for \(faces.count) faces")
        var result: [Distance] = []
        for (k, f) in faces.enumerated() {
            #expect(f.landmark.count == 478, "\(label): \(f.landmark.count) landmarks")
            let options = want.map { distance(f, k < blends.count ? blends[k] : nil, $0, width: width, height: height) }
            if let best = options.min(by: { $0.mean < $1.mean }) { result.append(best) }
        }
        return result
    }

    static func blendshapeNames() throws -> [String] {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/face_landmarker.json")))
        return try JSONDecoder().decode(Names.self, from: data).blendshape_names
    }

    @Test func photosMatchMediaPipeTasks() throws {
        try TasksFixtures.requireModels()
        let names = try Self.blendshapeNames()
        #expect(names.count == 52)
        let runs = try TasksFixtures.runs("face_landmarker", as: Frame.self).filter { $0.mode == "image" }
        #expect(runs.count >= 14)
        var all: [Distance] = []
        for run in runs {
            let image = try #require(try RepositoryFiles.frames(run.path, count: 1).first)
            #expect(TasksFixtures.rgbSums(image) == run.frames[0].rgb_sums, "\(run.source): not the pixels MediaPipe was given")
            let out = try TasksFixtures.run("face_landmarker", images: [image], streams: Self.streams)
            let found = try Self.pair(out[0], run.frames[0].faces, width: run.width, height: run.height, where: run.source)
            for d in found {
                #expect(d.mean <= 0.005 && d.worst <= 0.02, "\(run.source): landmarks off by \(d.mean) on average, \(d.worst) at worst")
                #expect(d.blendshapes <= 0.01, "\(run.source): a blendshape score off by \(d.blendshapes)")
            }
            for list in try out[0]["blendshapes"]?.get([ClassificationList].self) ?? [] {
                #expect(list.classification.map { $0.label ?? "" } == names, "\(run.source): blendshape names or order differ")
                #expect(list.classification.map(\.index) == Array(0..<52), "\(run.source): blendshape indices")
            }
            all += found
        }
        #expect(!all.isEmpty)
        print(
            "FaceLandmarker photos: \(all.count) faces; landmarks mean \(all.map(\.mean).reduce(0, +) / Double(max(all.count, 1))), worst mean \(all.map(\.mean).max() ?? 0), worst \(all.map(\.worst).max() ?? 0); blendshapes worst \(all.map(\.blendshapes).max() ?? 0)"
        )
    }

    /// Video mode on carphone: num_faces 4 (tracking) and num_faces 1 (tracking and smoothing).
    @Test(arguments: [("face_landmarker_video", false), ("face_landmarker_video_single", true)])
    func clipMatchesMediaPipeTasksFrameByFrame(config: String, single: Bool) throws {
        try TasksFixtures.requireModels()
        let runs = try TasksFixtures.runs("face_landmarker", as: Frame.self).filter { $0.mode == "video" }
        // The fixture's second carphone run is the num_faces 1 one.
        let run = try #require(single ? runs.last : runs.first)
        try #require(runs.count == 2, "expected two carphone runs, got \(runs.count)")
        let frames = try RepositoryFiles.frames(run.path, count: run.frames.count)
        try #require(frames.count == run.frames.count, "\(run.source): \(frames.count) frames decoded")
        for (k, f) in frames.enumerated() {
            #expect(TasksFixtures.rgbSums(f) == run.frames[k].rgb_sums, "\(run.source) frame \(k): not the pixels MediaPipe was given")
        }
        let out = try TasksFixtures.run(
            config, images: frames, timestampsMs: run.frames.map { $0.timestamp_ms ?? Int64($0.index) }, streams: Self.streams)
        var samePresence = 0, close = 0, blendClose = 0
        var worstMean = 0.0, worst = 0.0, worstBlend = 0.0
        for (k, f) in run.frames.enumerated() {
            let faces = try out[k]["norm_landmarks"]?.get([NormalizedLandmarkList].self) ?? []
            if faces.count == f.faces.count { samePresence += 1 }
            let blends = try out[k]["blendshapes"]?.get([ClassificationList].self) ?? []
            let ds = zip(faces, f.faces).enumerated().map { i, p in
                Self.distance(p.0, i < blends.count ? blends[i] : nil, p.1, width: run.width, height: run.height)
            }
            if faces.count == f.faces.count, ds.allSatisfy({ $0.mean <= 0.01 }) { close += 1 }
            if faces.count == f.faces.count, ds.allSatisfy({ $0.blendshapes <= 0.01 }) { blendClose += 1 }
            worstMean = max(worstMean, ds.map(\.mean).max() ?? 0)
            worst = max(worst, ds.map(\.worst).max() ?? 0)
            worstBlend = max(worstBlend, ds.map(\.blendshapes).max() ?? 0)
        }
        let n = Double(run.frames.count)
        print(
            "FaceLandmarker \(config): \(run.frames.count) frames; same presence \(samePresence), landmarks within 1 % \(close) (worst mean \(worstMean), worst \(worst)), blendshapes within 0.01 \(blendClose) (worst \(worstBlend))"
        )
        if single, let unsmoothed = runs.first {
            // Smoothing must be what brings FrameFlow to MediaPipe's num_faces 1 results: they
            // lie far closer to those than MediaPipe's unsmoothed (num_faces 4) ones do.
            var apart = 0.0
            for (k, f) in unsmoothed.frames.enumerated() where k < run.frames.count {
                for (a, b) in zip(f.faces, run.frames[k].faces) {
                    let points = stride(from: 0, to: a.landmarks.count, by: 3).map { NormalizedLandmark(x: a.landmarks[$0], y: a.landmarks[$0 + 1]) }
                    let list = NormalizedLandmarkList(points)
                    apart = max(apart, Self.distance(list, nil, b, width: run.width, height: run.height).worst)
                }
            }
            print("FaceLandmarker: MediaPipe's smoothed and unsmoothed carphone landmarks differ by up to \(apart) of the width")
            #expect(worst < apart / 10, "\(config): FrameFlow \(worst) from MediaPipe's smoothed landmarks, which are \(apart) from the unsmoothed")
        }
        #expect(Double(samePresence) >= 0.97 * n, "\(config): same presence on \(samePresence) of \(run.frames.count) frames")
        #expect(Double(close) >= 0.97 * n, "\(config): landmarks within 1 % on \(close) of \(run.frames.count) frames")
        #expect(Double(blendClose) >= 0.97 * n, "\(config): blendshapes within 0.01 on \(blendClose) of \(run.frames.count) frames")
    }

    /// Image mode does not track: a sequence of frames through one graph gives what each frame
    /// gives alone (tracking would look in the regions the previous frame's landmarks gave).
    @Test func imageModeDetectsEveryFrameAfresh() throws {
        try TasksFixtures.requireModels()
        let run = try #require(try TasksFixtures.runs("face_landmarker", as: Frame.self).first { $0.mode == "video" })
        let frames = try RepositoryFiles.frames(run.path, count: 4)
        try #require(frames.count == 4)
        let together = try TasksFixtures.run("face_landmarker", images: frames, streams: Self.streams)
        for (k, frame) in frames.enumerated() {
            let alone = try TasksFixtures.run("face_landmarker", images: [frame], streams: Self.streams)
            let a = try together[k]["norm_landmarks"]?.get([NormalizedLandmarkList].self)
            let b = try alone[0]["norm_landmarks"]?.get([NormalizedLandmarkList].self)
            #expect(a != nil && a == b, "frame \(k): image mode gave other landmarks in a sequence than alone")
        }
        // With num_faces 4 and one face, video mode detects every frame too and a detection
        // replaces the tracked region it overlaps, so it gives image mode's landmarks, as MediaPipe.
        let video = try TasksFixtures.run("face_landmarker_video", images: frames, streams: Self.streams)
        for k in frames.indices {
            let a = try video[k]["norm_landmarks"]?.get([NormalizedLandmarkList].self)
            let b = try together[k]["norm_landmarks"]?.get([NormalizedLandmarkList].self)
            #expect(a != nil && a == b, "frame \(k): video mode (num_faces 4) differs from image mode")
        }
    }

    /// Video mode with num_faces 1 tracks: the detector runs on the first frame only (the
    /// graph's DETECTIONS output, added to MediaPipe's config here, has packets there alone).
    @Test func videoModeWithOneFaceDetectsOnlyUntilTracking() throws {
        try TasksFixtures.requireModels()
        let run = try #require(try TasksFixtures.runs("face_landmarker", as: Frame.self).first { $0.mode == "video" })
        let frames = try RepositoryFiles.frames(run.path, count: 5)
        let path = RepositoryFiles.fixture("mediapipe/tasks/graphs/face_landmarker_video_single_toplevel.pbtxt")
        var config = try GraphConfig(contentsOfFile: path, registry: MLFixtures.registry)
        config.outputStreams.removeAll { $0.tag == "FACE_GEOMETRY" }
        config.nodes[0].outputStreams.removeAll { $0.tag == "FACE_GEOMETRY" }
        config.nodes[0].outputStreams.append(try StreamRef(parsing: "DETECTIONS:detections"))
        config.outputStreams.append(try StreamRef(parsing: "DETECTIONS:detections"))
        let graph = try Graph(config, registry: MLFixtures.registry, environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        let detections = try PacketCollector(graph, "detections")
        let landmarks = try PacketCollector(graph, "norm_landmarks")
        try graph.start()
        for (k, f) in frames.enumerated() {
            try graph.send(f, to: "image_in", at: Timestamp(Int64(k) * 33_000))
            try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), to: "norm_rect_in", at: Timestamp(Int64(k) * 33_000))
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let detected = detections.packets.map { $0.timestamp }
        #expect(detected == [Timestamp(0)], "the detector ran at \(detected)")
        #expect(landmarks.packets.count == frames.count)
    }

    /// Broken task options are refused when the graph is built, naming what is wrong.
    @Test(arguments: [
        ("num_faces: 4", "num_faces: 0", "max_vec_size must be at least 1"), ("num_faces: 4", "num_faces: -3", "must be at least"),
        ("num_faces: 4", "num_faces: 1e308", "expected an integer, found 1e308"),
        ("min_detection_confidence: 0.5\n        num_faces", "min_detection_confidence: nan\n        num_faces", "finite number, not nan"),
        ("min_detection_confidence: 0.5\n        num_faces", "min_detection_confidence: inf\n        num_faces", "finite number, not inf"),
        ("min_detection_confidence: 0.5\n      }\n      min_tracking", "min_detection_confidence: -inf\n      }\n      min_tracking", "not -inf"),
        ("face_landmarker.task", "no_such.task", "cannot read the model asset '.build/fixtures/tasks/no_such.task'"),
    ])
    func badTaskOptionsAreRefusedAtBuild(replacing: String, with bad: String, expected: String) throws {
        try TasksFixtures.requireModels()
        let path = RepositoryFiles.fixture("mediapipe/tasks/graphs/face_landmarker_toplevel.pbtxt")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try #require(text.contains(replacing), "the fixture config changed: no '\(replacing)'")
        let broken = text.replacingOccurrences(of: replacing, with: bad).replacingOccurrences(
            of: "output_stream: \"FACE_GEOMETRY:face_geometry\"", with: "")
        let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        var message = ""
        do {
            let graph = try Graph(GraphConfig(parsing: broken, file: "broken.pbtxt"), registry: MLFixtures.registry, environment: environment)
            // A missing model file is found when the graph opens its nodes.
            #expect(bad == "no_such.task", "'\(bad)' was accepted when the graph was built")
            try graph.start()
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            Issue.record("'\(bad)' was accepted")
        } catch {
            message = "\(error)"
        }
        #expect(message.contains(expected), "'\(bad)': \(message)")
        print("FaceLandmarker refuses '\(bad.split(separator: "\n")[0])': \(message.prefix(300))")
    }

    /// MultiFaceLandmarksDetectorGraph on its own smooths by its smooth_landmarks option when
    /// nothing is connected to SMOOTH: the first frame passes as it is, later ones move.
    @Test func multiFaceGraphSmoothsByItsOption() throws {
        try TasksFixtures.requireModels()
        let run = try #require(try TasksFixtures.runs("face_landmarker", as: Frame.self).first { $0.mode == "video" })
        let frames = try RepositoryFiles.frames(run.path, count: 4)
        // One fixed region around MediaPipe's first-frame face, ×1.5 of its landmarks' box.
        let l = try #require(run.frames.first?.faces.first?.landmarks)
        let xs = stride(from: 0, to: l.count, by: 3).map { l[$0] }, ys = stride(from: 1, to: l.count, by: 3).map { l[$0] }
        let rect = NormalizedRect(
            xCenter: (xs.min()! + xs.max()!) / 2, yCenter: (ys.min()! + ys.max()!) / 2, width: (xs.max()! - xs.min()!) * 1.5,
            height: (ys.max()! - ys.min()!) * 1.5)
        func landmarks(smooth: Bool) throws -> [[NormalizedLandmarkList]] {
            let text = """
                input_stream: "IMAGE:image"
                input_stream: "NORM_RECT:rects"
                output_stream: "NORM_LANDMARKS:landmarks"
                node {
                  calculator: "mediapipe.tasks.vision.face_landmarker.MultiFaceLandmarksDetectorGraph"
                  input_stream: "IMAGE:image"
                  input_stream: "NORM_RECT:rects"
                  output_stream: "NORM_LANDMARKS:landmarks"
                  options { [mediapipe.tasks.vision.face_landmarker.proto.FaceLandmarksDetectorGraphOptions.ext] {
                    base_options { model_asset { file_name: ".build/fixtures/tasks/face_landmarker.task" } }
                    smooth_landmarks: \(smooth)
                  } }
                }
                """
            let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
            let graph = try Graph(GraphConfig(parsing: text, file: "multi.pbtxt"), registry: MLFixtures.registry, environment: environment)
            let out = try PacketCollector(graph, "landmarks")
            try graph.start()
            for (k, f) in frames.enumerated() {
                try graph.send(f, to: "image", at: Timestamp(Int64(k) * 33_000))
                try graph.send([rect], to: "rects", at: Timestamp(Int64(k) * 33_000))
            }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return try out.packets.map { try $0.get([NormalizedLandmarkList].self) }
        }
        let raw = try landmarks(smooth: false), smoothed = try landmarks(smooth: true)
        try #require(raw.count == frames.count && smoothed.count == frames.count)
        func apart(_ k: Int) -> Double {
            guard let a = raw[k].first, let b = smoothed[k].first else { return .infinity }
            return zip(a.landmark, b.landmark).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? .infinity
        }
        // The first frame comes back as it went in (to pixels and back in Float: rounding only).
        #expect(apart(0) < 1e-6, "the first frame moved by \(apart(0))")
        let moved = (1..<frames.count).map(apart).max() ?? 0
        #expect(moved > 1e-4, "smooth_landmarks moved the later frames by \(moved) only")
        print("FaceLandmarker: MultiFaceLandmarksDetectorGraph's smoothing moved landmarks by up to \(moved) on frames 1…3")
    }
}
