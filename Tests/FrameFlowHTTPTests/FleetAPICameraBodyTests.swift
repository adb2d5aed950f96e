import Foundation
import FrameFlowFleet
import FrameFlowTestSupport
import Testing

@testable import FrameFlowHTTP

/// `POST /api/cameras` bodies read without a server (`FleetAPI.camera(fromBody:)`, the fuzz
/// target `fuzz-camerabody`): the seeds of Tests/Fixtures/fuzz/camerabody, every prefix of
/// them and bytes that are not UTF-8 read or fail with a message, never trap.
@Suite struct FleetAPICameraBodyTests {
    let fleet: FleetConfig
    static let seeds = RepositoryFiles.root.appendingPathComponent("Tests/Fixtures/fuzz/camerabody")

    init() throws { fleet = try FleetConfig(text: "defaults { graph: \"pass.pbtxt\" realtime: true }\n", file: "/fleet/site.fleet") }
    func body(_ name: String) throws -> Data { try Data(contentsOf: Self.seeds.appendingPathComponent(name)) }

    @Test func textAndJSONBlocksGiveTheirCameras() throws {
        let (text, porch) = try FleetAPI.camera(fromBody: try body("block.txt"), json: false, config: fleet)
        #expect(porch.name == "porch" && porch.source == "rtsp://192.168.1.20/stream" && text.hasPrefix("camera {"))
        let (written, gate) = try FleetAPI.camera(fromBody: try body("camera.json"), json: true, config: fleet)
        #expect(gate.name == "gate ☕" && gate.source == "/srv/gate.mp4")
        // The JSON's text reads back as the same camera.
        #expect(try fleet.camera(text: written).name == "gate ☕")
    }

    @Test func brokenBodiesAreErrorsNamingTheRequest() throws {
        let odd = #expect(throws: (any Error).self) { try FleetAPI.camera(fromBody: try body("odd.json"), json: true, config: fleet) }
        #expect("\(odd!)".contains("JSON camera"), "\(odd!)")
        let unknown = #expect(throws: (any Error).self) {
            try FleetAPI.camera(fromBody: Data("camera { name: \"a\"\n  sauce: 1 }".utf8), json: false, config: fleet)
        }
        #expect("\(unknown!)".contains("request:2:3"), "\(unknown!)")
        let binary = #expect(throws: (any Error).self) { try FleetAPI.camera(fromBody: Data([0x6E, 0xFF, 0xFE]), json: false, config: fleet) }
        #expect("\(binary!)".contains("UTF-8"))
    }

    @Test func everyPrefixOfTheSeedsReadsOrFails() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.seeds.path) {
            let bytes = try body(name)
            for cut in 0...bytes.count {
                for json in [true, false] { _ = try? FleetAPI.camera(fromBody: bytes.prefix(cut), json: json, config: fleet) }
            }
        }
    }
}
