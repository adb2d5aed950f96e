import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import Testing

/// MediaPipe's `.binarypb` graphs `scripts/setup.sh test` extracts from its wheel.
enum WheelGraphs {
    static let root = RepositoryFiles.built("mediapipe/mediapipe/modules")
    static var all: [String] {
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".binarypb") }.sorted().map { root + "/" + $0 }
    }
    static var available: Bool { !all.isEmpty }
    static func path(_ name: String) -> String? { all.first { $0.hasSuffix("/\(name).binarypb") } }
    static let skip = "MediaPipe's .binarypb graphs are missing: run scripts/setup.sh test"
}

/// A config as comparable lines: streams, side packets, nodes with their options trees
/// (fields sorted by name, numbers by value), handlers; locations left out.
func describe(_ c: GraphConfig) -> [String] {
    func refs(_ r: [StreamRef]) -> String { r.map { "\($0)" }.joined(separator: " ") }
    func options(_ o: NodeOptions?) -> String {
        switch o {
        case nil: "-"
        case .text(let type, let m)?: "\(type) { \(canonical(m)) }"
        case .value(let v)?: "\(v)"
        }
    }
    var out = [
        "type \(c.type ?? "-")", "in \(refs(c.inputStreams))", "out \(refs(c.outputStreams))",
        "side in \(refs(c.inputSidePackets))", "side out \(refs(c.outputSidePackets))",
        "graph_options \(options(c.graphOptions))", "handler \(String(describing: c.inputPolicy))",
        "queue \(String(describing: c.maxQueueSize)) threads \(String(describing: c.numThreads))",
    ]
    for n in c.nodes {
        out.append(
            "node \(n.calculator) name \(n.name ?? "-") in \(refs(n.inputStreams)) out \(refs(n.outputStreams)) "
                + "side in \(refs(n.inputSidePackets)) side out \(refs(n.outputSidePackets)) "
                + "options \(options(n.options)) option_value \(n.optionValues.map { "\($0.nodeField):\($0.graphField)" }) "
                + "handler \(String(describing: n.inputPolicy)) info \(n.inputStreamInfo.map { "\($0.tagIndex)/\($0.backEdge)" }) "
                + "queue \(String(describing: n.maxQueueSize))")
    }
    return out
}

/// A text-format tree written the same whatever its field order and number spelling.
func canonical(_ m: TextMessage) -> String {
    let sorted = m.fields.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
    return sorted.map { f in
        let name = f.isExtension ? "[\(f.name)]" : f.name
        switch f.value.kind {
        case .string(let s): return "\(name): \"\(s)\""
        case .identifier(let s): return "\(name): \(s)"
        case .number(let s): return "\(name): \(Double(s).map { "\($0)" } ?? s)"
        case .message(let inner): return "\(name) { \(canonical(inner)) }"
        }
    }.joined(separator: " ")
}

@Suite struct BinaryGraphTests {
    @Test(.enabled(if: WheelGraphs.available, Comment(rawValue: WheelGraphs.skip)))
    func everyWheelGraphParses() throws {
        #expect(WheelGraphs.all.count >= 8)
        for path in WheelGraphs.all {
            let config = try GraphConfig(contentsOfFile: path)
            #expect(config.file == path)
            #expect(config.type?.isEmpty == false, "\(path)")
            #expect(!config.nodes.isEmpty, "\(path)")
            #expect(config.nodes.allSatisfy { !$0.calculator.isEmpty }, "\(path)")
        }
    }

