import Foundation
import FrameFlowTestSupport
import Synchronization
import Testing

@testable import FrameFlowHTTP

/// The page's files as the server gives them: the bytes of Web/, their types and caching.
@Suite struct WebUITests {
    static let folder = RepositoryFiles.path("Sources/FrameFlowHTTP/Web")

    /// Every file of Web/ is in `WebUI.files` with its exact bytes (SwiftPM embedded them).
    @Test func everyFileIsEmbedded() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.folder).sorted()
        #expect(WebUI.files.map(\.file).sorted() == onDisk)
        for f in WebUI.files {
            #expect(FileManager.default.contents(atPath: Self.folder + "/" + f.file).map { [UInt8]($0) } == f.bytes, "\(f.file)")
        }
    }

    @Test func servesTheFilesWithTheirTypesAndNothingElse() throws {
        let server = HTTPServer()
        WebUI().install(on: server)
        try server.start()
        defer { server.stop() }
        for (path, file, type) in [
            ("/", "index.html", "text/html; charset=utf-8"), ("/ui/app.css", "app.css", "text/css; charset=utf-8"),
            ("/ui/app.js", "app.js", "text/javascript; charset=utf-8"),
        ] {
            let r = try TestClient.json(port: server.port, path)
            #expect(r.status == 200, "\(path)")
            #expect(r.headers["content-type"] == type, "\(path)")
            #expect(r.headers["cache-control"] == "no-cache")
            #expect(r.headers["x-content-type-options"] == "nosniff")
            #expect(r.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
            #expect(r.headers["access-control-allow-origin"] == nil)
            #expect(r.body == FileManager.default.contents(atPath: Self.folder + "/" + file), "\(path)")
            // The same file again, known to the client: 304 without a body; another tag: 200.
            let etag = try #require(r.headers["etag"])
            let again = try TestClient.request(port: server.port, "GET", path, headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.body.isEmpty, "\(path)")
            let other = try TestClient.request(port: server.port, "GET", path, headers: ["If-None-Match": "\"0\""])
            #expect(other.status == 200)
        }
        // Only the embedded table answers: no file-system path, no folder listing.
        for path in [
            "/ui/", "/ui/index.html", "/ui/../Package.swift", "/ui/..%2F..%2FPackage.swift", "/ui/app.js.map", "/index.html",
            "/ui/WebUI.swift", "/Web/app.js", "/ui/app.js/x",
        ] {
            let r = try TestClient.json(port: server.port, path)
            #expect(r.status == 404, "\(path)")
            #expect(!r.text.contains("import "), "\(path)")
        }
        #expect(try TestClient.request(port: server.port, "POST", "/").status == 405)
    }

    /// The page loads nothing from elsewhere and puts no server text into markup.
    @Test func thePageIsSelfContained() throws {
        for f in WebUI.files {
            let text = String(decoding: f.bytes, as: UTF8.self)
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"), "\(f.file)")
            #expect(!text.contains("innerHTML") && !text.contains("outerHTML") && !text.contains("insertAdjacentHTML"), "\(f.file)")
            #expect(!text.contains("document.write") && !text.contains("eval("), "\(f.file)")
        }
    }
}

