import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Each graph reads its own environment: resource roots and limits are per graph, so two
/// graphs running at once in one process (two cameras of a fleet) each find their own files
/// and keep their own limits.
@Suite struct GraphEnvironmentTests {
    /// A folder holding `model.bin` with `bytes`.
    static func root(_ bytes: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/model.bin"))
        return dir
    }

    /// Reads `model.bin` (relative) into a side packet; draws a 64×64 canvas for each packet.
    static let graphText = """
        output_stream: "canvas"
        node {
          calculator: "LocalFileContentsCalculator"
          input_side_packet: "FILE_PATH:path"
          output_side_packet: "CONTENTS:contents"
        }
        node {
          calculator: "AnnotationOverlayCalculator"
          input_stream: "DETECTIONS:tick"
          output_stream: "IMAGE:canvas"
          options { [mediapipe.AnnotationOverlayCalculatorOptions.ext] { canvas_width_px: 64 canvas_height_px: 64 } }
        }
        """

    /// What one run sees.
    enum Outcome: Equatable {
        case bytes([UInt8])
        case error(String)
    }

    /// What one run sees: the file's bytes, or the error.
    static func run(_ environment: GraphEnvironment) -> Outcome {
        do {
            var config = try GraphConfig(parsing: graphText, file: "env.pbtxt")
            config.nodes.removeLast()  // only the file reader
            config.outputStreams = []
            let graph = try Graph(config, registry: .standard, environment: environment)
            try graph.start(sidePackets: ["path": "model.bin"])
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return .bytes(try graph.outputSidePacket("contents")?.get([UInt8].self) ?? [])
        } catch {
            return .error("\(error)")
        }
    }

    @Test func twoGraphsAtOnceFindTheirOwnFiles() throws {
        let a = try Self.root([1, 2, 3]), b = try Self.root([9, 8])
        defer { for d in [a, b] { try? FileManager.default.removeItem(atPath: d) } }
        let envA = GraphEnvironment(resourceRoots: [a]), envB = GraphEnvironment(resourceRoots: [b])
        let results = Locked<[Int: [Outcome]]>([:])
        // Two threads, each running its graph 20 times while the other runs its own.
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            for _ in 0..<20 {
                let r = Self.run(k == 0 ? envA : envB)
                results.withLock { $0[k, default: []].append(r) }
            }
        }
        let got = results.withLock { $0 }
        #expect(got[0]?.count == 20 && got[1]?.count == 20)
        #expect(got[0]?.allSatisfy { $0 == .bytes([1, 2, 3]) } == true, "\(String(describing: got[0]?.first))")
        #expect(got[1]?.allSatisfy { $0 == .bytes([9, 8]) } == true, "\(String(describing: got[1]?.first))")
        // Neither root leaked into the default environment.
        if case .error(let e) = Self.run(GraphEnvironment()) {
            #expect(e.contains("model.bin"), "\(e)")
        } else {
            Issue.record("a graph with no resource root found model.bin")
        }
    }

    /// Limits are per graph: one graph refuses the 64×64 canvas (4 096 pixels) under its own
    /// 1 000-pixel limit while another, at the same time, draws it.
    @Test func twoGraphsAtOnceKeepTheirOwnLimits() throws {
        var limits = ResourceLimits()
        limits.maxImagePixels = 1000
        let small = GraphEnvironment(limits: limits)
        let outcomes = Locked<[Int: [String]]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            for _ in 0..<10 {
                var outcome = "drawn"
                do {
                    var config = try GraphConfig(parsing: Self.graphText, file: "env.pbtxt")
                    config.nodes.removeFirst()
                    config.inputStreams = [StreamRef(name: "tick")]
                    let graph = try Graph(config, registry: .standard, environment: k == 0 ? small : GraphEnvironment())
                    let canvas = try PacketCollector(graph, "canvas")
                    try graph.start()
                    try graph.send([Detection](), to: "tick", at: Timestamp(0))
                    try graph.closeAllInputStreams()
                    try graph.waitUntilDone()
                    if try canvas.packets.first?.get(ImageFrame.self).width != 64 { outcome = "no canvas" }
                } catch {
                    outcome = "\(error)"
                }
                outcomes.withLock { $0[k, default: []].append(outcome) }
            }
        }
        let got = outcomes.withLock { $0 }
        #expect(got[0]?.allSatisfy { $0.contains("at most 1000 pixels") } == true, "\(String(describing: got[0]?.first))")
        #expect(got[1]?.allSatisfy { $0 == "drawn" } == true, "\(String(describing: got[1]?.first))")
    }

    @Test func relativePathsResolveUnderTheFirstRootThatHasThem() throws {
        let a = try Self.root([1]), b = try Self.root([2])
        defer { for d in [a, b] { try? FileManager.default.removeItem(atPath: d) } }
        let env = GraphEnvironment(resourceRoots: ["/nonexistent-root", a, b])
        #expect(env.resolve("model.bin") == a + "/model.bin")
        #expect(env.resolve("missing.bin") == "missing.bin", "not found: as given")
        #expect(env.resolve("/abs/model.bin") == "/abs/model.bin", "absolute paths are not looked up")
    }

    final class Counter: Sendable {}

    @Test func servicesAreFoundByType() {
        let c = Counter()
        let env = GraphEnvironment().with(c)
        #expect(env.service(Counter.self) === c)
        #expect(GraphEnvironment().service(Counter.self) == nil)
    }
}
