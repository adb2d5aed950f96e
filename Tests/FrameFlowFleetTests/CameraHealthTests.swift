import Foundation
import Testing

@testable import FrameFlowFleet

@Suite struct CameraHealthTests {
    @Test func aReportIsOneJSONObjectWithTheDocumentedMembers() throws {
        let h = CameraHealth(
            camera: "door \"1\"", state: .backoff, fpsIn: 14.96, fpsOut: 3, framesIn: 1520, framesOut: 1517, dropped: 3, reconnects: 2,
            lastError: "http://x: timed out\nafter 5 s")
        let line = h.jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["camera"] as? String == "door \"1\"")
        #expect(object["state"] as? String == "backoff")
        #expect(object["fps_in"] as? Double == 15.0)
        #expect(object["fps_out"] as? Double == 3.0)
        #expect(object["frames_in"] as? Int == 1520)
        #expect(object["frames_out"] as? Int == 1517)
        #expect(object["dropped"] as? Int == 3)
        #expect(object["reconnects"] as? Int == 2)
        #expect(object["last_error"] as? String == "http://x: timed out\nafter 5 s")
        #expect(Set(object.keys).count == 9)
        #expect(line.hasPrefix("{\"camera\":"))
    }

    @Test func noErrorIsNull() throws {
        let line = CameraHealth(camera: "a", state: .running).jsonLine
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["last_error"] is NSNull)
    }
}