    @Test(
        .enabled(if: WheelGraphs.available, Comment(rawValue: WheelGraphs.skip)),
        arguments: ["face_detection_short_range_cpu", "hand_landmark_tracking_cpu", "selfie_segmentation_cpu", "pose_landmark_cpu"])
    func wheelGraphEqualsItsTextForm(name: String) throws {
        let path = try #require(WheelGraphs.path(name))
        let binary = try GraphConfig(contentsOfFile: path)
        let text = try GraphConfig(parsing: try #require(MediaPipeGraphTexts.byName[name]), file: "\(name).pbtxt")
        let (b, t) = (describe(binary), describe(text))
        #expect(b.count == t.count)
        for (x, y) in zip(b, t) { #expect(x == y) }
        // Options were decoded, not dropped.
        #expect(binary.nodes.contains { $0.options != nil })
    }

    /// The nodes' options, `graph_options` and handler options of a graph FrameFlow runs.
    static let frameFlowText = """
        input_stream: "in"
        output_stream: "out"
        input_stream_handler {
          input_stream_handler: "FixedSizeInputStreamHandler"
          options { [mediapipe.FixedSizeInputStreamHandlerOptions.ext] { trigger_queue_size: 5 target_queue_size: 3 } }
        }
        node {
          calculator: "FlowLimiterCalculator"
          name: "limiter"
          input_stream: "in"
          input_stream: "FINISHED:out"
          input_stream_info { tag_index: "FINISHED" back_edge: true }
          output_stream: "limited"
          options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 3 max_in_queue: 2 in_flight_timeout: -5 } }
        }
        node {
          calculator: "ImageTransformationCalculator"
          name: "transform"
          input_stream: "IMAGE:limited"
          output_stream: "IMAGE:out"
          input_stream_handler {
            input_stream_handler: "SyncSetInputStreamHandler"
            options { [mediapipe.SyncSetInputStreamHandlerOptions.ext] { sync_set { tag_index: "IMAGE" } } }
          }
          node_options {
            [type.googleapis.com/mediapipe.ImageTransformationCalculatorOptions] {
              output_width: 64 output_height: 48 scale_mode: FIT flip_horizontally: true
            }
          }
        }
        node {
          calculator: "ImageCroppingCalculator"
          name: "crop"
          input_stream: "IMAGE:out"
          output_stream: "IMAGE:cropped"
          options { [mediapipe.ImageCroppingCalculatorOptions.ext] { width: 10 height: 8 norm_width: 0.3 norm_height: 0.7 } }
        }
        """

    /// `frameFlowText` serialized as MediaPipe would.
    static var frameFlowBinary: [UInt8] {
        var g = ProtobufWire()
        g.string(10, "in")
        g.string(15, "out")
        g.message(12) { h in
            h.string(1, "FixedSizeInputStreamHandler")
            h.message(3) { o in
                o.message(125744319) { f in
                    f.int(1, 5); f.int(2, 3)
                }
            }
        }
        g.message(1) { n in
            n.string(1, "limiter")
            n.string(2, "FlowLimiterCalculator")
            n.string(3, "in")
            n.string(3, "FINISHED:out")
            n.string(4, "limited")
            n.message(7) { o in
                o.message(326963320) { f in
                    f.int(1, 3); f.int(2, 2); f.int(3, -5)
                }
            }
            n.message(13) { i in
                i.string(1, "FINISHED"); i.int(2, 1)
            }
        }
        g.message(1) { n in
            n.string(1, "transform")
            n.string(2, "ImageTransformationCalculator")
            n.string(3, "IMAGE:limited")
            n.string(4, "IMAGE:out")
            n.any(8, "ImageTransformationCalculatorOptions") { o in
                o.int(1, 64); o.int(2, 48); o.int(5, 1); o.int(6, 2)
            }
            n.message(11) { h in
                h.string(1, "SyncSetInputStreamHandler")
                h.message(3) { o in o.message(155816273) { s in s.message(1) { t in t.string(1, "IMAGE") } } }
            }
        }
        g.message(1) { n in
            n.string(1, "crop")
            n.string(2, "ImageCroppingCalculator")
            n.string(3, "IMAGE:out")
            n.string(4, "IMAGE:cropped")
            n.message(7) { o in
                o.message(262466399) { f in
                    f.int(1, 10); f.int(2, 8); f.float(4, 0.3); f.float(5, 0.7)
                }
            }
        }
        return g.bytes
    }

    @Test func frameFlowOptionsDecodeAsTheirTextForm() throws {
        let binary = try GraphConfig(binary: Self.frameFlowBinary, file: "small.binarypb", registry: .standard)
        let text = try GraphConfig(parsing: Self.frameFlowText, file: "small.pbtxt")
        #expect(describe(binary) == describe(text))
        let b = try Graph(binary, registry: .standard)
        let t = try Graph(text, registry: .standard)
        let limiter = try #require(b.options(ofNode: "limiter") as? FlowLimiterCalculator.Options)
        #expect(limiter == t.options(ofNode: "limiter") as? FlowLimiterCalculator.Options)
        #expect(limiter.maxInFlight == 3 && limiter.maxInQueue == 2 && limiter.inFlightTimeout == -5)
        let transform = try #require(b.options(ofNode: "transform") as? ImageTransformationCalculator.Options)
        #expect(transform == t.options(ofNode: "transform") as? ImageTransformationCalculator.Options)
        #expect(transform.outputWidth == 64 && transform.scaleMode == .fit && transform.flipHorizontally)
        let crop = try #require(b.options(ofNode: "crop") as? ImageCroppingCalculator.Options)
        #expect(crop == t.options(ofNode: "crop") as? ImageCroppingCalculator.Options)
        #expect(crop.width == 10 && crop.normWidth == 0.3 && crop.normHeight == 0.7)
        #expect(binary.inputPolicy == .fixedSize(triggerQueueSize: 5, targetQueueSize: 3))
        #expect(binary.nodes[1].inputPolicy == .syncSets([["IMAGE"]]))
    }

    @Test func fuzzSeedIsThisGraph() throws {
        // Tests/Fixtures/fuzz/binarygraph/frameflow-options.binarypb seeds the fuzzer with
        // FrameFlow's options and both handlers' options: the same bytes as here.
        let seed = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("fuzz/binarygraph/frameflow-options.binarypb")))
        #expect([UInt8](seed) == Self.frameFlowBinary)
    }

