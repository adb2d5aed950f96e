import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Synchronization
import Testing

@testable import FrameFlowInference
@testable import FrameFlowML

/// One `Model` per model file in the process: graphs share it, run it at once, and get
/// what separate loads give; a changed file is loaded again; unused models are freed.
@Suite struct ModelCacheTests {
    static let dir = URL(fileURLWithPath: RepositoryFiles.built("models"))
    static let faceModel = dir.appendingPathComponent("face_detection_short_range.tflite")

    /// A fresh directory for one test's model files.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-model-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// in → InferenceCalculator(model_path) → out.
    static func graph(modelPath: String) throws -> Graph {
        try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "in"
                    output_stream: "out"
                    node {
                      calculator: "InferenceCalculator"
                      input_stream: "TENSORS:in"
                      output_stream: "TENSORS:out"
                      options { [mediapipe.InferenceCalculatorOptions.ext] { model_path: "\(modelPath)" } }
                    }
                    """), registry: MLFixtures.registry)
    }

    /// The face detector's fixture input.
    static func input() throws -> Tensor {
        try loadTensorProto(contentsOfFile: dir.appendingPathComponent("face_detection_short_range.input_0.pb").path).tensor
    }

    /// Two graphs loading the same file hold one `Model` (one load for the path), run on one
    /// pool at once from two threads, and give, frame by frame, what a model loaded on its
    /// own gives (itself checked against LiteRT's outputs for the fixture). Once both graphs
    /// are gone the model is freed, and the next graph loads the file again.
    @Test func graphsShareOneModelAndMatchASeparateLoad() throws {
        let tmp = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: tmp) }
        let path = tmp.appendingPathComponent("face.tflite").path
        try FileManager.default.copyItem(atPath: Self.faceModel.path, toPath: path)
        let cache = ModelCache.shared

        let separate = try Model(contentsOf: Self.faceModel)
        let input = try Self.input()
        let reference = try separate.run([separate.inputs[0].name: input])
        let order = separate.outputs.map(\.name)
        let lite = try (0..<2).map {
            try loadTensorProto(contentsOfFile: Self.dir.appendingPathComponent("face_detection_short_range.output_\($0).pb").path).tensor
        }
        for (name, want) in zip(order, lite) {
            let got = try #require(reference[name])
            #expect(zip(got.floats, want.floats).allSatisfy { abs($0 - $1) <= 1e-4 + 1e-4 * abs($1) }, "\(name) against LiteRT")
        }

        let pool = WorkerPool(threads: 2, name: "test.models")
        defer { pool.shutdown() }
        var graphs: [Graph] = []
        var outs: [PacketCollector] = []
        for _ in 0..<2 {
            let g = try Self.graph(modelPath: path)
            outs.append(try PacketCollector(g, "out"))
            try g.start(on: pool)
            graphs.append(g)
        }
        #expect(cache.loadCount(atPath: path) == 1, "one load for two graphs")
        #expect(cache.liveModels(atPath: path) == 1)
        let frames = 6
        let failures = Locked<[String]>([])
        do {
            let running = graphs
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                do {
                    for i in 0..<frames { try running[k].send([input], to: "in", at: Timestamp(Int64(i))) }
                    try running[k].closeAllInputStreams()
                    try running[k].waitUntilDone()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        for out in outs {
            #expect(out.packets.count == frames)
            for p in out.packets {
                let got = try p.get([Tensor].self)
                #expect(got.map(\.shape) == order.map { reference[$0]!.shape })
                for (g, name) in zip(got, order) { #expect(g.floats == reference[name]!.floats, "\(name) at \(p.timestamp)") }
            }
        }

        graphs.removeAll()
        outs.removeAll()
        #expect(cache.liveModels(atPath: path) == 0, "freed when no graph uses it")
        let again = try Self.graph(modelPath: path)
        try again.start()
        #expect(cache.loadCount(atPath: path) == 2, "loaded again after it was freed")
        try again.closeAllInputStreams()
        try again.waitUntilDone()
    }

    /// A file with a new modification time, or replaced by another model (new size), is
    /// loaded again; a model some graph still holds is not changed under it.
    @Test func aChangedFileIsLoadedAgain() throws {
        let tmp = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: tmp) }
        let path = tmp.appendingPathComponent("model.bin").path
        try FileManager.default.copyItem(atPath: Self.faceModel.path, toPath: path)
        let cache = ModelCache()
        let first = try cache.model(atPath: path)
        #expect(try cache.model(atPath: path) === first)
        #expect(cache.loadCount(atPath: path) == 1)

        // Same bytes, a modification time 10 s later.
        let later = Date().addingTimeInterval(10)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: path)
        let touched = try cache.model(atPath: path)
        #expect(touched !== first)
        #expect(cache.loadCount(atPath: path) == 2)
        #expect(first.inputs.map(\.name) == touched.inputs.map(\.name))

        // Another model in its place: the new one's inputs, as a load of that file gives.
        let digits = RepositoryFiles.path("Models/digit_classifier.onnx")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: digits, toPath: path)
        let replaced = try cache.model(atPath: path)
        let direct = try Model(contentsOf: URL(fileURLWithPath: digits))
        #expect(replaced.inputs.map(\.name) == direct.inputs.map(\.name))
        #expect(replaced.inputs.map(\.name) != first.inputs.map(\.name))
        #expect(cache.loadCount(atPath: path) == 3)
        // The graphs holding the earlier versions keep them.
        #expect(first.inputs.map(\.name) == touched.inputs.map(\.name))
    }

    /// `TfLiteModelCalculator`: two graphs given the file's bytes read separately share one
    /// `Model`; different bytes give another.
    @Test func equalBlobsShareOneModel() throws {
        func run(_ blob: [UInt8]) throws -> (Graph, Model) {
            let g = try Graph(
                GraphConfig(
                    parsing: """
                        input_side_packet: "blob"
                        input_stream: "in"
                        output_stream: "out"
                        node {
                          calculator: "TfLiteModelCalculator"
                          input_side_packet: "MODEL_BLOB:blob"
                          output_side_packet: "MODEL:model"
                        }
                        node {
                          calculator: "InferenceCalculator"
                          input_stream: "TENSORS:in"
                          output_stream: "TENSORS:out"
                          input_side_packet: "MODEL:model"
                        }
                        """), registry: MLFixtures.registry)
            try g.start(sidePackets: ["blob": blob])
            return (g, try #require(g.outputSidePacket("model")).get(Model.self))
        }
        let (a, ma) = try run([UInt8](Data(contentsOf: Self.faceModel)))
        let (b, mb) = try run([UInt8](Data(contentsOf: Self.faceModel)))
        #expect(ma === mb)
        var other = try [UInt8](Data(contentsOf: Self.faceModel))
        other.append(0)  // trailing bytes: the same model, other bytes
        let (c, mc) = try run(other)
        #expect(mc !== ma)
        for g in [a, b, c] {
            try g.closeAllInputStreams()
            try g.waitUntilDone()
        }
    }

    /// A missing file is an error that names it.
    @Test func aMissingFileIsAnErrorNamingIt() {
        let e = #expect(throws: ModelError.self) { try ModelCache().model(atPath: "/nonexistent/model.tflite") }
        #expect(e?.message.contains("/nonexistent/model.tflite") == true)
    }
}
