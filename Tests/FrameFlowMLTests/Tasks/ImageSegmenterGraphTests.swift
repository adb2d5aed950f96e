import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// `mediapipe.tasks.vision.image_segmenter.ImageSegmenterGraph`, loaded through MediaPipe's own
/// top-level task configs, against MediaPipe Tasks' ImageSegmenter on the same pixels
/// (Tests/Fixtures/mediapipe/tasks/image_segmenter.json and masks/segmenter/, from
/// scripts/fixtures/make_mediapipe_tasks_fixtures.py): confidence masks IoU ≥ 0.97 (at 0.5) and
/// mean absolute difference ≤ 0.02, the category mask IoU ≥ 0.97; in video mode each frame's
/// mean confidence within 0.02 and category counts within 1 % of the pixels on ≥ 97 % of frames.
@Suite struct ImageSegmenterGraphTests {
    struct Mask: Decodable {
        var mask: String?
        var mean: Double
        var sum: Int
    }
    struct Category: Decodable {
        var mask: String?
        var counts: [String: Int]
    }
    struct Frame: Decodable {
        var index: Int
        var timestamp_ms: Int64?
        var rgb_sums: [String]
        var confidence_masks: [Mask]
        var category_mask: Category
    }

    /// A fixture mask PNG's grey values (the first channel of its RGB decoding).
    static func png(_ relative: String) throws -> ImageFrame {
        try #require(try RepositoryFiles.frames("Tests/Fixtures/mediapipe/tasks/\(relative)", count: 1).first)
    }

    /// The bytes of a mask as the fixture stores them: a float mask as round(clip(v) × 255),
    /// a gray8 mask as is, an RGB one by its first channel.
    static func bytes(_ image: ImageFrame) throws -> [UInt8] {
        switch image.format {
        case .grayFloat32: return try image.grayFloatValues().map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
        case .gray8: return (0..<image.height).flatMap { Array(image.row($0).prefix(image.width)) }
        default:
            let c = image.packedBytes().count / (image.width * image.height)
            return stride(from: 0, to: image.packedBytes().count, by: c).map { image.packedBytes()[$0] }
        }
    }

    /// IoU of the pixels where `isSet` holds, and the mean absolute difference in 0…1.
    static func compare(_ a: [UInt8], _ b: [UInt8], isSet: (UInt8) -> Bool) -> (iou: Double, mad: Double) {
        var inter = 0, union = 0, diff = 0
        for (x, y) in zip(a, b) {
            let (p, q) = (isSet(x), isSet(y))
            if p && q { inter += 1 }
            if p || q { union += 1 }
            diff += abs(Int(x) - Int(y))
        }
        return (union == 0 ? 1 : Double(inter) / Double(union), Double(diff) / 255 / Double(max(a.count, 1)))
    }

