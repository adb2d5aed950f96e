import Foundation
import Testing

@testable import FrameFlowFleet

@Suite struct BatchResultTests {
    @Test func aResultIsOneLineOfJSONThatReadsBack() throws {
        let failed = BatchResult(file: "a \"b\"/c.mp4", line: 7, status: .error, seconds: 0.12345, error: "c.mp4: no such file\nsecond line")
        let line = failed.jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["file"] as? String == "a \"b\"/c.mp4")
        #expect(object["line"] as? Int == 7 && object["status"] as? String == "error")
        #expect(object["seconds"] as? Double == 0.123)
        #expect(object["error"] as? String == "c.mp4: no such file\nsecond line")
        let back = try JSONDecoder().decode(BatchResult.self, from: Data(line.utf8))
        #expect(back.file == failed.file && back.error == failed.error && back.framesOut == 0)
    }

    @Test func anOKResultHasNoErrorKey() throws {
        let ok = BatchResult(file: "x.mp4", line: 1, status: .ok, frames: 50, framesOut: 48, seconds: 1, outputs: ["out/x.mp4"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ok.jsonLine.utf8)) as? [String: Any])
        #expect(object["error"] == nil)
        #expect(object["frames"] as? Int == 50 && object["frames_out"] as? Int == 48)
        #expect(object["outputs"] as? [String] == ["out/x.mp4"])
    }
}