    @Test func registeredCalculatorsOptionsDecodeFromAFile() throws {
        // Registering a calculator registers its options' schema, so a binary file with its
        // options loads through Graph(contentsOfFile:) as frameflow's commands load it.
        let registry = CalculatorRegistry([FlowLimiterCalculator.self, ImageTransformationCalculator.self, ImageCroppingCalculator.self])
        let g = try Graph(contentsOfFile: RepositoryFiles.fixture("fuzz/binarygraph/frameflow-options.binarypb"), registry: registry)
        #expect((g.options(ofNode: "limiter") as? FlowLimiterCalculator.Options)?.maxInFlight == 3)
        // An options extension nobody registered is an error naming it and the file.
        var w = ProtobufWire()
        w.message(1) { n in
            n.string(2, "FlowLimiterCalculator")
            n.message(7) { o in o.message(99_998) { f in f.int(1, 1) } }
        }
        let e = try #require(throws: GraphError.self) { try GraphConfig(binary: w.bytes, file: "small.binarypb") }
        #expect(e.kind == .unknownOption && e.description.hasPrefix("small.binarypb:0:") && e.message.contains("99998"), "\(e)")
    }

    @Test func contentsOfFileReadsBinaryByNameOrContent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("binarygraph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var w = ProtobufWire()
        w.string(10, "in")
        w.message(1) { n in
            n.string(2, "PassThroughCalculator"); n.string(3, "in"); n.string(4, "out")
        }
        w.string(15, "out")
        for name in ["g.binarypb", "g.pb", "g.pbtxt"] {
            let path = dir.appendingPathComponent(name).path
            try Data(w.bytes).write(to: URL(fileURLWithPath: path))
            let c = try GraphConfig(contentsOfFile: path)
            #expect(c.nodes.map(\.calculator) == ["PassThroughCalculator"], "\(name)")
            #expect(c.file == path)
        }
        // A text file with a Latin-1 byte: neither text nor binary, and said so.
        let latin = dir.appendingPathComponent("latin.pbtxt").path
        try Data(Array("node { calculator: \"Caf".utf8) + [0xE9] + Array("\" }".utf8)).write(to: URL(fileURLWithPath: latin))
        let e = try #require(throws: GraphError.self) { try GraphConfig(contentsOfFile: latin) }
        #expect(e.location?.file == latin)
        #expect(e.message.contains("neither UTF-8 text nor a binary CalculatorGraphConfig"))
        // A broken .binarypb names the file and the byte.
        let broken = dir.appendingPathComponent("broken.binarypb").path
        try Data(w.bytes.dropLast(3)).write(to: URL(fileURLWithPath: broken))
        let b = try #require(throws: GraphError.self) { try GraphConfig(contentsOfFile: broken) }
        #expect(b.description.hasPrefix(broken + ":0:"))
        #expect(b.message.contains("at byte"))
    }

