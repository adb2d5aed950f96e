import Foundation
import FrameFlowTestSupport
import Synchronization
import Testing

/// `frameflow fleet --http`: the built binary, as Kubernetes runs it.
@Suite struct FleetHTTPCommandTests {
    static var binary: String { RepositoryFiles.root.appendingPathComponent(".build/debug/frameflow").path }

    /// The binary running in `dir` with `environment` added; its standard error collected.
    final class Command: Sendable {
        let process: Process
        private let err = Text()

        /// Text a reader thread appends to.
        final class Text: Sendable {
            let value = Mutex<String>("")
        }
        private let done = DispatchSemaphore(value: 0)

        init(_ args: [String], in dir: URL, environment: [String: String] = [:]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: FleetHTTPCommandTests.binary)
            p.arguments = args
            p.currentDirectoryURL = dir
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, b in b }
            p.standardOutput = FileHandle.nullDevice
            let e = Pipe()
            p.standardError = e
            try p.run()
            process = p
            let (err, done) = (err, done)
            Thread.detachNewThread {
                while true {
                    let data = e.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    err.value.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
                done.signal()
            }
        }

        var errors: String { err.value.withLock { $0 } }

        /// The port of "http: listening on http://127.0.0.1:PORT", once printed.
        func port(within seconds: Double = 30) -> Int? {
            var found: Int?
            _ = eventually(within: seconds) {
                guard let r = errors.range(of: "http: listening on http://127.0.0.1:") else { return false }
                found = Int(errors[r.upperBound...].prefix { $0.isNumber })
                return found != nil
            }
            return found
        }

        func wait() -> Int32 {
            process.waitUntilExit()
            done.wait()
            return process.terminationStatus
        }
    }

    static func site(_ extra: String = "") throws -> URL {
        let dir = try temporaryFolder("fleet-http-cli")
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        try "\(extra)camera { name: \"a\" source: \"\(handClip)\" graph: \"pass.pbtxt\" }\n".write(
            to: dir.appendingPathComponent("site.fleet"), atomically: true, encoding: .utf8)
        return dir
    }

    /// `--http 127.0.0.1:0` prints the bound address; the API answers, takes a camera with the
    /// token from the environment, and SIGTERM still stops the fleet cleanly.
    @Test func theFleetServesItsAPIOnAFreePort() throws {
        let dir = try Self.site()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Command(["fleet", "site.fleet", "--http", "127.0.0.1:0"], in: dir, environment: ["FRAMEFLOW_HTTP_TOKEN": "t0ken"])
        defer { if c.process.isRunning { kill(c.process.processIdentifier, SIGKILL) } }
        let port = try #require(c.port(), "\(c.errors)")
        #expect(try TestClient.json(port: port, "/healthz").status == 200)
        let block = Data("camera { name: \"b\" source: \"\(handClip)\" graph: \"pass.pbtxt\" }".utf8)
        #expect(try TestClient.request(port: port, "POST", "/api/cameras", body: block).status == 401)
        let added = try TestClient.request(port: port, "POST", "/api/cameras", headers: ["Authorization": "Bearer t0ken"], body: block)
        #expect(added.status == 201, "\(added.text)")
        #expect(
            try eventually(within: 20) {
                (try TestClient.json(port: port, "/api/cameras/b").object["frames_in"] as? Int ?? 0) > 0
            })
        kill(c.process.processIdentifier, SIGTERM)
        #expect(c.wait() == 0, "\(c.errors)")
    }

    /// The file's `http { listen }` serves when `--http` is not given; a token file works as
    /// the environment does.
    @Test func theFleetFilesHTTPBlockAndATokenFile() throws {
        let dir = try Self.site("http { listen: \"127.0.0.1:0\" }\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        try "from-file\n".write(to: dir.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        let c = try Command(["fleet", "site.fleet", "--http-token-file", "token"], in: dir)
        defer { if c.process.isRunning { kill(c.process.processIdentifier, SIGKILL) } }
        let port = try #require(c.port(), "\(c.errors)")
        let restart = try TestClient.request(port: port, "POST", "/api/cameras/a/restart", headers: ["Authorization": "Bearer from-file"])
        #expect(restart.status == 200, "\(restart.text)")
        kill(c.process.processIdentifier, SIGTERM)
        #expect(c.wait() == 0, "\(c.errors)")
    }

    @Test func badAddressesAreUsageErrorsNamingTheValue() throws {
        let dir = try Self.site()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bad in ["nowhere", "127.0.0.1:99999", "example.com:80"] {
            let c = try Command(["fleet", "site.fleet", "--http", bad], in: dir)
            #expect(c.wait() == 2, "\(bad)")
            #expect(c.errors.contains("'\(bad)'"), "\(c.errors)")
        }
        let missing = try Command(["fleet", "site.fleet", "--http", "127.0.0.1:0", "--http-token-file", "nope"], in: dir)
        #expect(missing.wait() == 2)
        #expect(missing.errors.contains("nope"), "\(missing.errors)")
    }
}
