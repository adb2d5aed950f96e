import Foundation

/// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held.
public func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// A fresh folder under the temporary directory.
public func temporaryFolder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// One input, one output, nothing in between: the cheapest graph a camera can run.
public let passThroughGraph = """
    input_stream: "input_video"
    output_stream: "output_video"
    node { calculator: "PassThroughCalculator" input_stream: "input_video" output_stream: "output_video" }
    """
