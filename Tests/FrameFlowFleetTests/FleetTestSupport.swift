import Foundation
import FrameFlowFleet
import Synchronization

/// `ffmpeg … -f mpegts -listen 1 http://127.0.0.1:PORT`: serves one client, in real time, then
/// exits. Killed when stopped or released.
final class StreamServer {
    let port: Int
    let arguments: [String]
    private var process: Process?

    /// Serves the frames `input` (ffmpeg input arguments) gives, encoded with `codec`.
    init(port: Int, input: [String], codec: [String]) throws {
        self.port = port
        arguments = ["-hide_banner", "-loglevel", "error", "-re"] + input + codec + ["-f", "mpegts", "-listen", "1", "http://127.0.0.1:\(port)"]
        try start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        process = p
    }

    /// SIGKILL, as a camera losing power.
    func kill() {
        guard let p = process else { return }
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        process = nil
    }

    deinit { kill() }
}

/// A TCP server on 127.0.0.1 that accepts connections, sends `prefix` (nothing by default)
/// and then nothing more, holding the connection open: a camera that answers and then
/// stalls. Counts the connections.
final class SilentServer: Sendable {
    let port: Int
    private let fd: Int32
    private let state = SilentServerState()

    init(prefix: Data = Data()) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let state = state
        Thread.detachNewThread {
            while true {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }  // the listening socket was shut down
                state.value.withLock { $0.accepted.append(c) }
                _ = prefix.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    var connections: Int { state.value.withLock { $0.accepted.count } }

    func stop() {
        let open = state.value.withLock { s -> [Int32]? in
            defer { s.closed = true }
            return s.closed ? nil : s.accepted
        }
        guard let open else { return }  // once: a closed descriptor's number may be reused
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for c in open { close(c) }
    }

    deinit { stop() }
}

/// The sockets a `SilentServer` accepted, shared with its accepting thread.
final class SilentServerState: Sendable {
    let value = Mutex<(accepted: [Int32], closed: Bool)>(([], false))
}

/// Every health report a fleet made, in order.
final class HealthLog: Sendable {
    private let reports = Mutex<[CameraHealth]>([])
    func record(_ h: CameraHealth) { reports.withLock { $0.append(h) } }
    func of(_ camera: String) -> [CameraHealth] { reports.withLock { $0.filter { $0.camera == camera } } }
}

/// The number of video frames in `path`, decoded and counted by ffprobe.
func ffprobeFrameCount(_ path: String) throws -> Int {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    p.arguments = ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard let n = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw POSIXError(.EINVAL)
    }
    return n
}

/// A fleet running on a thread of its own; `stop()` stops it and waits, once, however often
/// it is called (also from a `defer` after a failed expectation).
final class RunningFleet: Sendable {
    let fleet: FleetRunner
    private let finished = DispatchSemaphore(value: 0)
    private let box = ResultBox()

    /// `run()`'s result, shared with the fleet's thread.
    private final class ResultBox: Sendable {
        let value = Mutex<[CameraHealth]?>(nil)
    }

    init(_ fleet: FleetRunner) {
        self.fleet = fleet
        Thread.detachNewThread { [finished, box] in
            let r = fleet.run()
            box.value.withLock { $0 = r }
            finished.signal()
        }
    }

    /// A camera's health now.
    func now(_ camera: String) -> CameraHealth { fleet.health().first { $0.camera == camera }! }

    /// Stops the fleet and returns `run()`'s final healths.
    @discardableResult
    func stop() -> [CameraHealth] {
        fleet.stop()
        if let r = box.value.withLock({ $0 }) { return r }
        finished.wait()
        finished.signal()  // for any later caller
        return box.value.withLock { $0 }!
    }
}
