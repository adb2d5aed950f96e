import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Graphs/virtual_background.pbtxt and virtual_background_replace.pbtxt on carphone (a man
/// talking in a car, like a video call): the first mask is MediaPipe's own Selfie Segmentation
/// mask (landscape model, selfie_segmentation.json), and every output frame is the frame over
/// its background by the smoothed mask, by the compositing formula written here.
@Suite(.serialized) struct VirtualBackgroundGraphTests {
    typealias F = MediaPipeSolutionFixtures
    typealias P = PoseSelfieFixtures
    static let model = F.module("selfie_segmentation/selfie_segmentation_landscape.tflite")

    /// Why the graphs cannot run here, or nil.
    static var missing: String? {
        if MLFixtures.registry.subgraph(named: "SelfieSegmentationCpu") == nil
            && MLFixtures.registry.calculator(named: "SelfieSegmentationCpu") == nil
        {
            return "SelfieSegmentationCpu is not registered"
        }
        if !FileManager.default.fileExists(atPath: model) { return "\(model) is missing: run scripts/setup.sh test" }
        return nil
    }

    /// Runs `graph` on `images` one frame at a time (its flow limiter would drop frames sent
    /// while one is inside) and returns each frame's output and mask.
    static func run(_ graph: String, _ images: [ImageFrame], sidePackets: [String: any Sendable] = [:]) throws
        -> [(output: ImageFrame, mask: ImageFrame)]
    {
        try MLFixtures.withMediaPipeEnvironment { env in
            let registry = MLFixtures.registry
            let config = try GraphConfig(contentsOfFile: RepositoryFiles.path("Graphs/\(graph)"), registry: registry)
            let g = try Graph(config, registry: registry, environment: env)
            let outputs = try PacketCollector(g, "output_video"), masks = try PacketCollector(g, "segmentation_mask")
            try g.start(sidePackets: sidePackets)
            for (k, image) in images.enumerated() {
                try g.send(image, to: "input_video", at: Timestamp(Int64(k) * 33_333))
                try g.waitUntilIdle()
            }
            try g.closeAllInputStreams()
            try g.waitUntilDone()
            #expect(outputs.packets.count == images.count && masks.packets.count == images.count, "\(graph): a frame was dropped")
            return try zip(outputs.packets, masks.packets).map { try ($0.get(ImageFrame.self), $1.get(ImageFrame.self)) }
        }
    }

    /// fg · a + bg · (1 − a) per channel, rounded half to even, a the mask value (clamped to 0…1).
    static func expectComposite(_ out: ImageFrame, _ image: ImageFrame, mask: ImageFrame, background: (Int, Int) -> [Float]) throws {
        let m = P.values(mask)
        #expect(out.width == image.width && out.height == image.height && out.format == image.format)
        var wrong = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = min(max(m[y * image.width + x], 0), 1), fg = image[x, y], bg = background(x, y)
                let want = (0..<3).map { c in UInt8((Float(fg[c]) * a + bg[c] * (1 - a)).rounded(.toNearestOrEven)) }
                if Array(out[x, y].prefix(3)) != want { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels are not the composite")
    }

    static func expectMediaPipesFirstMask(_ mask: ImageFrame, _ run: P.Run) throws {
        let path = try #require(run.frames.first?.mask, "no stored mask for \(run.source)")
        let theirs = try P.mask(path)
        #expect(mask.width == theirs.width && mask.height == theirs.height && mask.format == .grayFloat32)
        let r = P.compare(P.values(mask), theirs.values)
        #expect(r.iou >= 0.97 && r.mad <= 0.02, "frame 0 against MediaPipe's mask: IoU \(r.iou), mean difference \(r.mad)")
    }

    @Test(.enabled(if: missing == nil, "SelfieSegmentationCpu or its landscape model is missing"))
    func blurredBackground() throws {
        let run = try #require(P.selfieSegmentation.first { $0.source == "carphone" && $0.model_selection == 1 })
        let images = try F.frames(run.path, count: F.optimized ? 30 : 3)
        let results = try Self.run("virtual_background.pbtxt", images)
        try Self.expectMediaPipesFirstMask(try #require(results.first).mask, run)
        // The graph's blur: sigma 6, the kernel size from sigma.
        let kernel = try GaussianBlurCalculator.kernel(.init(sigma: 6))
        for (image, r) in zip(images, results) {
            let blurred = try GaussianBlurCalculator.blur(image, kernel: kernel)
            try Self.expectComposite(r.output, image, mask: r.mask) { x, y in blurred[x, y].prefix(3).map(Float.init) }
        }
    }

    @Test(.enabled(if: missing == nil, "SelfieSegmentationCpu or its landscape model is missing"))
    func pictureBackground() throws {
        let run = try #require(P.selfieSegmentation.first { $0.source == "carphone" && $0.model_selection == 1 })
        let images = try F.frames(run.path, count: F.optimized ? 10 : 2)
        // One colour: scaled to cover the frame, it stays that colour at every pixel.
        var picture = try ImagePool.shared.makeImage(width: 40, height: 90, format: .rgb8)
        for y in 0..<90 { picture.withMutableRow(y) { row in for x in 0..<40 { (row[3 * x], row[3 * x + 1], row[3 * x + 2]) = (30, 160, 90) } } }
        let results = try Self.run("virtual_background_replace.pbtxt", images, sidePackets: ["background_image": picture.freeze()])
        try Self.expectMediaPipesFirstMask(try #require(results.first).mask, run)
        for (image, r) in zip(images, results) { try Self.expectComposite(r.output, image, mask: r.mask) { _, _ in [30, 160, 90] } }
    }
}
