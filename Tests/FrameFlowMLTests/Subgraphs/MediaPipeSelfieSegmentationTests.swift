import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// MediaPipe's Selfie Segmentation run from MediaPipe's own compiled graph
/// (`selfie_segmentation_cpu.binarypb` from the mediapipe==0.10.21 wheel) with MediaPipe's
/// models and the side packet Python's `solutions.selfie_segmentation` gives it
/// (`model_selection`), against that solution's masks on the same pixels
/// (Tests/Fixtures/mediapipe/selfie_segmentation.json and masks/selfie/).
@Suite(.serialized) struct MediaPipeSelfieSegmentationTests {
    typealias F = MediaPipeSolutionFixtures
    typealias P = PoseSelfieFixtures
    static let binary = F.module("selfie_segmentation/selfie_segmentation_cpu.binarypb")

    /// Every photo run, as "source m<model_selection>".
    static var photoCases: [String] {
        P.selfieSegmentation.filter(\.static_image_mode).map { "\($0.source) m\($0.model_selection ?? 0)" }
    }

    static func run(_ name: String, still: Bool) throws -> P.Run {
        let parts = name.split(separator: " ")
        let source = String(parts[0]), model = parts.count > 1 ? Int(parts[1].dropFirst()) ?? 0 : 0
        return try #require(
            P.selfieSegmentation.first { $0.source == source && $0.static_image_mode == still && ($0.model_selection ?? 0) == model },
            "\(name) is not in selfie_segmentation.json")
    }

    /// Our masks for `images`, one graph for the whole sequence, as Python's solution runs.
    func masks(_ run: P.Run, _ images: [ImageFrame]) throws -> [ImageFrame?] {
        try F.run(Self.binary, images: images, sidePackets: ["model_selection": run.model_selection ?? 0], streams: ["segmentation_mask"])
            .map { try $0["segmentation_mask"]?.get(ImageFrame.self) }
    }

    /// Still photos, both models: masks at 0.5 with IoU ≥ 0.97 and mean absolute difference
    /// ≤ 0.02 against MediaPipe's, on every photo (the one without a person included).
    @Test(arguments: photoCases)
    func photosMatchMediaPipesPythonSolution(name: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try Self.run(name, still: true)
        let images = try F.frames(run.path, count: 1)
        #expect(images.first?.width == run.width && images.first?.height == run.height)
        let mask = try #require(try masks(run, images).first ?? nil, "\(name): no mask")
        #expect(mask.format == .grayFloat32 && mask.width == run.width && mask.height == run.height)
        let stored = try P.mask(try #require(run.frames[0].mask, "\(name): MediaPipe's mask is not stored"))
        let ours = P.values(mask)
        let c = P.compare(ours, stored.values)
        #expect(c.iou >= 0.97 && c.mad <= 0.02, "\(name): mask IoU \(c.iou), mean difference \(c.mad)")
        let mean = ours.map(Double.init).reduce(0, +) / Double(ours.count)
        if let want = run.frames[0].mask_mean { #expect(abs(mean - Double(want)) <= 0.01, "\(name): mean \(mean), MediaPipe's \(want)") }
        print("Selfie photo \(name): mask IoU \(c.iou) MAD \(c.mad), mean \(mean) vs \(run.frames[0].mask_mean ?? .nan)")
    }

    /// Clips, every frame through one graph (Selfie Segmentation keeps nothing between
    /// frames, and Python's solution does not smooth): the stored masks (every tenth frame)
    /// with IoU ≥ 0.95 and the mean of every frame's mask within 0.01.
    @Test(
        .enabled(if: MediaPipeSolutionFixtures.optimized, "a clip runs in the optimized pass of make test"),
        arguments: ["walk_clip m0", "walk_clip m1", "carphone m0", "carphone m1"])
    func clipsMatchMediaPipe(name: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try Self.run(name, still: false)
        let images = try F.frames(run.path, count: run.frames.count)
        try #require(images.count == run.frames.count)
        let got = try masks(run, images)
        var worstIoU = 1.0, worstMean = 0.0, stored = 0
        for (k, frame) in run.frames.enumerated() {
            let mask = try #require(got[k], "\(name) frame \(k): no mask")
            let ours = P.values(mask)
            if let want = frame.mask_mean {
                let mean = ours.map(Double.init).reduce(0, +) / Double(ours.count)
                worstMean = max(worstMean, abs(mean - Double(want)))
                #expect(abs(mean - Double(want)) <= 0.01, "\(name) frame \(k): mean \(mean), MediaPipe's \(want)")
            }
            if let path = frame.mask {
                let c = P.compare(ours, try P.mask(path).values)
                stored += 1
                worstIoU = min(worstIoU, c.iou)
                #expect(c.iou >= 0.95, "\(name) frame \(k): mask IoU \(c.iou), mean difference \(c.mad)")
            }
        }
        print("Selfie clip \(name): \(run.frames.count) frames, \(stored) stored masks, worst IoU \(worstIoU), worst mean gap \(worstMean)")
    }

    /// The subgraphs offer the ports MediaPipe's graphs of the same names declare.
    @Test(arguments: [
        ("SelfieSegmentationCpu", ["IMAGE"], ["SEGMENTATION_MASK"], ["MODEL_SELECTION"]),
        ("SelfieSegmentationModelLoader", [], [], ["MODEL_SELECTION"]),
    ])
    func subgraphsHaveMediaPipesPorts(name: String, inputs: [String], outputs: [String], sidePackets: [String]) throws {
        let config = try #require(try CalculatorRegistry.mlSubgraphs().first { $0.name == name }?.config, "\(name) is missing")
        #expect(config.inputStreams.map(\.tag) == inputs, "\(name)")
        #expect(config.outputStreams.map(\.tag) == outputs, "\(name)")
        #expect(config.inputSidePackets.map(\.tag) == sidePackets, "\(name)")
        #expect(config.outputSidePackets.map(\.tag) == (name.hasSuffix("Loader") ? ["MODEL"] : []), "\(name)")
    }

    /// A model file that is not under the resource root fails the run with its name.
    @Test(arguments: [(0, "selfie_segmentation.tflite"), (1, "selfie_segmentation_landscape.tflite")])
    func aMissingModelIsNamed(selection: Int, file: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-models-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let pixels = try ImagePool.shared.makeImage(width: 4, height: 4, format: .rgb8)
        let image = pixels.freeze()
        // The graph's own resource root is an empty folder: whatever other tests run beside
        // this one, its model cannot be found.
        let module = "mediapipe/modules/selfie_segmentation/\(file)"
        let e = #expect(throws: (any Error).self) {
            let graph = try Graph(
                GraphConfig(contentsOfFile: Self.binary, registry: MLFixtures.registry), registry: MLFixtures.registry,
                environment: GraphEnvironment(resourceRoots: [empty]))
            try graph.start(sidePackets: ["model_selection": selection])
            try graph.send(image, to: "image", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
        }
        #expect(e.map { "\($0)" }?.contains(module) == true, "\(String(describing: e))")
    }

    /// Graphs/selfie_segmentation_desktop_live.pbtxt on a photo: MediaPipe's mask (general
    /// model), and the background painted blue: where the mask is w, each channel is
    /// c·(1 − (1 − w)) + blue·(1 − w), within a level of rounding.
    @Test func desktopGraphPaintsTheBackground() throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try Self.run("whole_body m0", still: true)
        let image = try #require(try F.frames(run.path, count: 1).first)
        let (video, mask) = try MLFixtures.withMediaPipeEnvironment { env in
            let text = try String(contentsOfFile: MLFixtures.path("Graphs/selfie_segmentation_desktop_live.pbtxt"), encoding: .utf8)
            let graph = try Graph(
                GraphConfig(parsing: text, file: "selfie_segmentation_desktop_live.pbtxt"), registry: MLFixtures.registry, environment: env)
            let video = try PacketCollector(graph, "output_video"), mask = try PacketCollector(graph, "segmentation_mask")
            try graph.start()
            try graph.send(image, to: "input_video", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return (try video.packets.first?.get(ImageFrame.self), try mask.packets.first?.get(ImageFrame.self))
        }
        let m = try #require(mask, "no mask")
        let out = try #require(video, "no output frame")
        let stored = try P.mask(try #require(run.frames[0].mask))
        let weights = P.values(m)
        let c = P.compare(weights, stored.values)
        #expect(c.iou >= 0.97 && c.mad <= 0.02, "mask IoU \(c.iou), mean difference \(c.mad)")
        #expect(out.width == image.width && out.height == image.height && out.format == image.format)
        var worst = 0.0, background = 0
        for y in stride(from: 0, to: image.height, by: 3) {
            for x in stride(from: 0, to: image.width, by: 3) {
                let w = 1 - Double(weights[y * image.width + x])
                if w > 0.5 { background += 1 }
                let px = image[x, y], got = out[x, y]
                for ch in 0..<3 {
                    let want = Double(px[ch]) * (1 - w) + (ch == 2 ? 255 : 0) * w
                    worst = max(worst, abs(Double(got[ch]) - want))
                }
            }
        }
        #expect(worst <= 1, "largest difference \(worst) levels")
        #expect(background > 0, "some background painted")
    }
}