    @Test(.enabled(if: WheelGraphs.available, Comment(rawValue: WheelGraphs.skip)))
    func everyTruncationIsAnErrorOrAFieldBoundary() throws {
        for name in ["face_detection_short_range_cpu", "selfie_segmentation_cpu", "hand_landmark_tracking_cpu"] {
            let path = try #require(WheelGraphs.path(name))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            // Protobuf has no end marker: a cut between top-level fields is a smaller graph.
            let boundaries = Set(topLevelFieldEnds(bytes))
            for n in 0..<bytes.count {
                do {
                    _ = try BinaryGraph.decode(Array(bytes[..<n]), file: path)
                    #expect(boundaries.contains(n), "\(name) cut at \(n) decoded")
                } catch let e as GraphError {
                    #expect(!boundaries.contains(n), "\(name) cut at \(n): \(e)")
                    #expect(e.location?.file == path)
                    #expect(e.message.contains("at byte"), "\(e)")
                }
            }
        }
    }

    /// Where each top-level field ends (and 0).
    func topLevelFieldEnds(_ bytes: [UInt8]) -> [Int] {
        var ends = [0]
        var i = 0
        func varint() -> UInt64 {
            var v: UInt64 = 0, s: UInt64 = 0
            while true {
                let b = bytes[i]
                i += 1
                v |= UInt64(b & 0x7F) << s
                s += 7
                if b < 0x80 { return v }
            }
        }
        while i < bytes.count {
            switch varint() & 7 {
            case 0: _ = varint()
            case 1: i += 8
            case 2: i += Int(varint())
            default: i += 4
            }
            ends.append(i)
        }
        return ends
    }

