import Foundation
import FrameFlowTestSupport
import Testing

/// Media made for the tests with the ffmpeg tool (Debian's `ffmpeg`), once per process.
enum MediaFixtures {
    static let directory: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-media-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    static func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Runs `executable` with `args` in the repository root, its stdout discarded, to the end;
    /// returns the exited process (status, reason) and its stderr.
    static func runReadingStderr(_ executable: String, _ args: [String]) throws -> (process: Process, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.currentDirectoryURL = RepositoryFiles.root
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p, text)
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: Set<String> = []

    /// Makes `name` once with `ffmpeg -y <args> path`.
    static func make(_ name: String, _ args: [String]) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let p = path(name)
        if made.contains(name) { return p }
        try runCommand(["ffmpeg", "-v", "error", "-y"] + args + [p])
        made.insert(name)
        return p
    }

    /// 2 s of testsrc at 25 fps, 160×120, H.264 with the index at the front.
    static func clip() throws -> String {
        try make(
            "clip.mp4",
            ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-movflags", "+faststart"])
    }

    /// The real clip fetched by scripts/setup.sh test.
    static func carphone() throws -> String {
        let p = RepositoryFiles.built("carphone_pristine.mp4")
        guard FileManager.default.fileExists(atPath: p) else {
            throw FixtureError(description: "\(p) is missing: run scripts/setup.sh test (make test does)")
        }
        return p
    }

    /// Frame count and duration as ffprobe reads them.
    static func probe(_ path: String) throws -> (frames: Int, duration: Double, width: Int, height: Int) {
        let out = String(
            decoding: try runCommand(
                [
                    "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                    "-show_entries", "stream=nb_read_frames,width,height:format=duration", "-of", "default=nw=1",
                ] + [path]), as: UTF8.self)
        var d: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { d[String(kv[0])] = String(kv[1]) }
        }
        return (Int(d["nb_read_frames"] ?? "") ?? -1, Double(d["duration"] ?? "") ?? -1, Int(d["width"] ?? "") ?? -1, Int(d["height"] ?? "") ?? -1)
    }

    /// Raw RGBA frames as the ffmpeg tool decodes them (bilinear swscale, as FrameFlow).
    static func rgbaFrames(_ path: String) throws -> Data {
        try runCommand(["ffmpeg", "-v", "error", "-i", path, "-sws_flags", "bilinear", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
    }
}
