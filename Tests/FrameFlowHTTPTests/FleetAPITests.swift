import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowFleet
import FrameFlowTestSupport
import Synchronization
import Testing

@testable import FrameFlowHTTP

/// A fleet running on a thread of its own with its API on a free port.
final class ServedFleet: Sendable {
    let dir: URL
    let file: String
    let fleet: FleetRunner
    let server: HTTPServer
    let pool = WorkerPool(threads: 2, name: "http-test")
    /// What `/api/events` serves: the cameras' `events` streams (tests may append to it too).
    let events = EventLog()
    private let finished = DispatchSemaphore(value: 0)
    static let token = "s3cret-token"

    /// Writes `fleetText` (with `pass.pbtxt`, the pass-through graph) in a fresh folder and
    /// serves it; `token` nil: no token configured. `shard`: the fleet's `--shard`;
    /// `idleTimeout`: the server's, in seconds.
    init(
        _ fleetText: String, token: String? = ServedFleet.token, registry: CalculatorRegistry = .standard, shard: Shard = .all,
        idleTimeout: Int = 15
    ) throws {
        dir = try temporaryFolder("fleet-http")
        try passThroughGraph.write(to: dir.appendingPathComponent("pass.pbtxt"), atomically: true, encoding: .utf8)
        file = dir.appendingPathComponent("site.fleet").path
        try fleetText.write(toFile: file, atomically: true, encoding: .utf8)
        let config = try FleetConfig(contentsOfFile: file)
        var options = FleetRunner.Options()
        options.keepRunning = true
        options.healthInterval = 0.5
        options.workerPool = pool
        options.shard = shard
        let events = events
        options.onEvents = { _, list in events.append(list) }
        fleet = FleetRunner(config: config, registry: registry, options: options) { _ in }
        var o = HTTPServer.Options()
        o.idleTimeoutSeconds = idleTimeout
        o.requestsPerSecond = 1000
        o.burst = 1000
        server = HTTPServer(options: o)
        FleetAPI(fleet: fleet, config: config, token: token, events: events).install(on: server)
        try server.start()
        let (fleet, finished) = (fleet, finished)
        Thread.detachNewThread {
            fleet.run()
            finished.signal()
        }
    }

    var port: Int { server.port }

    func stop() {
        server.stop()
        fleet.stop()
        finished.wait()
        pool.shutdown()
        try? FileManager.default.removeItem(at: dir)
    }

