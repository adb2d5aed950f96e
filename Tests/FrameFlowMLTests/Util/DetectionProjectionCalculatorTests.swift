import Foundation
import FrameFlow
import FrameFlowTesting
import Testing

@testable import FrameFlowML

/// DetectionProjectionCalculator and DetectionLetterboxRemovalCalculator by formula.
@Suite struct DetectionProjectionCalculatorTests {
    /// A 40×20 region at (50, 50) of a 100×100 image turned 90° clockwise: tensor point (u, v)
    /// lands at centre + R(90°)·((u − ½)·40, (v − ½)·20) = (50 − (v − ½)·20, 50 + (u − ½)·40).
    /// The unit box's corners land at x 40…60, y 30…70: the box becomes their bounding box.
    @Test func projectsKeypointsAndTheCornersBoundingBox() throws {
        let m = ProjectionMatrix.rotatedSubRect(
            centerX: 50, centerY: 50, width: 40, height: 20, rotation: .pi / 2, imageWidth: 100, imageHeight: 100)
        let d = Detection(
            relativeBox: Rect(x: 0, y: 0, width: 1, height: 1), score: 0.8, labelID: 3,
            keypoints: [Point(x: 0.25, y: 0.5), Point(x: 1, y: 0)])
        let p = try DetectionProjectionCalculator.project(d, with: m)
        #expect(abs(p.box.x - 0.4) < 1e-6 && abs(p.box.y - 0.3) < 1e-6 && abs(p.box.width - 0.2) < 1e-6 && abs(p.box.height - 0.4) < 1e-6)
        #expect(abs(p.keypoints[0].x - 0.5) < 1e-6 && abs(p.keypoints[0].y - 0.4) < 1e-6)
        #expect(abs(p.keypoints[1].x - 0.6) < 1e-6 && abs(p.keypoints[1].y - 0.7) < 1e-6)
        #expect(p.scores == d.scores && p.labelIDs == [3])
        let pixel = Detection(pixelBox: .init(xmin: 0, ymin: 0, width: 1, height: 1), score: 1)
        #expect(throws: GraphError.self) { try DetectionProjectionCalculator.project(pixel, with: m) }
    }

    @Test func graphProjectsEachStreamWithTheMatrix() throws {
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "dets"
                    input_stream: "matrix"
                    output_stream: "out"
                    node {
                      calculator: "DetectionProjectionCalculator"
                      input_stream: "DETECTIONS:dets"
                      input_stream: "PROJECTION_MATRIX:matrix"
                      output_stream: "DETECTIONS:out"
                    }
                    """), registry: MLFixtures.registry)
        let out = try PacketCollector(graph, "out")
        try graph.start()
        // Letterbox matrix of a 2:1 image in a square tensor: y ↦ 2y − 0.5.
        let m = try #require(ProjectionMatrix([1, 0, 0, 0, 0, 2, 0, -0.5, 0, 0, 1, 0, 0, 0, 0, 1]))
        try graph.send(
            [Detection(relativeBox: Rect(x: 0.1, y: 0.25, width: 0.2, height: 0.25), score: 1, labelID: 0)], to: "dets", at: Timestamp(0))
        try graph.send(m, to: "matrix", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let b = try #require(out.packets.first).get([Detection].self)[0].box
        #expect(abs(b.x - 0.1) < 1e-6 && abs(b.y) < 1e-6 && abs(b.height - 0.5) < 1e-6)
    }

    /// Letterbox removal: x ↦ (x − left) / (1 − left − right), y ↦ (y − top) / (1 − top − bottom).
    @Test func letterboxRemoval() throws {
        let d = Detection(
            relativeBox: Rect(x: 0.3, y: 0.5, width: 0.2, height: 0.3), score: 0.5, labelID: 0, keypoints: [Point(x: 0.1, y: 0.2)])
        let out = try DetectionLetterboxRemovalCalculator.removeLetterbox([d], padding: [0.1, 0.2, 0.1, 0.2])[0]
        #expect(
            abs(out.box.x - 0.25) < 1e-6 && abs(out.box.y - 0.5) < 1e-6 && abs(out.box.width - 0.25) < 1e-6
                && abs(out.box.height - 0.5) < 1e-6)
        #expect(abs(out.keypoints[0].x) < 1e-6 && abs(out.keypoints[0].y) < 1e-6)
        #expect { try DetectionLetterboxRemovalCalculator.removeLetterbox([d], padding: [0.1, 0.2]) } throws: { "\($0)".contains("4") }
        #expect { try DetectionLetterboxRemovalCalculator.removeLetterbox([d], padding: [0.5, 0, 0.5, 0]) } throws: {
            "\($0)".contains("no image")
        }
    }

    /// ProjectionMatrix: inverse and product by formula.
    @Test func matrixInverseAndProduct() throws {
        let m = ProjectionMatrix.rotatedSubRect(
            centerX: 30, centerY: 20, width: 16, height: 8, rotation: 0.7, imageWidth: 64, imageHeight: 48)
        let inv = try #require(m.inverse)
        let id = m.multiplied(by: inv)
        #expect(zip(id.values, ProjectionMatrix.identity.values).allSatisfy { abs($0 - $1) < 1e-5 })
        let p = m.apply(x: 0.5, y: 0.5)
        #expect(abs(p.x - 30.0 / 64) < 1e-6 && abs(p.y - 20.0 / 48) < 1e-6)
        #expect(ProjectionMatrix([1, 2, 3]) == nil)
        #expect(ProjectionMatrix([Float](repeating: 0, count: 16))?.inverse == nil)
    }
}
