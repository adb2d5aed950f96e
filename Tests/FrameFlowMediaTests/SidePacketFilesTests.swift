import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTestSupport
import Testing

/// `--side NAME=@FILE` (the file as the type the graph reads the side packet as) and the JSON
/// summary of `--json-summary`.
@Suite struct SidePacketFilesTests {
    static let photo = RepositoryFiles.fixture("mediapipe/photos/two_faces.png")

    @Test func aFileBecomesTheTypeThePortDeclares() throws {
        let image = try GraphRunner.sidePacketValue("@" + Self.photo, name: "bg", types: [.of(ImageFrame.self)])
        let frame = try #require(image as? ImageFrame)
        let reference = try #require(try MediaSource(Self.photo, options: .init(pixelFormat: .rgba8)).read()).image
        #expect(frame.width == reference.width && frame.height == reference.height && frame[3, 5] == reference[3, 5])
        let bytes = try #require(try GraphRunner.sidePacketValue("@" + Self.photo, name: "b", types: [.of([UInt8].self)]) as? [UInt8])
        #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.photo))))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ff-side-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "42\n".write(to: dir.appendingPathComponent("n.txt"), atomically: true, encoding: .utf8)
        #expect(try GraphRunner.sidePacketValue("@" + dir.appendingPathComponent("n.txt").path, name: "n", types: [.of(Int.self)]) as? Int == 42)
        #expect(
            try GraphRunner.sidePacketValue("@" + dir.appendingPathComponent("n.txt").path, name: "s", types: [.of(String.self)]) as? String == "42\n"
        )
        #expect(try GraphRunner.sidePacketValue("@@x", name: "s", types: [.of(String.self)]) as? String == "@x")
        #expect(try GraphRunner.sidePacketValue("@" + Self.photo, name: "any", types: [.any]) is ImageFrame)
    }

    @Test func aMissingOrWrongFileNamesTheSidePacket() {
        for (path, type) in [
            ("/nonexistent.png", PayloadType.of(ImageFrame.self)), ("/nonexistent.bin", .of([UInt8].self)), (Self.photo, .of(Int.self)),
        ] {
            let e = #expect(throws: MediaError.self) { try GraphRunner.sidePacketValue("@" + path, name: "background", types: [type]) }
            #expect("\(e!)".contains("background=@\(path)"), "\(e!)")
        }
    }

    @Test func theJSONSummaryHasEveryCounter() throws {
        var s = GraphRunner.Summary()
        s.framesIn = 300
        s.framesOut = 298
        s.dropped = 2
        s.seconds = 2
        s.latencyP50 = .nan
        let object = try #require(try JSONSerialization.jsonObject(with: Data(s.json.utf8)) as? [String: Any])
        #expect(object["frames_in"] as? Int == 300 && object["frames_out"] as? Int == 298 && object["dropped"] as? Int == 2)
        #expect(object["average_fps"] as? Double == 149 && object["latency_p50_ms"] as? Double == 0 && object["interrupted"] as? Bool == false)
    }
}