    @Test func brokenInputIsAnErrorNamingTheFile() throws {
        func failure(_ bytes: [UInt8]) throws -> GraphError {
            try #require(throws: GraphError.self) { try BinaryGraph.decode(bytes, file: "bad.binarypb") }
        }
        // `node` (1) as a varint.
        var wrongWire = ProtobufWire()
        wrongWire.int(1, 7)
        var e = try failure(wrongWire.bytes)
        #expect(
            e.description == "bad.binarypb:0:0: field 'node' (1) of mediapipe.CalculatorGraphConfig has wire type 0, expected 2 at byte 0")
        // A string whose length runs past the end.
        e = try failure([0x52, 0x7F, 0x61, 0x62])
        #expect(e.location?.file == "bad.binarypb")
        #expect(e.message == "length 127 runs past the end (2 bytes left) at byte 2 in mediapipe.CalculatorGraphConfig")
        // An options type nobody registered, as Any and as an extension.
        var any = ProtobufWire()
        any.message(1) { n in
            n.string(2, "X"); n.any(8, "NoSuchOptions") { o in o.int(1, 1) }
        }
        e = try failure(any.bytes)
        #expect(e.kind == .unknownOption)
        #expect(e.message.contains("unknown options type 'mediapipe.NoSuchOptions'"))
        #expect(e.location?.file == "bad.binarypb")
        var ext = ProtobufWire()
        ext.message(1) { n in
            n.string(2, "X"); n.message(7) { o in o.message(99_999) { _ in } }
        }
        e = try failure(ext.bytes)
        #expect(e.kind == .unknownOption)
        #expect(e.message.contains("unknown options extension 99999"))
        // A field number the message does not have, deep inside options.
        var unknown = ProtobufWire()
        unknown.message(1) { n in n.message(7) { o in o.message(261754847) { g in g.int(9, 1) } } }
        e = try failure(unknown.bytes)
        #expect(e.message.contains("unknown field 9 (wire type 0) in mediapipe.GateCalculatorOptions"))
        // Any without a type, a bad varint, a group wire type, invalid UTF-8.
        var noType = ProtobufWire()
        noType.message(1) { n in n.message(8) { a in a.data(2, []) } }
        #expect(try failure(noType.bytes).message.contains("without a type_url"))
        #expect(try failure([0x08 | 0x50, 0xFF, 0xFF]).message.contains("truncated varint"))
        #expect(try failure([0x0B]).message.contains("wire type 3"))
        #expect(try failure([0x52, 0x02, 0xC3, 0x28]).message.contains("not valid UTF-8"))
    }

    @Test func nestingIsBounded() throws {
        // SwitchContainer nodes inside SwitchContainer nodes, deeper than the limit.
        func node(_ depth: Int) -> [UInt8] {
            var n = ProtobufWire()
            n.string(2, "SwitchContainer")
            if depth > 0 { n.message(7) { o in o.message(345967970) { s in s.data(2, node(depth - 1)) } } }
            return n.bytes
        }
        var g = ProtobufWire()
        g.data(1, node(60))
        let e = try #require(throws: GraphError.self) { try BinaryGraph.decode(g.bytes, file: "deep.binarypb") }
        #expect(e.message.contains("ResourceLimits.maxNestingDepth"))
        var ok = ProtobufWire()
        ok.data(1, node(10))
        _ = try BinaryGraph.decode(ok.bytes, file: "deep.binarypb")
    }

    @Test func floatsReadBackToTheSameFloat() throws {
        // AssociationCalculatorOptions' float, through options decoding's path (text → Double
        // → Float): edge cases and a spread of bit patterns.
        var values: [Float] = [
            0, -0.0, 0.1, 0.3, 1.0 / 3, .pi, 1e-45, .leastNormalMagnitude, .greatestFiniteMagnitude, 16_777_217, 1e20, -2.5e-8,
        ]
        var x: UInt32 = 0x1234_5678
        for _ in 0..<5000 {
            x = x &* 1_664_525 &+ 1_013_904_223
            let f = Float(bitPattern: x)
            if f.isFinite { values.append(f) }
        }
        for f in values {
            var g = ProtobufWire()
            g.message(1) { n in
                n.string(2, "X"); n.message(7) { o in o.message(275124847) { a in a.float(1, f) } }
            }
            let tree = try BinaryGraph.decode(g.bytes)
            guard case .message(let node) = tree.fields[0].value.kind, case .message(let opts) = node.fields[1].value.kind,
                case .message(let assoc) = opts.fields[0].value.kind, case .number(let s) = assoc.fields[0].value.kind
            else {
                Issue.record("unexpected tree for \(f)")
                continue
            }
            #expect(Float(try #require(Double(s))) == f, "\(f.bitPattern) → \(s)")
        }
        // Infinities and NaN come out as text format writes them.
        for (f, s) in [(Float.infinity, "inf"), (-Float.infinity, "-inf"), (Float.nan, "nan"), (-Float.nan, "nan")] {
            var g = ProtobufWire()
            g.message(1) { n in n.message(7) { o in o.message(275124847) { a in a.float(1, f) } } }
            #expect(canonical(try BinaryGraph.decode(g.bytes)).contains("min_similarity_threshold: \(s)"))
        }
    }

    @Test func packedAndUnpackedRepeatedFieldsAreTheSame() throws {
        func graph(packed: Bool) throws -> String {
            var g = ProtobufWire()
            g.any(1002, "FaceDetectionOptions") { o in
                if packed {
                    var run = ProtobufWire()
                    for s in [8, 16, 16, 16] { run.varint(UInt64(s)) }
                    o.data(24, run.bytes)
                } else {
                    for s in [8, 16, 16, 16] { o.int(24, Int64(s)) }
                }
                o.int(11, 2)
                o.int(21, -1)
            }
            return canonical(try BinaryGraph.decode(g.bytes))
        }
        let packed = try graph(packed: true)
        #expect(packed == (try graph(packed: false)))
        #expect(packed.contains("strides: 8.0 strides: 16.0 strides: 16.0 strides: 16.0"))
        #expect(packed.contains("gpu_origin: TOP_LEFT"))
        #expect(packed.contains("tensor_width: -1.0"))
    }

    @Test func singularFieldsKeepTheLast() throws {
        var g = ProtobufWire()
        g.int(11, 4)
        g.int(11, 9)
        let c = try GraphConfig(binary: g.bytes)
        #expect(c.maxQueueSize == 9)
    }

    /// Inputs the fuzzer found (Tests/Fixtures/fuzz/binarygraph): each decodes or fails with a
    /// GraphError, and builds no graph that crashes.
    @Test func fuzzFindingsFailCleanly() throws {
        let dir = RepositoryFiles.fixture("fuzz/binarygraph")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        for name in files.sorted() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            do {
                let config = try GraphConfig(binary: bytes, file: name, registry: .standard)
                _ = try? Graph(config, registry: .standard)
                _ = config.dot()
            } catch let e as GraphError {
                #expect(e.location?.file == name, "\(name): \(e)")
            }
        }
    }
}
