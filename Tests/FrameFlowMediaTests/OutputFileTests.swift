import Foundation
import Testing

/// Outputs on a full disk, refused destinations and leftovers, through the `frameflow` tool.
@Suite(.serialized) struct OutputFileTests {
    /// A folder on a file system of `kilobytes` (a tmpfs, when this process may mount one),
    /// else nil.
    static func smallFileSystem(kilobytes: Int) -> String? {
        let dir = MediaFixtures.path("small-fs-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/mount")
        p.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", dir]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        p.waitUntilExit()
        return p.terminationStatus == 0 ? dir : nil
    }

    static func unmount(_ dir: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/umount")
        p.arguments = [dir]
        try? p.run()
        p.waitUntilExit()
    }

    /// Runs the edge graph on a 640×480 test source into `output`, under `ulimit -f` when
    /// `fileBlocks` is given (each write past it fails with EFBIG, like a full disk).
    static func run(output: String, frames: Int, fileBlocks: Int? = nil) throws -> (status: Int32, stderr: String) {
        let cmd =
            "\(fileBlocks.map { "ulimit -f \($0); " } ?? "")exec \(CommandLineTests.binary) run Graphs/edge_detection_mobile_gpu.pbtxt"
            + " --input testsrc:640x480@30 --frames \(frames) --output '\(output)'"
        let (p, text) = try MediaFixtures.runReadingStderr("/bin/bash", ["-c", cmd])
        return (p.terminationStatus, text)
    }

    /// On a full disk every kind of output fails with a message naming it and exit status 1;
    /// an existing file keeps its bytes, and nothing else is left in the folder (no output
    /// under its name, no temporary, no frame of a sequence). Where no tmpfs can be mounted,
    /// a file-size limit makes the writes fail instead.
    @Test(.disabled(if: FaultTests.underThreadSanitizer, "ThreadSanitizer's runtime cannot start under ulimit -f"))
    func aFullDiskLeavesNothingAndKeepsExistingFiles() throws {
        let mounted = Self.smallFileSystem(kilobytes: 64)
        defer { if let mounted { Self.unmount(mounted) } }
        let dir = mounted ?? MediaFixtures.path("limited-\(getpid())")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let precious = Data("an earlier result the user wants to keep\n".utf8)
        let existing = (dir as NSString).appendingPathComponent("one.png")
        try precious.write(to: URL(fileURLWithPath: existing))
        if mounted != nil {
            // Leave about 8 KB: less than one 640×480 PNG of edges or a second of H.264.
            try Data(count: 52 * 1024).write(to: URL(fileURLWithPath: (dir as NSString).appendingPathComponent("filler")))
        }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        for name in ["one.png", "x.mp4", "seq%04d.png", "x.mkv"] {
            let out = (dir as NSString).appendingPathComponent(name)
            let r = try Self.run(output: out, frames: 30, fileBlocks: mounted == nil ? 8 : nil)
            #expect(r.status == 1, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(out) && r.stderr.contains("cannot write"), "\(name): \(r.stderr)")
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
            #expect(after == before, "\(name): left \(after.subtracting(before).sorted())")
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == precious, "\(name): the existing one.png is unchanged")
        }
    }

    /// `/dev/full` as a destination (the final rename would replace the device) and an
    /// extension FrameFlow does not encode are refused before the run, in FrameFlow's words.
    @Test func destinationsThatAreNotFilesAreRefused() throws {
        let cli = CommandLineTests()
        for (out, says) in [("/dev/full", "has no extension"), (MediaFixtures.path("x.gif"), "'.gif'")] {
            let r = try cli.run(["run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2", "--output", out])
            #expect(r.status == 1, "\(out): \(r.status) \(r.err)")
            #expect(r.err.hasPrefix(out) && !r.err.contains("[") && r.err.contains(says), "\(out): \(r.err)")
        }
        let jsonl = try cli.run([
            "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2", "--output-stream",
            "output_video=/dev/full",
        ])
        #expect(jsonl.status == 1 && jsonl.err.contains("/dev/full"), "\(jsonl.err)")
        let link = MediaFixtures.path("full-link.jsonl")
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/full")
        let linked = try cli.run([
            "run", "Graphs/edge_detection_mobile_gpu.pbtxt", "--input", "testsrc:64x48@10", "--frames", "2", "--output-stream",
            "output_video=\(link)",
        ])
        #expect(linked.status == 1 && linked.err.contains("not a regular file"), "\(linked.err)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/dev/full", "the link is left as it was")
        #expect(!FileManager.default.fileExists(atPath: MediaFixtures.path("x.gif")))
        let devLeftovers = try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.contains(".frameflow-") }
        #expect(devLeftovers.isEmpty, "\(devLeftovers)")
        var st = stat()
        #expect(stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "/dev/full is still the device")
    }

    /// The temporaries a killed run left (its process gone) are removed by the next run to the
    /// same destination; those of a live process are not.
    @Test func aKilledRunsTemporariesGoWithTheNextRun() throws {
        var buf = [CChar](repeating: 0, count: 256)
        gethostname(&buf, buf.count - 1)
        let host = String(
            String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let dir = MediaFixtures.path("stale-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let gone = (dir as NSString).appendingPathComponent(".out.mp4.frameflow-\(host)-2147480000-1.mp4")
        let alive = (dir as NSString).appendingPathComponent(".out.mp4.frameflow-\(host)-\(getpid())-1.mp4")
        FileManager.default.createFile(atPath: gone, contents: Data())
        FileManager.default.createFile(atPath: alive, contents: Data())
        let r = try Self.run(output: (dir as NSString).appendingPathComponent("out.mp4"), frames: 3)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: gone), "the dead process's temporary is removed")
        #expect(FileManager.default.fileExists(atPath: alive), "a live process's temporary is kept")
    }
}
