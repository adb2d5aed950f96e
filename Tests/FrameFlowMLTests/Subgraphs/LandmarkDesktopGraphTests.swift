import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// The desktop graphs (Graphs/face_mesh_desktop_live.pbtxt, hand_tracking_desktop_live.pbtxt)
/// run on a photo: the landmarks stream has what MediaPipe finds there, and the output video
/// frame is the photo with the drawing on it (pixels changed at a landmark, not elsewhere far
/// from every face or hand).
@Suite(.serialized) struct LandmarkDesktopGraphTests {
    typealias F = MediaPipeSolutionFixtures

    @Test(arguments: [
        ("face_mesh_desktop_live", "multi_face_landmarks", "face_near", 1),
        ("hand_tracking_desktop_live", "landmarks", "two_hands", 2),
    ])
    func drawsTheLandmarks(graphName: String, stream: String, photo: String, expected: Int) throws {
        try #require(FileManager.default.fileExists(atPath: F.module("hand_landmark/hand_landmark_full.tflite")), "run scripts/setup.sh test")
        let image = try #require(try F.frames("Tests/Fixtures/mediapipe/photos/\(photo).png", count: 1).first)
        let (video, lists) = try MLFixtures.withMediaPipeEnvironment { env in
            let text = try String(contentsOfFile: MLFixtures.path("Graphs/\(graphName).pbtxt"), encoding: .utf8)
            let graph = try Graph(GraphConfig(parsing: text, file: "\(graphName).pbtxt"), registry: MLFixtures.registry, environment: env)
            let video = try PacketCollector(graph, "output_video"), landmarks = try PacketCollector(graph, stream)
            try graph.start()
            try graph.send(image, to: "input_video", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return (try video.packets.first?.get(ImageFrame.self), try landmarks.packets.first?.get([NormalizedLandmarkList].self) ?? [])
        }
        #expect(lists.count == expected, "\(graphName): \(lists.count) found")
        let out = try #require(video)
        #expect(out.width == image.width && out.height == image.height)
        let before = try ColorConvertCalculator.convert(image, to: out.format)
        func pixel(_ f: ImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
            let n = f.format.bytesPerPixel(plane: 0)
            return Array(f.row(y)[(x * n)..<(x * n + n)])
        }
        // Some landmark's pixel (or one beside it) is drawn over.
        let drawn = lists.flatMap(\.landmark).contains { p in
            let x = Int(p.x * Double(image.width)), y = Int(p.y * Double(image.height))
            return (max(0, x - 1)...min(image.width - 1, x + 1)).contains { xx in
                (0..<image.height).contains(y) && pixel(out, xx, y) != pixel(before, xx, y)
            }
        }
        #expect(drawn, "\(graphName): nothing drawn at the landmarks")
        // The image corner farthest from every landmark is left as it was.
        #expect(
            pixel(out, image.width - 1, image.height - 1) == pixel(before, image.width - 1, image.height - 1)
                || pixel(out, 0, image.height - 1) == pixel(before, 0, image.height - 1))
    }
}