/// The page in a real browser: headless Chromium (Debian's chromium and chromium-driver)
/// driven by Selenium through scripts/browser_check.py, against a fleet on the hand clip.
@Suite struct WebUIBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let driver = "/usr/bin/chromedriver"

    /// Two cameras show live, changing images; a third, with a hostile name, added through
    /// the form (refused without the token, then accepted) runs and shows; a bad block's error
    /// with its line and column shows; removed through its page, it stops and its tile goes;
    /// the first camera's page lists its events with a working snapshot link.
    /// With FRAMEFLOW_WEB_SCREENSHOTS=FOLDER the script also saves web-grid.png and web-camera.png
    /// there (`make web-screenshots`).
    @Test func thePageShowsAddsAndRemovesCameras() throws {
        for tool in [Self.chromium, Self.driver] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh test")
        }
        let f = try ServedFleet(
            """
            defaults { graph: "pass.pbtxt" reconnect { initial_seconds: 0.1 max_seconds: 0.2 } }
            camera { name: "door" source: "\(handClip)" snapshots { folder: "snaps" stream: "output_video" events_stream: "output_video" } }
            camera { name: "yard" source: "\(handClip)" }

            """)
        defer { f.stop() }
        // Two events of door (an object seen, then its snapshot saved: a real frame of door).
        #expect(try eventually(within: 20) { try TestClient.json(port: f.port, "/api/cameras/door/snapshot.jpg").status == 200 })
        let frame = try TestClient.json(port: f.port, "/api/cameras/door/snapshot.jpg").body
        let snaps = f.dir.appendingPathComponent("snaps")
        try FileManager.default.createDirectory(at: snaps, withIntermediateDirectories: true)
        try frame.write(to: snaps.appendingPathComponent("100.5-door-1-annotated.jpg"))
        f.events.append([
            FleetAPITests.event(id: "100.5-door-1", camera: "door", snapshot: false),
            FleetAPITests.event(id: "100.5-door-1", camera: "door", snapshot: true, type: .update, score: 0.87),
        ])
        let added = "porch <img src=x onerror=alert(1)> ☕"
        var arguments = [
            RepositoryFiles.path("scripts/browser_check.py"), "--url", "http://127.0.0.1:\(f.port)/", "--token", ServedFleet.token,
            "--camera", "door", "--camera", "yard", "--events", "2", "--add-name", added,
            "--add-block", "camera { name: \"\(added)\" source: \"\(handClip)\" }",
            "--bad-block", "camera { name: \"porch\" source: \"rtsp://192.168.1.20/stream\"\n  sauce: \"y\" }",
        ]
        if let folder = ProcessInfo.processInfo.environment["FRAMEFLOW_WEB_SCREENSHOTS"] { arguments += ["--screenshots", folder] }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3"] + arguments
        let output = Pipe()
        p.standardOutput = output
        let reading = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            let data = handle.readDataToEndOfFile()
            reading.withLock { $0 = data }
            done.signal()
        }
        try p.run()
        // Meanwhile, from the fleet itself: the frames the added camera read while it ran.
        // A browser that hangs is stopped after 2 minutes (the script's own steps time out in 15 s).
        var addedFrames = 0
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning {
            addedFrames = max(addedFrames, f.fleet.health(of: added)?.framesIn ?? 0)
            if Date() > deadline {
                Issue.record("scripts/browser_check.py ran over 120 s")
                p.terminate()
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        p.waitUntilExit()
        done.wait()
        let text = reading.withLock { String(decoding: $0, as: UTF8.self) }
        let r = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        #expect(p.terminationStatus == 0, "\(r["error"] ?? text)")

        #expect(r["tiles"] as? [String] == ["door", "yard"])
        #expect(r["tile_titles"] as? [String] == ["door", "yard"])
        let images = r["images"] as? [String: [String: Any]] ?? [:]
        for name in ["door", "yard"] {
            #expect(images[name]?["size"] as? [Int] == [320, 568], "\(name): \(images[name] ?? [:])")
            #expect(images[name]?["changed"] as? Bool == true, "\(name): the image changes over time")
        }
        #expect((r["unauthorized_message"] as? String)?.contains("401") == true, "\(r["unauthorized_message"] ?? "")")
        #expect(r["token_stored"] as? Bool == true)
        #expect(r["added_message"] as? String == "added \(added)")
        #expect(r["added_title"] as? String == added)
        let addedImage = r["added_image"] as? [String: Any] ?? [:]
        #expect(addedImage["size"] as? [Int] == [320, 568] && addedImage["changed"] as? Bool == true, "\(addedImage)")
        #expect(r["injected_elements"] as? Int == 0)
        let bad = r["bad_block_message"] as? String ?? ""
        #expect(bad.contains("request:2:3: camera: unknown field 'sauce'") && bad.hasPrefix("400"), "\(bad)")
        #expect(r["bad_block_is_error"] as? Bool == true)
        #expect(r["restart_message"] as? String == "restarted \(added)")
        #expect(r["tiles_after_removal"] as? [String] == ["door", "yard"])
        let page = r["page_image"] as? [String: Any] ?? [:]
        #expect((page["size"] as? [Int])?.first == 640 && page["changed"] as? Bool == true, "\(page)")
        // door's page lists its events, newest first; the snapshot link gives the JPEG saved.
        let rows = r["event_rows"] as? [[String]] ?? []
        #expect(
            rows.map { Array($0.dropFirst()) } == [["update", "person", "0.87", "path", "snapshot", ""], ["new", "person", "0.80", "path", "", ""]])
        #expect(rows.first?.first == "100.50 s")
        let snapshots = r["event_snapshots"] as? [[Any]] ?? []
        #expect(snapshots.count == 1)
        #expect(snapshots.first?[0] as? Int == 200 && snapshots.first?[1] as? String == "image/jpeg" && snapshots.first?[2] as? Int == frame.count)

        // The fleet agrees: the added camera read frames, and is gone; the others run.
        #expect(addedFrames > 0)
        #expect(f.fleet.cameras.map(\.name) == ["door", "yard"])
        #expect(f.fleet.health(of: added) == nil)
        #expect(try f.framesIn("door") > 0)
    }
}
