import FrameFlowFleet
import FuzzSupport

/// Fleet-file text: parse and check (cameras, defaults, mqtt, outputs). Always 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let config = try? FleetConfig(text: text, file: "/fuzz/site.fleet") {
        for camera in config.cameras { _ = CameraHealth(camera: camera.name, state: .connecting).jsonLine }
    }
    return 0
}

@_cdecl("fuzz_fleet_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
