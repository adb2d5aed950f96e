import Foundation
import FrameFlow
import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

@Suite struct FleetConfigTests {
    static let good = """
        # two cameras
        defaults {
          graph: "graphs/edges.pbtxt"
          side_packet { name: "threshold" value: 0.5 }
          side_packet { name: "label" value: "person" }
          stall_seconds: 4
          reconnect { initial_seconds: 0.5 max_seconds: 20 }
          realtime: true
        }
        mqtt { host: "broker.local" port: 1884 qos: 2 client_id: "fleet-0" }
        camera {
          name: "door"
          source: "rtsp://10.0.0.7/stream1"
          side_packet { name: "threshold" value: "0.7" }
          output { stream: "detections" to: "mqtt" }
          output { stream: "output_video" to: "out/door.jsonl" }
        }
        camera {
          name: "yard"
          source: "clips/yard.mp4"
          graph: "/abs/other.pbtxt"
          stall_seconds: 2
          reconnect { max_seconds: 3 healthy_seconds: 1 }
          realtime: false
        }
        """

    @Test func readsCamerasDefaultsAndBroker() throws {
        let config = try FleetConfig(text: Self.good, file: "/etc/frameflow/site.fleet")
        #expect(config.cameras.map(\.name) == ["door", "yard"])
        let door = config.cameras[0]
        #expect(door.source == "rtsp://10.0.0.7/stream1")
        #expect(door.graph == "/etc/frameflow/graphs/edges.pbtxt")
        #expect(door.sidePackets == ["threshold": "0.7", "label": "person"])
        #expect(door.stallSeconds == 4)
        #expect(door.reconnect == ReconnectPolicy(initialSeconds: 0.5, maxSeconds: 20, healthySeconds: 10))
        #expect(door.realtime)
        #expect(
            door.outputs == [
                .init(stream: "detections", destination: .mqtt), .init(stream: "output_video", destination: .file("/etc/frameflow/out/door.jsonl")),
            ])
        #expect(door.location?.line == 11)
        let yard = config.cameras[1]
        #expect(yard.source == "/etc/frameflow/clips/yard.mp4")
        #expect(yard.graph == "/abs/other.pbtxt")
        #expect(yard.sidePackets == ["threshold": "0.5", "label": "person"])
        #expect(yard.stallSeconds == 2)
        #expect(yard.reconnect == ReconnectPolicy(initialSeconds: 0.5, maxSeconds: 3, healthySeconds: 1))
        #expect(!yard.realtime)
        #expect(config.mqtt == MQTTSettings(host: "broker.local", port: 1884, qos: 2, clientID: "fleet-0"))
    }

    /// A resource root and a pixel limit in the defaults, one camera overriding both: each
    /// camera's graph gets its own environment.
    @Test func camerasHaveTheirOwnResourceRootAndPixelLimit() throws {
        let text = """
            defaults { graph: "g.pbtxt" resource_root: "models" max_image_pixels: 1000000 }
            camera { name: "a" source: "testsrc" }
            camera { name: "b" source: "testsrc" resource_root: "/opt/other" max_image_pixels: 2000 }
            """
        let config = try FleetConfig(text: text, file: "/site/x.fleet")
        let (a, b) = (config.cameras[0], config.cameras[1])
        #expect(a.resourceRoot == "/site/models" && a.maxImagePixels == 1_000_000)
        #expect(b.resourceRoot == "/opt/other" && b.maxImagePixels == 2000)
        var base = GraphEnvironment(resourceRoots: ["/fleet-wide"])
        base.limits.maxTensorElements = 77
        let ea = a.environment(over: base), eb = b.environment(over: base)
        #expect(ea.resourceRoots == ["/site/models", "/fleet-wide"] && ea.limits.maxImagePixels == 1_000_000 && ea.limits.maxTensorElements == 77)
        #expect(eb.resourceRoots == ["/opt/other", "/fleet-wide"] && eb.limits.maxImagePixels == 2000)
        let plain = try FleetConfig(text: "camera { name: \"c\" source: \"testsrc\" graph: \"g\" }", file: "y.fleet").cameras[0]
        #expect(plain.environment(over: base).resourceRoots == ["/fleet-wide"], "no root of its own: the fleet's")
    }

    /// The fuzzer's seed (scripts/fuzz.sh fleet) is a valid file with every field.
    @Test func theFuzzSeedIsAValidFleet() throws {
        let config = try FleetConfig(contentsOfFile: RepositoryFiles.fixture("fleet/site.fleet"))
        #expect(config.cameras.map(\.name) == ["door", "yard", "lab"])
        #expect(config.cameras[1].outputs.map(\.destination) == [.file(RepositoryFiles.fixture("fleet/yard.mp4")), .null])
        #expect(config.cameras[2].source == "testsrc:320x240@15")
    }

    @Test func anEmptyFileIsAnEmptyFleet() throws {
        let config = try FleetConfig(text: "# nothing yet\n", file: "x.fleet")
        #expect(config.cameras.isEmpty)
        #expect(config.mqtt == nil)
    }

    /// (text, line, words the message must contain): each error names the file and line.
    static let broken: [(String, Int, String)] = [
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\" }\ncamera { name: \"a\" source: \"testsrc\" graph: \"g\" }", 2, "used twice"),
        ("camera {\n  source: \"testsrc\" graph: \"g\" }", 1, "'name' is missing"),
        ("camera { name: \"\" source: \"testsrc\" graph: \"g\" }", 1, "'name' is empty"),
        ("camera {\n name: \"a\"\n graph: \"g\" }", 1, "'source' is missing"),
        ("camera { name: \"a\"\n source: \"testsrc\" }", 1, "'graph' is missing"),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n  colour: \"red\" }", 2, "unknown field 'colour'"),
        ("cameras { }", 1, "unknown field 'cameras'"),
        ("defaults {\n stall_seconds: -1 }", 2, "above 0"),
        ("defaults {\n stall_seconds: \"5\" }", 2, "above 0"),
        ("defaults { graph: \"a\"\n graph: \"b\" }", 2, "given twice"),
        ("defaults { reconnect {\n initial_seconds: 10 max_seconds: 1 } }", 1, "below initial_seconds"),
        ("defaults { realtime: yes }", 1, "true or false"),
        ("defaults {\n max_image_pixels: 0 }", 2, "1...2147483647"),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n max_image_pixels: 1e308 }", 2, "integer"),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n resource_root: \"\" }", 2, "empty"),
        ("mqtt { port: 70000 }", 1, "1...65535"),
        ("mqtt { qos: 3 }", 1, "0...2"),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n output { stream: \"d\" to: \"mqtt\" } }", 1, "no mqtt"),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n output { to: \"null\" } }", 2, "'stream' is missing"),
        (
            "camera { name: \"a\" source: \"testsrc\" graph: \"g\" output { stream: \"s\" to: \"o.jsonl\" } }\n"
                + "camera { name: \"b\" source: \"testsrc\" graph: \"g\" output { stream: \"s\" to: \"./o.jsonl\" } }", 2,
            "also written by camera 'a'"
        ),
        ("camera { name: \"a\" source: \"testsrc\" graph: \"g\"\n side_packet { name: \"x\" } }", 2, "'value' is missing"),
        ("camera { name: \"a\" source: testsrc graph: \"g\" }", 1, "quoted string"),
        ("camera { name: \"a\"\n source: \"testsrc", 2, "unterminated string"),
        ("camera: \"a\"", 1, "must be a message"),
        ("camera { name: \"a\u{1}\" source: \"testsrc\" graph: \"g\" }", 1, "control characters"),
    ]

    @Test(arguments: broken.indices)
    func brokenFilesNameTheFileAndLine(index: Int) {
        let (text, line, words) = Self.broken[index]
        do {
            _ = try FleetConfig(text: text, file: "site.fleet")
            Issue.record("no error for: \(text)")
        } catch let e as FleetConfigError {
            #expect(e.location?.file == "site.fleet")
            #expect(e.location?.line == line, "\(e)")
            #expect(e.description.hasPrefix("site.fleet:\(line):"), "\(e)")
            #expect(e.message.contains(words), "\(e)")
        } catch {
            Issue.record("not a FleetConfigError: \(error)")
        }
    }

    /// Text that made Foundation's path functions trap in another parser (fuzz-batchlist):
    /// as a graph, a source and an output it is just a strange path.
    @Test func strangePathsAreJustPaths() throws {
        let odd = "Seeenence|://\u{2A4}"
        let text = """
            camera { name: "\(odd)" source: "a//\u{2A4}" graph: "\(odd)" output { stream: "s" to: "x//\u{2A4}.jsonl" } }
            """
        let camera = try #require(try FleetConfig(text: text, file: "/base/f.fleet").cameras.first)
        #expect(camera.name == odd)
        #expect(camera.source == "/base/a/\u{2A4}")
        #expect(camera.graph.hasPrefix("/base/"))
        guard case .file(let path) = camera.outputs.first?.destination else {
            Issue.record("not a file output")
            return
        }
        #expect(path.hasPrefix("/base/x/"))
        #expect(CameraSupervisor.unusedPath(path) == path)
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: FleetConfigError.self) { try FleetConfig(contentsOfFile: "/nonexistent/site.fleet") }
    }

    @Test func truncationsOfAGoodFileNeverCrash() {
        // Every prefix of a valid file either parses or throws a located error.
        let bytes = Array(Self.good.utf8)
        for n in stride(from: 0, through: bytes.count, by: 7) {
            let text = String(decoding: bytes[..<n], as: UTF8.self)
            do { _ = try FleetConfig(text: text, file: "t.fleet") } catch let e as FleetConfigError { #expect(e.location != nil) } catch {
                Issue.record("\(error)")
            }
        }
    }
}