    /// `GET /api/cameras/NAME`'s object (NAME percent-encoded here).
    func camera(_ name: String) throws -> Reply {
        try TestClient.json(port: port, "/api/cameras/" + name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    func framesIn(_ name: String) throws -> Int { try camera(name).object["frames_in"] as? Int ?? -1 }

    var auth: [String: String] { ["Authorization": "Bearer \(Self.token)"] }
}

/// The fleet's API end to end: a real fleet on the hand clip, its HTTP API on loopback.
@Suite struct FleetAPITests {
    static let live = """
        defaults { graph: "pass.pbtxt" reconnect { initial_seconds: 0.1 max_seconds: 0.2 } }
        camera { name: "door" source: "\(handClip)" }
        camera { name: "yard" source: "\(handClip)" }

        """

    @Test func camerasAndProbesHaveTheirShapes() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        #expect(try TestClient.json(port: f.port, "/healthz").status == 200)
        #expect(try eventually(within: 20) { try f.framesIn("door") > 0 && f.framesIn("yard") > 0 })
        let list = try TestClient.json(port: f.port, "/api/cameras")
        #expect(list.status == 200)
        let cameras = try #require(list.json as? [[String: Any]])
        #expect(cameras.map { $0["name"] as? String } == ["door", "yard"])
        let keys: Set = ["name", "state", "fps_in", "fps_out", "frames_in", "frames_out", "dropped", "reconnects", "last_error"]
        for c in cameras { #expect(Set(c.keys) == keys) }
        let door = try f.camera("door")
        #expect(door.status == 200 && door.object["name"] as? String == "door")
        #expect(["running", "connecting", "backoff"].contains(door.object["state"] as? String ?? ""))
        let ready = try TestClient.json(port: f.port, "/readyz")
        #expect(ready.status == 200 && ready.object["ready"] as? Bool == true)
        let events = try TestClient.json(port: f.port, "/api/events?camera=door&limit=5")
        #expect(events.status == 200 && (events.json as? [Any])?.isEmpty == true)
        #expect(try TestClient.json(port: f.port, "/api/events?limit=0").status == 400)
    }

    /// Unknown names, traversal attempts and unicode names only ever index the cameras.
    @Test func unknownAndHostileNamesAre404() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        for path in [
            "/api/cameras/nope", "/api/cameras/..%2F..%2Fetc%2Fpasswd", "/api/cameras/../../etc/passwd", "/api/cameras/%00",
            "/api/cameras/caf%C3%A9", "/api/cameras/%FF%FE",
        ] {
            let r = try TestClient.json(port: f.port, path)
            #expect(r.status == 404, "\(path)")
            #expect(r.object["error"] is String, "\(path)")
            #expect(!r.text.contains("root:"))
        }
        #expect((try f.camera("café").object["error"] as? String)?.contains("café") == true)
        let r = try TestClient.request(port: f.port, "POST", "/api/cameras/..%2Fsite.fleet/restart", headers: f.auth)
        #expect(r.status == 404)
        #expect(FileManager.default.fileExists(atPath: f.file))
    }

    @Test func changesNeedTheToken() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        let block = Data("camera { name: \"new\" source: \"\(handClip)\" }".utf8)
        let none = try TestClient.request(port: f.port, "POST", "/api/cameras", body: block)
        #expect(none.status == 401)
        #expect(none.headers["www-authenticate"] == "Bearer")
        let wrong = try TestClient.request(port: f.port, "POST", "/api/cameras", headers: ["Authorization": "Bearer s3cret-tokeN"], body: block)
        #expect(wrong.status == 401)
        let longer = try TestClient.request(port: f.port, "DELETE", "/api/cameras/door", headers: ["Authorization": "Bearer \(ServedFleet.token)x"])
        #expect(longer.status == 401)
        let basic = try TestClient.request(port: f.port, "POST", "/api/cameras/door/restart", headers: ["Authorization": ServedFleet.token])
        #expect(basic.status == 401)
        #expect(try f.camera("door").status == 200)
        #expect(try f.camera("new").status == 404)
        #expect(FleetAPI.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!FleetAPI.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!FleetAPI.constantTimeEqual(Array("abc".utf8), Array("ab".utf8)))

        let open = try ServedFleet(Self.live, token: nil)
        defer { open.stop() }
        let refused = try TestClient.request(port: open.port, "DELETE", "/api/cameras/door", headers: f.auth)
        #expect(refused.status == 403)
        #expect((refused.object["error"] as? String)?.contains("FRAMEFLOW_HTTP_TOKEN") == true)
        #expect(try open.camera("door").status == 200)
    }

