import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowInference
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe Tasks' own results (Tests/Fixtures/mediapipe/tasks/<task>.json, from
/// scripts/fixtures/make_mediapipe_tasks_fixtures.py) and the means to run MediaPipe's own
/// top-level task configs (Tests/Fixtures/mediapipe/tasks/graphs/<task>_toplevel.pbtxt, whose
/// model paths are relative to the repository) on FrameFlow with the same pixels.
enum TasksFixtures {
    /// The fields every run has; each task's test decodes its own result fields.
    struct Run<Frame: Decodable>: Decodable {
        var source: String
        var path: String
        var mode: String
        var width: Int
        var height: Int
        var frames: [Frame]
    }
    struct File<Frame: Decodable>: Decodable { var runs: [Run<Frame>] }

    /// The runs of `<task>.json` (empty when it cannot be read: the test then fails on it).
    static func runs<Frame: Decodable>(_ task: String, as: Frame.Type) throws -> [Run<Frame>] {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/\(task).json")))
        return try JSONDecoder().decode(File<Frame>.self, from: data).runs
    }

    /// `<folder>/<name>.zip`'s `<name>.json` (a committed fixture under Tests/Fixtures), decoded.
    static func zippedJSON<T: Decodable>(_ folder: String, _ name: String, as: T.Type) throws -> T {
        let path = RepositoryFiles.fixture("\(folder)/\(name).zip")
        let bytes = try #require(FileManager.default.contents(atPath: path), "\(path) is missing")
        let json = try ZipArchive(bytes: [UInt8](bytes), name: "\(name).zip").data(named: "\(name).json")
        return try JSONDecoder().decode(T.self, from: Data(json))
    }

    /// The one video-mode run of a long clip's fixture, `clips/<task>_<clip>.zip` (one deflated
    /// JSON entry `<task>_<clip>.json` of the same shape as `<task>.json`).
    static func clipRun<Frame: Decodable>(_ task: String, clip: String, as: Frame.Type) throws -> Run<Frame> {
        let name = "\(task)_\(clip)"
        let runs = try zippedJSON("mediapipe/tasks/clips", name, as: File<Frame>.self).runs
        try #require(runs.count == 1 && runs[0].mode == "video", "\(name).zip: expected one video run")
        return runs[0]
    }

    /// Whether the clip tests run: in optimized builds (a clip through the models takes
    /// minutes unoptimized), or when FRAMEFLOW_TASKS_CLIPS is set.
    static let clipsEnabled = MediaPipeSolutionFixtures.optimized || ProcessInfo.processInfo.environment["FRAMEFLOW_TASKS_CLIPS"] != nil

    /// The bundles `scripts/setup.sh test` extracts, and the one model the script took out of one.
    static func requireModels() throws {
        try #require(
            FileManager.default.fileExists(atPath: RepositoryFiles.built("tasks/face_detector.tflite")),
            "run scripts/setup.sh test (and scripts/fixtures/make_mediapipe_tasks_fixtures.py images)")
    }

    /// The fixture script's checksums of `image`'s RGB bytes: their sum and the sum of byte i
    /// times i + 1, modulo 2⁶⁴, as 16 hex digits each.
    static func rgbSums(_ image: ImageFrame) -> [String] {
        var sum: UInt64 = 0
        var weighted: UInt64 = 0
        var i: UInt64 = 1
        for y in 0..<image.height {
            for b in image.row(y) {
                sum &+= UInt64(b)
                weighted &+= UInt64(b) &* i
                i &+= 1
            }
        }
        return [String(format: "%016llx", sum), String(format: "%016llx", weighted)]
    }

    /// Runs MediaPipe's top-level config `graphs/<name>_toplevel.pbtxt` on `images` (one graph
    /// for the sequence: video mode tracks from frame to frame), each with the whole-image
    /// region, at `timestampsMs` (0, 1, 2, … ms by default, as image mode's calls are
    /// independent), and returns per frame the packets of `streams` at its timestamp.
    /// `withoutOutputs` names output tags taken off the config first (outputs FrameFlow's task
    /// graph does not make yet). With `taskAsset` (the task's .task or .tflite file) it runs
    /// MediaPipe's expanded config `graphs/<name>_expanded.pbtxt` instead, given that asset.
    static func run(
        _ name: String, images: [ImageFrame], timestampsMs: [Int64]? = nil, streams: [String],
        withoutOutputs: Set<String> = [], registry: CalculatorRegistry = MLFixtures.registry, taskAsset: String? = nil
    ) throws -> [[String: Packet]] {
        let path = RepositoryFiles.fixture("mediapipe/tasks/graphs/\(name)_\(taskAsset == nil ? "toplevel" : "expanded").pbtxt")
        var environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")])
        if let taskAsset { environment = environment.with(ModelAssets(taskAsset: taskAsset)) }
        var config = try GraphConfig(contentsOfFile: path, registry: registry)
        config.outputStreams.removeAll { withoutOutputs.contains($0.tag) }
        for k in config.nodes.indices { config.nodes[k].outputStreams.removeAll { withoutOutputs.contains($0.tag) } }
        let graph = try Graph(config, registry: registry, environment: environment)
        let collectors = try streams.map { try PacketCollector(graph, $0) }
        let image = try #require(graph.config.inputStreams.first { $0.tag == "IMAGE" }).name
        let rect = graph.config.inputStreams.first { $0.tag == "NORM_RECT" }?.name
        let times = (timestampsMs ?? images.indices.map(Int64.init)).map { Timestamp($0 * 1000) }
        try graph.start()
        for (k, frame) in images.enumerated() {
            try graph.send(frame, to: image, at: times[k])
            if let rect { try graph.send(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), to: rect, at: times[k]) }
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return times.map { t in
            var byStream: [String: Packet] = [:]
            for (s, c) in zip(streams, collectors) {
                if let p = c.packets.first(where: { $0.timestamp == t }) { byStream[s] = p }
            }
            return byStream
        }
    }
}
