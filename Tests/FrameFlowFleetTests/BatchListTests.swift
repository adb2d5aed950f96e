import Foundation
import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

@Suite struct BatchListTests {
    func parse(_ text: String, base: String = "/lists") throws -> BatchList {
        try BatchList(data: Data(text.utf8), file: "videos.txt", baseDirectory: base)
    }

    func error(_ text: String) -> BatchListError? {
        do {
            _ = try parse(text)
            return nil
        } catch let e as BatchListError {
            return e
        } catch {
            Issue.record("not a BatchListError: \(error)")
            return nil
        }
    }

    @Test func commentsBlankLinesSpacesAndLineEnds() throws {
        let text = "# cameras\n\nlobby/cam1.mp4\r\n  /srv/door.mkv\t\n   # indented comment\nrtsp://10.0.0.5:8554/yard.sdp\nweird #name.mp4\n"
        let list = try parse(text)
        #expect(list.entries.map(\.line) == [3, 4, 6, 7])
        #expect(list.entries.map(\.text) == ["lobby/cam1.mp4", "/srv/door.mkv", "rtsp://10.0.0.5:8554/yard.sdp", "weird #name.mp4"])
        #expect(list.entries.map(\.path) == ["/lists/lobby/cam1.mp4", "/srv/door.mkv", "rtsp://10.0.0.5:8554/yard.sdp", "/lists/weird #name.mp4"])
        #expect(list.entries.map(\.stem) == ["cam1", "door", "yard", "weird #name"])
    }

    @Test func relativePathsResolveAgainstTheListsFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("batchlist-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("list.txt").path
        try "a.mp4\n../b.mp4\n".write(toFile: file, atomically: true, encoding: .utf8)
        let list = try BatchList(contentsOfFile: file)
        #expect(list.entries.map(\.path) == [dir.path + "/a.mp4", dir.path + "/../b.mp4"])
        #expect(list.file == file)
    }

    @Test func urlsAreNamedAfterTheirPath() throws {
        let list = try parse("http://10.0.0.8/live/cam.ts?token=a.b#t=1\nrtsp://10.0.0.9:554/stream1\n")
        #expect(list.entries.map(\.stem) == ["cam", "stream1"])
        #expect(list.entries.map(\.path) == ["http://10.0.0.8/live/cam.ts?token=a.b#t=1", "rtsp://10.0.0.9:554/stream1"])
        #expect(error("rtsp://user@host:554/\n")?.description == "videos.txt:1: 'rtsp://user@host:554/' names no file")
    }

    /// Inputs the fuzzer found (Tests/Fixtures/fuzz/batchlist): each parses or is refused, no trap.
    @Test func fuzzFindingsAreHandled() throws {
        let dir = RepositoryFiles.fixture("fuzz/batchlist")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let list = try? BatchList(data: data, file: name, baseDirectory: "/lists")
            for entry in list?.entries ?? [] { #expect(!entry.stem.isEmpty && entry.path.hasPrefix("/lists/")) }
        }
        // The first finding: "Seeenence|://ʤ" is a relative path (a scheme has no '|').
        let found = try parse("Seeenence|://\u{2A4}\n")
        #expect(found.entries.map(\.stem) == ["\u{2A4}"] && found.entries[0].path == "/lists/Seeenence|://\u{2A4}")
    }

    @Test func outputsAreNamedAfterTheInput() throws {
        let list = try parse("clips/a.mov\nb.tar.mp4\n")
        #expect(list.outputPath(for: list.entries[0], stream: nil, extension: "mp4", in: "/out") == "/out/a.mp4")
        #expect(list.outputPath(for: list.entries[0], stream: "detections", extension: "jsonl", in: "/out") == "/out/a.detections.jsonl")
        #expect(list.outputPath(for: list.entries[1], stream: nil, extension: "png", in: "/out/") == "/out/b.tar.png")
    }

    @Test func aMissingListOrAFolderIsNamed() throws {
        let missing = "/nonexistent-\(getpid())/videos.txt"
        let e = #expect(throws: BatchListError.self) { try BatchList(contentsOfFile: missing) }
        #expect(e?.description == "\(missing): no such file")
        let folder = #expect(throws: BatchListError.self) { try BatchList(contentsOfFile: NSTemporaryDirectory()) }
        #expect(folder?.reason == "is a folder, not a list" && folder?.line == nil)
    }

    @Test(arguments: ["", "\n\n", "# only a comment\n  \n#another\n"])
    func anEmptyListIsRefused(text: String) {
        let e = error(text)
        #expect(e?.line == nil && e?.description == "videos.txt: lists no file (only blank lines and # comments)")
    }

    @Test func badLinesNameTheirLine() throws {
        var bytes = Data("a.mp4\n# fine\n".utf8)
        bytes.append(contentsOf: [0x62, 0xFF, 0xFE, 0x2E, 0x6D, 0x70, 0x34, 0x0A])  // "b\xFF\xFE.mp4"
        let utf8 = #expect(throws: BatchListError.self) { try BatchList(data: bytes, file: "videos.txt", baseDirectory: "/") }
        #expect(utf8?.description == "videos.txt:3: is not UTF-8 text")
        #expect(error("a.mp4\nb\u{1B}[31m.mp4\n")?.description.hasPrefix("videos.txt:2: holds the control character U+1B") == true)
        #expect(error("a.mp4\nb\0.mp4\n")?.line == 2)
        #expect(error("a.mp4\n\n/\n")?.description == "videos.txt:3: '/' names no file")
        #expect(error("..\n")?.line == 1)
    }

    @Test func twoFilesWithOneOutputNameAreRefused() {
        let e = error("day1/cam.mp4\nother.mp4\nday2/cam.mkv\n")
        #expect(e?.line == 3)
        #expect(e?.reason.contains("'cam', as line 1") == true, "\(String(describing: e))")
    }

    /// Every byte string either parses into entries that satisfy the contract or is refused
    /// with a line inside the text: a deterministic sample of what fuzz-batchlist explores.
    @Test func arbitraryBytesParseOrAreRefused() {
        var generator = SplitMix64(seed: 29)
        let alphabet: [UInt8] = Array("ab./#: \t\r\n".utf8) + [0, 0x1B, 0xC3, 0xA9, 0xFF]
        for _ in 0..<2000 {
            let data = Data((0..<Int(generator.next() % 40)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            do {
                let list = try BatchList(data: data, file: "f", baseDirectory: "/base")
                #expect(!list.entries.isEmpty)
                #expect(Set(list.entries.map(\.stem)).count == list.entries.count)
                for e in list.entries {
                    #expect((1...lines).contains(e.line) && !e.stem.isEmpty && !e.text.hasPrefix("#"))
                    #expect(e.path.hasPrefix("/") || e.path.contains("://"))
                }
            } catch let e as BatchListError {
                if let line = e.line { #expect((1...lines).contains(line)) }
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