    /// Bad camera blocks are 400 with the line and column; malformed JSON and oversized
    /// bodies are refused; nothing is added.
    @Test func badCamerasAreRefusedWithTheirLineAndColumn() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        func post(_ body: String, json: Bool = false) throws -> Reply {
            var h = f.auth
            if json { h["Content-Type"] = "application/json" }
            return try TestClient.request(port: f.port, "POST", "/api/cameras", headers: h, body: Data(body.utf8))
        }
        let unknown = try post("camera { name: \"x\" source: \"\(handClip)\"\n  sauce: \"y\" }")
        #expect(unknown.status == 400)
        #expect((unknown.object["error"] as? String)?.contains("request:2:3: camera: unknown field 'sauce'") == true, "\(unknown.text)")
        let syntax = try post("camera { name: \"x\"\n source: }")
        #expect(syntax.status == 400)
        #expect((syntax.object["error"] as? String)?.hasPrefix("request:2:") == true, "\(syntax.text)")
        let noGraph = try post("camera { name: \"x\" source: \"\(handClip)\" graph: \"missing.pbtxt\" }")
        #expect(noGraph.status == 400)
        #expect((noGraph.object["error"] as? String)?.contains("missing.pbtxt") == true, "\(noGraph.text)")
        let twice = try post("camera { name: \"door\" source: \"\(handClip)\" }")
        #expect(twice.status == 409)
        for bad in ["{", "[1,2]", "{\"name\": null}", "{\"name\": \"x\", \"source\": 3}", "{\"na me\": \"x\"}", "{\"name\": [[1]]}"] {
            let r = try post(bad, json: true)
            #expect(r.status == 400, "\(bad)")
            #expect(r.object["error"] is String)
        }
        var raw =
            "POST /api/cameras HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(ServedFleet.token)\r\nContent-Length: 2\r\n\r\n"
            .data(using: .utf8)!
        raw += Data([0xFF, 0xFE])
        #expect(try TestClient.parse(TestClient.exchange(port: f.port, raw)).status == 400)
        let big = try post("camera { name: \"x\" source: \"" + String(repeating: "a", count: 70_000) + "\" }")
        #expect(big.status == 413)
        #expect(f.fleet.cameras.map(\.name) == ["door", "yard"])
    }

    /// A camera added at run time (JSON, a unicode name) runs; restarted, it runs again;
    /// removed, it stops and is gone; the others' frame counts grow throughout, never back.
    @Test func addRestartRemoveWhileTheOthersRun() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        #expect(try eventually(within: 20) { try f.framesIn("door") > 0 })
        var samples: [Int] = [try f.framesIn("door")]
        let name = "café ☕"
        let json = "{\"name\": \"\(name)\", \"source\": \"\(handClip)\", \"realtime\": true, \"stall_seconds\": 5}"
        var h = f.auth
        h["Content-Type"] = "application/json"
        let added = try TestClient.request(port: f.port, "POST", "/api/cameras", headers: h, body: Data(json.utf8))
        #expect(added.status == 201, "\(added.text)")
        #expect(added.object["name"] as? String == name)
        #expect(
            try eventually(within: 20) {
                samples.append(try f.framesIn("door"))
                return try f.framesIn(name) >= 10
            })
        let path = "/api/cameras/" + name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let restarted = try TestClient.request(port: f.port, "POST", path + "/restart", headers: f.auth)
        #expect(restarted.status == 200)
        #expect(try eventually(within: 20) { try f.framesIn(name) >= 5 })
        samples.append(try f.framesIn("door"))
        let atRemoval = try f.framesIn("door")
        let removed = try TestClient.request(port: f.port, "DELETE", path, headers: f.auth)
        #expect(removed.status == 200)
        #expect(removed.object["state"] as? String == "stopped")
        #expect(try f.camera(name).status == 404)
        #expect(f.fleet.cameras.map(\.name) == ["door", "yard"])
        #expect(try TestClient.request(port: f.port, "DELETE", path, headers: f.auth).status == 404)
        #expect(
            try eventually(within: 20) {
                samples.append(try f.framesIn("door"))
                return samples.last! > atRemoval + 5
            })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 }, "\(samples)")
        #expect(try f.camera("yard").object["state"] as? String != "stopped")
    }

    /// A camera whose graph does not load makes the fleet unready, naming it; removing it
    /// makes it ready.
    @Test func readinessNamesTheCamerasThatCannotRun() throws {
        let f = try ServedFleet(Self.live + "camera { name: \"broken\" source: \"\(handClip)\" graph: \"nothing.pbtxt\" }\n")
        defer { f.stop() }
        let r = try TestClient.json(port: f.port, "/readyz")
        #expect(r.status == 503)
        #expect(r.object["ready"] as? Bool == false)
        let problems = r.object["problems"] as? [String] ?? []
        #expect(problems.count == 1 && problems[0].contains("broken") && problems[0].contains("nothing.pbtxt"), "\(problems)")
        #expect(try TestClient.request(port: f.port, "DELETE", "/api/cameras/broken", headers: f.auth).status == 200)
        #expect(try TestClient.json(port: f.port, "/readyz").status == 200)
    }

    /// `/metrics`, read by prometheus-client's parser, counts what `/api/cameras` says; the
    /// cameras have read their whole clip and wait, so the counts hold still.
    @Test func metricsParseAndAgreeWithTheHealthJSON() throws {
        let f = try ServedFleet(
            """
            defaults { graph: "pass.pbtxt" realtime: false reconnect { initial_seconds: 1000 max_seconds: 1000 } }
            camera { name: "door" source: "\(handClip)" }
            camera { name: "say \\"hi\\"" source: "\(handClip)" }

            """)
        defer { f.stop() }
        #expect(
            try eventually(within: 30) {
                let all = try #require(try TestClient.json(port: f.port, "/api/cameras").json as? [[String: Any]])
                return all.allSatisfy { $0["state"] as? String == "backoff" }
            })
        let cameras = try #require(try TestClient.json(port: f.port, "/api/cameras").json as? [[String: Any]])
        let metrics = try TestClient.json(port: f.port, "/metrics")
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let parsed = try prometheus(metrics.body)
        let families = parsed["families"] as? [String: String] ?? [:]
        #expect(families["frameflow_camera_frames_in"] == "counter")
        #expect(families["frameflow_camera_state"] == "gauge")
        #expect(families["process_resident_memory_bytes"] == "gauge")
        let samples = parsed["samples"] as? [[String: Any]] ?? []
        func value(_ name: String, _ labels: [String: String]) -> Double? {
            samples.first { $0["name"] as? String == name && ($0["labels"] as? [String: String]) == labels }?["value"] as? Double
        }
        #expect(cameras.count == 2)
        for c in cameras {
            let name = c["name"] as! String
            #expect(c["frames_in"] as? Int == 180)
            for (metric, key) in [
                ("frameflow_camera_frames_in_total", "frames_in"), ("frameflow_camera_frames_out_total", "frames_out"),
                ("frameflow_camera_frames_dropped_total", "dropped"), ("frameflow_camera_reconnects_total", "reconnects"),
            ] {
                #expect(value(metric, ["camera": name]) == Double(c[key] as! Int), "\(metric) \(name)")
            }
            #expect(value("frameflow_camera_state", ["camera": name, "state": "backoff"]) == 1)
            #expect(value("frameflow_camera_state", ["camera": name, "state": "running"]) == 0)
        }
        #expect((value("process_resident_memory_bytes", [:]) ?? 0) > 1e6)
        #expect(value("frameflow_worker_threads", [:]) == 2)
    }

    /// `?save=true` writes the change to the fleet file (through a temporary file renamed over
    /// it): the file then reads with the camera added, then without the one removed.
    @Test func savedChangesReachTheFleetFile() throws {
        let f = try ServedFleet(Self.live)
        defer { f.stop() }
        let block = "camera {\n  name: \"porch\"\n  source: \"\(handClip)\"\n}\n"
        let added = try TestClient.request(port: f.port, "POST", "/api/cameras?save=true", headers: f.auth, body: Data(block.utf8))
        #expect(added.status == 201, "\(added.text)")
        #expect(try FleetConfig(contentsOfFile: f.file).cameras.map(\.name) == ["door", "yard", "porch"])
        let removed = try TestClient.request(port: f.port, "DELETE", "/api/cameras/yard?save=true", headers: f.auth)
        #expect(removed.status == 200, "\(removed.text)")
        #expect(try FleetConfig(contentsOfFile: f.file).cameras.map(\.name) == ["door", "porch"])
        #expect(f.fleet.cameras.map(\.name) == ["door", "porch"])
        let unsaved = try TestClient.request(port: f.port, "DELETE", "/api/cameras/porch", headers: f.auth)
        #expect(unsaved.status == 200)
        #expect(try FleetConfig(contentsOfFile: f.file).cameras.map(\.name) == ["door", "porch"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: f.dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    /// An event's snapshot comes from its camera's snapshots folder, found through the event
    /// log only: unknown ids, events without a snapshot and traversal attempts are 404.
    @Test func eventSnapshotsAreFoundThroughTheLog() throws {
        let f = try ServedFleet(
            """
            defaults { graph: "pass.pbtxt" }
            camera { name: "door" source: "\(handClip)" snapshots { folder: "snaps" stream: "output_video" events_stream: "output_video" } }
            camera { name: "yard" source: "\(handClip)" }

            """)
        defer { f.stop() }
        let snaps = f.dir.appendingPathComponent("snaps")
        try FileManager.default.createDirectory(at: snaps, withIntermediateDirectories: true)
        for (suffix, text) in [("-annotated.jpg", "annotated"), (".jpg", "full"), ("-crop.jpg", "crop")] {
            try Data(text.utf8).write(to: snaps.appendingPathComponent("100.5-door-3" + suffix))
            try Data(text.utf8).write(to: snaps.appendingPathComponent("100.5-door-4" + suffix))
        }
        f.events.append([
            Self.event(id: "100.5-door-3", camera: "door", snapshot: true), Self.event(id: "100.5-door-4", camera: "door", snapshot: false),
            Self.event(id: "100.5-yard-1", camera: "yard", snapshot: true),
        ])
        for (query, text) in [("", "annotated"), ("?kind=annotated", "annotated"), ("?kind=full", "full"), ("?kind=crop", "crop")] {
            let r = try TestClient.json(port: f.port, "/api/events/100.5-door-3/snapshot.jpg" + query)
            #expect(r.status == 200 && r.text == text, "\(query): \(r.text)")
            #expect(r.headers["content-type"] == "image/jpeg")
        }
        #expect(try TestClient.json(port: f.port, "/api/events/100.5-door-3/snapshot.jpg?kind=../x").status == 400)
        for id in ["100.5-door-4", "100.5-yard-1", "nope", "..%2Fsite.fleet", "..", "%2E%2E%2Fsnaps%2F100.5-door-3"] {
            let r = try TestClient.json(port: f.port, "/api/events/\(id)/snapshot.jpg")
            #expect(r.status == 404, "\(id)")
            #expect(r.object["error"] is String)
        }
        // Gone from the folder (pruned): 404 too.
        try FileManager.default.removeItem(at: snaps.appendingPathComponent("100.5-door-3-annotated.jpg"))
        #expect(try TestClient.json(port: f.port, "/api/events/100.5-door-3/snapshot.jpg").status == 404)
    }

    /// A `new` event of a person on `camera`.
    static func event(id: String, camera: String, snapshot: Bool, type: ObjectEvent.Kind = .new, score: Double = 0.8) -> ObjectEvent {
        let s = ObjectEvent.State(
            id: id, camera: camera, frameTime: 100.5, label: "person", topScore: score, startTime: 100.5, score: score, box: [10, 20, 110, 220],
            area: 20000, ratio: 0.5, region: [0, 0, 320, 568], currentZones: ["path"], hasSnapshot: snapshot)
        return ObjectEvent(type: type, before: s, after: s)
    }

    /// The JSON form maps to the text block field by field.
    @Test func jsonCamerasBecomeTextBlocks() throws {
        let text = try CameraBlockJSON.text(
            fromJSON: Data(
                """
                {"name": "d\\"oor é", "realtime": false, "stall_seconds": 2.5, "max_image_pixels": 100,
                 "output": [{"stream": "a", "to": "null"}, {"stream": "b", "to": "null"}]}
                """.utf8))
        let config = try FleetConfig(text: "defaults { graph: \"g.pbtxt\" }", file: "/site/x.fleet")
        let camera = try config.camera(text: text.replacingOccurrences(of: "camera {", with: "camera { source: \"s.mp4\""))
        #expect(camera.name == "d\"oor é")
        #expect(camera.realtime == false)
        #expect(camera.stallSeconds == 2.5)
        #expect(camera.maxImagePixels == 100)
        #expect(camera.outputs.map(\.stream) == ["a", "b"])
        #expect(camera.graph == "/site/g.pbtxt")
        #expect(camera.source == "/site/s.mp4")
    }

    /// Runs scripts/prometheus_metrics_to_json.py (prometheus-client's parser) on `text`.
    func prometheus(_ text: Data) throws -> [String: Any] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", RepositoryFiles.path("scripts/prometheus_metrics_to_json.py")]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(text)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}
