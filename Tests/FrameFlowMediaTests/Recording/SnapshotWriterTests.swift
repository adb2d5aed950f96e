import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowMedia
import FrameFlowTesting
import FrameFlowTestSupport
import Testing

/// Snapshots of a person in real street video (vtest.avi): the selector's best frame for the
/// event's track is written as three JPEGs, and the crop, decoded by the ffmpeg tool, is the
/// frame's pixels around the event's box.
@Suite("SnapshotWriter")
struct SnapshotWriterTests {
    @Test("an event's snapshot: full frame, crop around the event's box, annotated; the crop shows those pixels")
    func writesTheEventsSnapshot() throws {
        let source = try MediaSource(try ClipRecorderTests.street())
        var frames: [MediaSource.Frame] = []
        while frames.count < 20, let f = try source.read() { frames.append(f) }
        // A person walking right along the pavement (hand-placed boxes, pixels of 384×288).
        let runner = try CalculatorRunner(
            SnapshotSelectorCalculator.self, inputs: ["IMAGE:frame", "DETECTIONS:tracked"], outputs: ["SNAPSHOTS:snaps"])
        for (i, f) in frames.enumerated() {
            var d = Detection(
                labels: ["person"], scores: [0.6 + Double(i % 5) * 0.05],
                locationData: LocationData(format: .boundingBox, boundingBox: .init(xmin: 150 + i, ymin: 60, width: 40 + i % 3, height: 100)))
            d.detectionID = 3
            runner.add(f.image, tag: "IMAGE", at: f.timestamp)
            runner.add([d], tag: "DETECTIONS", at: f.timestamp)
        }
        try runner.run()
        let snaps = runner.outputs("SNAPSHOTS").flatMap { (try? $0.get([ObjectSnapshot].self)) ?? [] }
        let best = try #require(snaps.last)
        // The event the builder would send for this track, with the snapshot's box.
        let b = best.box
        let event = ObjectEvent.State(
            id: "1700000000.5-street-3", camera: "street", frameTime: best.timestamp.seconds, snapshotTime: best.timestamp.seconds,
            label: "person", topScore: best.score, startTime: 0, score: best.score, box: [b.x, b.y, b.maxX, b.maxY],
            area: b.width * b.height, ratio: b.width / b.height, region: [0, 0, 384, 288], hasSnapshot: true)

        let folder = ClipRecorderTests.folder("snapshots")
        let writer = try SnapshotWriter(folder: folder)
        try writer.write(best, eventID: event.id)
        let p = writer.paths(for: event.id)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                "1700000000.5-street-3-annotated.jpg", "1700000000.5-street-3-crop.jpg", "1700000000.5-street-3.jpg",
            ])
        // The crop's box is the event's: the crop is the event's box grown by the margin, and
        // its decoded pixels are the frame's there (JPEG: mean difference under 4 levels).
        let margin = SnapshotSelectorCalculator.Options().cropMargin
        let ex0 = Int((event.box[0] - margin * b.width).rounded(.down)), ey0 = Int((event.box[1] - margin * b.height).rounded(.down))
        let ex1 = Int((event.box[2] + margin * b.width).rounded(.up)), ey1 = Int((event.box[3] + margin * b.height).rounded(.up))
        let probe = try MediaFixtures.probe(p.crop)
        #expect(probe.width == ex1 - ex0 && probe.height == ey1 - ey0)
        #expect(try MediaFixtures.probe(p.full).width == 384)
        #expect(try MediaFixtures.probe(p.annotated).height == 288)
        let crop = try MediaFixtures.rgbaFrames(p.crop)
        #expect(crop.count == probe.width * probe.height * 4)
        var sum = 0
        var n = 0
        for y in 0..<probe.height {
            let row = best.image.row(ey0 + y)
            for x in 0..<probe.width {
                for c in 0..<3 {
                    sum += abs(Int(crop[(y * probe.width + x) * 4 + c]) - Int(row[(ex0 + x) * 4 + c]))
                    n += 1
                }
            }
        }
        #expect(Double(sum) / Double(n) < 4, "mean difference \(Double(sum) / Double(n))")
        // A later snapshot replaces the files; an unwritable destination is an error naming it.
        try writer.write(snaps[0], eventID: event.id)
        #expect(try MediaFixtures.probe(p.crop).width == Int(snaps[0].cropRect.width))
        let file = (folder as NSString).appendingPathComponent("1700000000.5-street-3.jpg")
        let e = #expect(throws: MediaError.self) { try SnapshotWriter(folder: file) }
        #expect(e?.source == file)
    }
}
