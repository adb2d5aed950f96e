import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's own Face Mesh and Hands results (Tests/Fixtures/mediapipe/{face_mesh,hands}.json,
/// from scripts/fixtures/make_mediapipe_mesh_hands_fixtures.py) and the means to run
/// MediaPipe's compiled graphs on the same pixels and compare.
enum MediaPipeSolutionFixtures {
    struct Hand: Decodable {
        var label: String
        var index: Int
        var score: Float
        var landmarks: [Float]
        var world_landmarks: [Float]
    }
    struct Frame: Decodable {
        var index: Int
        var faces: [[Float]]?
        var hands: [Hand]?
    }
    struct Run: Decodable {
        var source: String
        var path: String
        var width: Int
        var height: Int
        var static_image_mode: Bool
        var max_num_faces: Int?
        var refine_landmarks: Bool?
        var max_num_hands: Int?
        var model_complexity: Int?
        var frames: [Frame]
    }
    struct File: Decodable { var runs: [Run] }

    static let moduleRoot = ".build/fixtures/mediapipe"

    /// Whether this is an optimized build: a whole clip through the models takes minutes
    /// unoptimized, so the clip tests run in `make test`'s release pass.
    static let optimized: Bool = {
        #if DEBUG
            return false
        #else
            return true
        #endif
    }()
    static func module(_ relative: String) -> String { MLFixtures.path(moduleRoot + "/mediapipe/modules/" + relative) }

    static func runs(_ file: String) -> [Run] {
        guard let data = FileManager.default.contents(atPath: RepositoryFiles.path("Tests/Fixtures/mediapipe/\(file).json")),
            let f = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return f.runs
    }
    static let faceMesh = runs("face_mesh")
    static let hands = runs("hands")

    /// The first `count` frames of a photo or clip as RGB, decoded as MediaPipe's script decoded them.
    static func frames(_ path: String, count: Int) throws -> [ImageFrame] {
        let full = path.hasPrefix("/") ? path : MLFixtures.path(path)
        try #require(FileManager.default.fileExists(atPath: full), "\(full) is missing: run scripts/setup.sh test")
        let source = try MediaSource(full, options: .init(pixelFormat: .rgb8))
        var out: [ImageFrame] = []
        while out.count < count, let f = try source.read() { out.append(f.image) }
        return out
    }

    /// Runs MediaPipe's compiled graph `binary` on `images` (one graph for the whole sequence:
    /// tracking carries from frame to frame when the side packets ask for it) and returns, per
    /// frame, the packets of `streams` at its timestamp (absent: nothing that frame).
    static func run(_ binary: String, images: [ImageFrame], sidePackets: [String: any Sendable], streams: [String]) throws
        -> [[String: Packet]]
    {
        try MLFixtures.withMediaPipeEnvironment { env in
            let graph = try Graph(
                GraphConfig(contentsOfFile: binary, registry: MLFixtures.registry), registry: MLFixtures.registry, environment: env)
            let collectors = try streams.map { try PacketCollector(graph, $0) }
            try graph.start(sidePackets: sidePackets)
            for (k, image) in images.enumerated() { try graph.send(image, to: "image", at: Timestamp(Int64(k) * 33_333)) }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return images.indices.map { k in
                var byStream: [String: Packet] = [:]
                for (name, c) in zip(streams, collectors) {
                    if let p = c.packets.first(where: { $0.timestamp == Timestamp(Int64(k) * 33_333) }) { byStream[name] = p }
                }
                return byStream
            }
        }
    }

    /// Distances between landmark lists in image pixels over the image width (x, y only):
    /// the mean and the largest.
    static func distance(_ ours: NormalizedLandmarkList, _ theirs: [Float], width: Int, height: Int) -> (mean: Double, max: Double) {
        guard ours.landmark.count * 3 == theirs.count, !theirs.isEmpty else { return (.infinity, .infinity) }
        var sum = 0.0, worst = 0.0
        for (i, p) in ours.landmark.enumerated() {
            let dx = (p.x - Double(theirs[3 * i])) * Double(width), dy = (p.y - Double(theirs[3 * i + 1])) * Double(height)
            let d = (dx * dx + dy * dy).squareRoot() / Double(width)
            sum += d
            worst = max(worst, d)
        }
        return (sum / Double(ours.landmark.count), worst)
    }

    /// Pairs each of MediaPipe's lists with the nearest of ours (lists can come in another order).
    static func match(_ ours: [NormalizedLandmarkList], _ theirs: [[Float]], width: Int, height: Int)
        -> [(ours: Int, theirs: Int, mean: Double, max: Double)]
    {
        var used = Set<Int>()
        return theirs.indices.compactMap { t in
            let best = ours.indices.filter { !used.contains($0) }
                .map { ($0, distance(ours[$0], theirs[t], width: width, height: height)) }
                .min { $0.1.mean < $1.1.mean }
            guard let best else { return nil }
            used.insert(best.0)
            return (best.0, t, best.1.mean, best.1.max)
        }
    }
}
