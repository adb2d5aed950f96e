import FrameFlowFleet
import FrameFlowHTTP
import Foundation
import FuzzSupport

/// The fleet the bodies are read against: defaults a camera block inherits.
let fleet = try! FleetConfig(text: "defaults { graph: \"pass.pbtxt\" realtime: true }\n", file: "/fuzz/site.fleet")

/// A `POST /api/cameras` body, read as the camera block's text and as JSON. Always 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: data, count: size))
    for json in [true, false] {
        if let (text, camera) = try? FleetAPI.camera(fromBody: body, json: json, config: fleet) {
            _ = CameraHealth(camera: camera.name, state: .connecting).jsonLine
            _ = text.utf8.count
        }
    }
    return 0
}

@_cdecl("fuzz_camerabody_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