    @Test func photosMatchMediaPipeTasks() throws {
        try TasksFixtures.requireModels()
        let all = try TasksFixtures.runs("image_segmenter", as: Frame.self).filter { $0.mode == "image" }
        #expect(all.count >= 14)
        // Unoptimized, a photo takes seconds: a debug build checks two (two people, nobody), an
        // optimized one all of them.
        let runs = MediaPipeSolutionFixtures.optimized ? all : all.filter { ["two_people_half", "none"].contains($0.source) }
        var worst = (iou: 1.0, mad: 0.0, categoryIoU: 1.0)
        for run in runs {
            let image = try #require(try RepositoryFiles.frames(run.path, count: 1).first)
            #expect(TasksFixtures.rgbSums(image) == run.frames[0].rgb_sums, "\(run.source): not the pixels MediaPipe was given")
            let out = try TasksFixtures.run("image_segmenter", images: [image], streams: ["confidence_masks", "category_mask"])
            let masks = try #require(try out[0]["confidence_masks"]?.get([ImageFrame].self), "\(run.source): no confidence masks")
            let want = run.frames[0]
            try #require(masks.count == want.confidence_masks.count, "\(run.source): \(masks.count) confidence masks")
            for (m, w) in zip(masks, want.confidence_masks) {
                #expect(m.width == run.width && m.height == run.height)
                let ref = try Self.bytes(Self.png(try #require(w.mask)))
                let got = try Self.bytes(m)
                try #require(got.count == ref.count)
                let (iou, mad) = Self.compare(got, ref) { $0 >= 128 }
                worst.iou = min(worst.iou, iou)
                worst.mad = max(worst.mad, mad)
                #expect(iou >= 0.97 && mad <= 0.02, "\(run.source): confidence IoU \(iou), MAD \(mad)")
            }
            let category = try #require(try out[0]["category_mask"]?.get(ImageFrame.self), "\(run.source): no category mask")
            let ref = try Self.bytes(Self.png(try #require(want.category_mask.mask)))
            let got = try Self.bytes(category)
            try #require(got.count == ref.count)
            #expect(Set(got).isSubset(of: [0, 255]), "\(run.source): category values \(Set(got))")
            let (iou, _) = Self.compare(got, ref) { $0 == 0 }
            worst.categoryIoU = min(worst.categoryIoU, iou)
            #expect(iou >= 0.97, "\(run.source): category IoU \(iou)")
        }
        print("ImageSegmenter photos: worst confidence IoU \(worst.iou), MAD \(worst.mad); worst category IoU \(worst.categoryIoU)")
    }

    @Test(.enabled(if: TasksFixtures.clipsEnabled, "a clip through the model takes minutes unoptimized"))
    func clipsMatchMediaPipeTasksFrameByFrame() throws {
        try TasksFixtures.requireModels()
        let runs = try TasksFixtures.runs("image_segmenter", as: Frame.self).filter { $0.mode == "video" }
        #expect(!runs.isEmpty)
        for run in runs {
            let frames = try RepositoryFiles.frames(run.path, count: run.frames.count)
            try #require(frames.count == run.frames.count, "\(run.source): \(frames.count) frames decoded")
            let out = try TasksFixtures.run(
                "image_segmenter_video", images: frames, timestampsMs: run.frames.map { $0.timestamp_ms ?? Int64($0.index) },
                streams: ["confidence_masks", "category_mask"])
            var good = 0, worstMean = 0.0, worstCount = 0.0, sumsEqual = 0
            for (k, f) in run.frames.enumerated() {
                #expect(TasksFixtures.rgbSums(frames[k]) == f.rgb_sums, "\(run.source) frame \(k): other pixels")
                let mask = try #require(try out[k]["confidence_masks"]?.get([ImageFrame].self).first, "\(run.source) frame \(k)")
                let bytes = try Self.bytes(mask)
                let mean = try mask.grayFloatValues().reduce(0.0) { $0 + Double($1) } / Double(bytes.count)
                let sum = bytes.reduce(0) { $0 + Int($1) }
                if sum == f.confidence_masks[0].sum { sumsEqual += 1 }
                let category = try Self.bytes(try #require(try out[k]["category_mask"]?.get(ImageFrame.self)))
                let zeros = category.filter { $0 == 0 }.count
                let countError = Double(abs(zeros - (f.category_mask.counts["0"] ?? 0))) / Double(category.count)
                let meanError = abs(mean - f.confidence_masks[0].mean)
                worstMean = max(worstMean, meanError)
                worstCount = max(worstCount, countError)
                if meanError <= 0.02 && countError <= 0.01 { good += 1 }
            }
            let share = Double(good) / Double(run.frames.count)
            print(
                "ImageSegmenter \(run.source): \(good)/\(run.frames.count) frames within; worst mean error \(worstMean),",
                "worst category count error \(worstCount); \(sumsEqual) byte sums equal")
            #expect(share >= 0.97, "\(run.source): \(good) of \(run.frames.count) frames match")
        }
    }
}
