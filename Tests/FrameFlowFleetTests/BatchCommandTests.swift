import Foundation
import FrameFlowTestSupport
import Testing

/// `frameflow batch` run as a user runs it: the built binary over clips and an image made
/// with the ffmpeg tool, checked against ffprobe's frame counts.
@Suite struct BatchCommandTests {
    static var binary: String { RepositoryFiles.root.appendingPathComponent(".build/debug/frameflow").path }
    static let graph = "Graphs/edge_detection_mobile_gpu.pbtxt"

    /// A fresh folder for one test, removed by `defer` in the caller.
    static func makeFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-batch-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        return dir
    }

    /// Runs `executable` (a path, or a tool found on PATH) to its end.
    @discardableResult
    static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        p.arguments = executable.hasPrefix("/") ? args : [executable] + args
        p.currentDirectoryURL = RepositoryFiles.root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Stderr is drained on its own thread so that neither pipe can fill and block the child.
        nonisolated(unsafe) var errData = Data()
        let errDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Frames in `path` as ffprobe decodes them.
    static func probeFrames(_ path: String) throws -> Int {
        let r = try run(
            "ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return try #require(Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe \(path): \(r.err)")
    }

    /// Five clips of 3 to 7 frames (one in a subfolder) and a PNG; returns the list's lines.
    static func makeMedia(in dir: URL) throws -> [String] {
        var lines: [String] = []
        for (i, frames) in [3, 7, 4, 6, 5].enumerated() {
            let name = i == 2 ? "sub/clip\(i).mp4" : "clip\(i).mp4"
            let r = try run(
                "ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p",
                    dir.appendingPathComponent(name).path,
                ])
            #expect(r.status == 0, "\(r.err)")
            lines.append(name)
        }
        let png = try run(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", dir.appendingPathComponent("still.png").path])
        #expect(png.status == 0, "\(png.err)")
        lines.insert("still.png", at: 3)
        return lines
    }

    /// The JSON lines of a run, as objects.
    static func results(_ out: String) throws -> [[String: Any]] {
        try out.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test func threeShardsProcessEveryFileOnceWithEveryFrame() throws {
        let dir = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = try Self.makeMedia(in: dir)
        let list = dir.appendingPathComponent("videos.txt").path
        try ("# six inputs\n\n" + media.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out").path
        var seen: [String] = []
        for i in 0..<3 {
            let r = try Self.run(
                Self.binary,
                [
                    "batch", list, "--graph", Self.graph, "--shard", "\(i)/3", "--output-dir", out, "--output", "mp4", "--output-stream",
                    "output_video=jsonl",
                ])
            #expect(r.status == 0, "shard \(i)/3: \(r.err)")
            let rows = try Self.results(r.out)
            // Shard i takes the list's files i, i+3, … (comments and blank lines not counted).
            #expect(rows.compactMap { $0["file"] as? String } == media.enumerated().filter { $0.offset % 3 == i }.map(\.element))
            for row in rows {
                let file = try #require(row["file"] as? String)
                seen.append(file)
                let expected = try Self.probeFrames(dir.appendingPathComponent(file).path)
                #expect(row["status"] as? String == "ok" && row["frames"] as? Int == expected && row["frames_out"] as? Int == expected, "\(row)")
                let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
                let video = (out as NSString).appendingPathComponent("\(stem).mp4")
                let jsonl = (out as NSString).appendingPathComponent("\(stem).output_video.jsonl")
                #expect(row["outputs"] as? [String] == [video, jsonl])
                #expect(try Self.probeFrames(video) == expected, "\(video)")
                let records = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
                #expect(records.count == expected && records.allSatisfy { $0.contains(#""width":64"#) }, "\(jsonl)")
            }
        }
        #expect(seen.sorted() == media.sorted(), "each file exactly once across the shards")
        let written = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(written.count == 2 * media.count, "\(written.sorted())")
    }

    @Test func aBadFileFailsItsLineAndTheOthersRun() throws {
        let dir = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = Array(try Self.makeMedia(in: dir).prefix(2))
        try Data("not a video".utf8).write(to: dir.appendingPathComponent("broken.mp4"))
        let list = dir.appendingPathComponent("videos.txt").path
        try "\(media[0])\nbroken.mp4\nmissing.mp4\n\(media[1])\n".write(toFile: list, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out").path
        let r = try Self.run(Self.binary, ["batch", list, "--graph", Self.graph, "--output-dir", out, "--output", "mp4"])
        #expect(r.status == 1, "exit 1 when a file failed: \(r.err)")
        let rows = try Self.results(r.out)
        #expect(rows.compactMap { $0["line"] as? Int } == [1, 2, 3, 4])
        #expect(rows.compactMap { $0["status"] as? String } == ["ok", "error", "error", "ok"])
        #expect((rows[1]["error"] as? String)?.contains("broken.mp4") == true, "\(rows[1])")
        #expect((rows[2]["error"] as? String)?.contains("missing.mp4: no such file") == true, "\(rows[2])")
        #expect(r.err.contains("\(list):2: broken.mp4:") && r.err.contains("\(list):3: missing.mp4:"), "\(r.err)")
        for (row, file) in [(rows[0], media[0]), (rows[3], media[1])] {
            let expected = try Self.probeFrames(dir.appendingPathComponent(file).path)
            #expect(row["frames"] as? Int == expected)
            let video = (out as NSString).appendingPathComponent(((file as NSString).deletingPathExtension as NSString).lastPathComponent + ".mp4")
            #expect(try Self.probeFrames(video) == expected)
        }
        #expect(!FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent("broken.mp4")))
    }

    @Test func badArgumentsRunNothing() throws {
        let dir = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("videos.txt").path
        try "a.mp4\nsub/a.mov\n".write(toFile: list, atomically: true, encoding: .utf8)
        let same = try Self.run(Self.binary, ["batch", list, "--graph", Self.graph])
        #expect(same.status == 2 && same.out.isEmpty && same.err.contains("\(list):2: 'sub/a.mov' has the same name"), "\(same.err)")
        try "a.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        let shard = try Self.run(Self.binary, ["batch", list, "--graph", Self.graph, "--shard", "3/3"])
        #expect(shard.status == 2 && shard.err.contains("outside 0..<3"), "\(shard.err)")
        let stream = try Self.run(Self.binary, ["batch", list, "--graph", Self.graph, "--output-stream", "edges=jsonl"])
        #expect(stream.status == 1 && stream.err.contains("no stream 'edges'"), "\(stream.err)")
        let noGraph = try Self.run(Self.binary, ["batch", list])
        #expect(noGraph.status == 2 && noGraph.err.contains("usage: frameflow batch"), "\(noGraph.err)")
    }
}
