import Foundation
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// TFLite metadata of every model in the real bundles, and of a model that sets every field of
/// the schema, against what the flatbuffers package reads through MediaPipe's generated
/// ModelMetadataT (checked by the script against MediaPipe's MetadataDisplayer, flatc's JSON):
/// Tests/Fixtures/tasks/metadata.json by scripts/fixtures/make_bundle_fixtures.py. Labels
/// against zipfile's bytes split as MediaPipe's BuildLabelMapFromFiles does. Broken metadata is
/// an error naming the model and the field.
@Suite struct TFLiteMetadataTests {
    /// The model at `path` (`bundle.task/inner.task/model.tflite`, or a committed fixture).
    static func model(_ path: String) throws -> [UInt8]? {
        if path == "all_fields.tflite" { return try BundleFixtures.committed(path) }
        var parts = path.split(separator: "/").map(String.init)
        let last = parts.removeLast()
        if parts.isEmpty { return BundleFixtures.real(last) }
        guard let bundle = try ModelBundleTests.open(parts.joined(separator: "/")) else { return nil }
        return try bundle.data(last)
    }

    @Test func everyModelsMetadataMatchesMediaPipesReader() throws {
        let models = try #require(try BundleFixtures.json("metadata.json")["models"] as? [[String: Any]])
        #expect(models.count == 14)
        var withMetadata = 0
        for record in models {
            let path = try #require(record["model"] as? String)
            guard let bytes = try Self.model(path) else { return }
            let meta = try TFLiteMetadata(tflite: bytes, file: path)
            guard let expected = record["metadata"] as? [String: Any] else {
                #expect(meta == nil, "\(path) has no metadata for MediaPipe")
                continue
            }
            let m = try #require(meta, "\(path): no metadata")
            withMetadata += 1
            if let difference = Self.difference(Self.canonical(m), expected, path: path) { Issue.record("\(difference)") }
            #expect(m.packedFileNames == record["packedFiles"] as? [String], "\(path)")
            #expect(m.archive?.prefixLength ?? 0 == 0, "\(path): zipfile's append mode counts offsets from the file's start")
            for (name, file) in try #require(record["files"] as? [String: [String: Any]]) {
                let bytes = try m.associatedFile(name)
                #expect(bytes.count == file["size"] as? Int && BundleFixtures.sha256(bytes) == file["sha256"] as? String, "\(path): \(name)")
                if let labels = file["labels"] as? [String] { #expect(try m.labels(name) == labels, "\(path): \(name)") }
            }
        }
        #expect(withMetadata == 11)
    }

    /// What image_to_tensor and the classifiers take from the metadata, through the accessors.
    @Test func normalizationAndLabelFilesThroughTheAccessors() throws {
        let meta = try #require(try TFLiteMetadata(tflite: try BundleFixtures.committed("all_fields.tflite"), file: "all_fields.tflite"))
        let expected = try #require(try BundleFixtures.json("metadata.json")["models"] as? [[String: Any]]).last?["metadata"] as? [String: Any]
        let sg = try #require((expected?["subgraphMetadata"] as? [[String: Any]])?.first)
        let units = try #require((sg["inputTensorMetadata"] as? [[String: Any]])?.first?["processUnits"] as? [[String: Any]])
        let options = try #require(units.first?["options"] as? [String: Any])
        // Float32 values written as exact decimals, read back as float32 (see `difference`).
        #expect(meta.subgraphs[0].inputs[0].normalization?.mean == (options["mean"] as? [Double])?.map { Float($0) })
        #expect(meta.subgraphs[0].inputs[0].normalization?.std == (options["std"] as? [Double])?.map { Float($0) })
        #expect(meta.subgraphs[0].outputs[0].normalization == nil)
        let scores = meta.subgraphs[0].outputs[1]
        #expect(scores.associatedFile(ofType: .tensorAxisLabels)?.name == "labels.txt")
        #expect(scores.associatedFile(ofType: .tensorAxisLabels, locale: "fr")?.name == "labels_fr.txt")
        #expect(scores.associatedFile(ofType: .tensorAxisLabels, locale: "de") == nil)
        #expect(scores.associatedFile(ofType: .vocabulary) == nil)
        #expect("\(TFLiteMetadata.AssociatedFileType.tensorAxisScoreCalibration)" == "TENSOR_AXIS_SCORE_CALIBRATION")
        #expect("\(TFLiteMetadata.ColorSpaceType(rawValue: 9))" == "9")
        #expect {
            try meta.associatedFile("vocab.txt")
        } throws: {
            ($0 as? ModelError)?.message
                == "all_fields.tflite (associated files): no entry 'vocab.txt' (entries: labels.txt, labels_fr.txt, readme.txt)"
        }
    }

    /// The positions in all_fields.tflite of its metadata buffer and of the Metadata entry's
    /// buffer index, found with the flatbuffer reader.
    static func layout(_ bytes: [UInt8]) throws -> (metadata: Int, bufferIndexField: Int) {
        let model = try FlatBuffer(bytes: bytes, file: "t").root()
        let entry = try #require(try model.tables(6).first)
        let index = Int(try entry.uint(1))
        let (start, _) = try #require(try model.tables(4)[index].vector(0))
        return (start, try #require(try entry.field(1)))
    }

    /// A `ModelError`'s message for all_fields.tflite changed by `change`, or "ok".
    static func reading(_ change: (inout [UInt8], Int) throws -> Void) throws -> String {
        var bytes = try BundleFixtures.committed("all_fields.tflite")
        try change(&bytes, try layout(bytes).metadata)
        do { return try TFLiteMetadata(tflite: bytes, file: "all_fields.tflite") == nil ? "nil" : "ok" } catch let e as ModelError {
            return e.message
        }
    }

    @Test func brokenMetadataIsAnErrorNamingTheModelAndField() throws {
        #expect(try Self.reading { _, _ in } == "ok")
        #expect(
            try Self.reading { b, at in b.replaceSubrange((at + 4)..<(at + 8), with: Array("M002".utf8)) }
                == "all_fields.tflite: the TFLITE_METADATA buffer's file identifier is M002, not M001 (a ModelMetadata flatbuffer)")
        #expect(
            try Self.reading { b, _ in BundleFixtures.patch(&b, at: try Self.layout(b).bufferIndexField, 99, width: 4) }
                == "all_fields.tflite: metadata 'TFLITE_METADATA' refers to buffer 99, but the model has 2")
        // The buffer of length 0: no metadata, as MediaPipe's displayer skips it.
        #expect(try Self.reading { b, at in BundleFixtures.patch(&b, at: at - 4, 0, width: 4) } == "nil")
        // The root's subgraph_metadata offset, then the first input's name offset, out of the buffer.
        let fields: [(String, (FlatBuffer.Table) throws -> Int?)] = [
            ("subgraph_metadata", { try $0.field(3) }),
            ("subgraph_metadata[0].input_tensor_metadata[0].name", { try $0.tables(3)[0].tables(2)[0].field(0) }),
            ("subgraph_metadata[0].output_tensor_metadata[1].process_units[1].options", { try $0.tables(3)[0].tables(3)[1].tables(4)[1].field(1) }),
        ]
        for (name, field) in fields {
            let message = try Self.reading { b, at in
                let root = FlatBuffer.Table(fb: FlatBuffer(bytes: b, file: "t"), pos: at + Int(BundleFixtures.u32(b, at)))
                BundleFixtures.patch(&b, at: try #require(try field(root)), 0x7FFF_0000, width: 4)
            }
            #expect(
                message.hasPrefix("all_fields.tflite: malformed TFLite metadata in field '\(name)' (TFLITE_METADATA: corrupt model ("), "\(message)")
        }
    }

    @Test func bytesThatAreNoTFLiteModelAreAnError() {
        for bytes in [[], Array("abcdefgh".utf8), Array("PK\u{3}\u{4}TFL2 and more".utf8)] {
            #expect {
                try TFLiteMetadata(tflite: bytes, file: "x.tflite")
            } throws: { ($0 as? ModelError)?.message == "x.tflite: not a TFLite (FlatBuffers) model (no TFL3 identifier)" }
        }
    }

    /// 200 subgraphs that are one table of 200 inputs that are one table: refused, not walked.
    @Test func sharedTablesCannotMultiplyTheWork() throws {
        let bytes = try BundleFixtures.committed("shared_tables.tflite")
        #expect {
            try TFLiteMetadata(tflite: bytes, file: "shared_tables.tflite")
        } throws: { ($0 as? ModelError)?.message.contains("more than") == true && ($0 as? ModelError)?.message.contains("items") == true }
    }

    /// Cut anywhere: an error naming the model while the metadata is cut; after it, the appended
    /// files are lost with their end record, or the archive is an error — never a crash.
    @Test func truncatedModelsAreErrors() throws {
        let bytes = try BundleFixtures.committed("all_fields.tflite")
        let (start, _) = try Self.layout(bytes)
        let end = start + Int(BundleFixtures.u32(bytes, start - 4))
        for cut in stride(from: 0, to: bytes.count, by: 5) {
            do {
                let meta = try TFLiteMetadata(tflite: Array(bytes[..<cut]), file: "all_fields.tflite")
                #expect(cut >= end && meta?.packedFileNames.isEmpty == true, "cut at \(cut)")
            } catch let e as ModelError {
                #expect(e.message.hasPrefix("all_fields.tflite"), "cut at \(cut): \(e.message)")
            }
        }
    }

    /// 3000 seeded random changes to the metadata buffer: each reads or is a `ModelError` naming
    /// the model — never a crash.
    @Test func randomlyDamagedMetadataNeverCrashes() throws {
        let original = try BundleFixtures.committed("all_fields.tflite")
        let (start, _) = try Self.layout(original)
        let length = Int(BundleFixtures.u32(original, start - 4))
        var rng = SplitMix64(seed: 44)
        var read = 0, failed = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[start + Int.random(in: 0..<length, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                _ = try TFLiteMetadata(tflite: bytes, file: "all_fields.tflite")
                read += 1
            } catch let e as ModelError {
                failed += 1
                #expect(e.message.hasPrefix("all_fields.tflite"))
            }
        }
        #expect(read > 0 && failed > 0)
    }

    // MARK: - The fixture's form

    /// `m` in the form of the script's ModelMetadataT dump: every field, nil as null, enums as
    /// numbers, unions as `<field>Type` and `<field>`.
    static func canonical(_ m: TFLiteMetadata) -> [String: Any] {
        [
            "name": m.name ?? null, "description": m.description ?? null, "version": m.version ?? null,
            "subgraphMetadata": m.subgraphs.map(subgraph), "author": m.author ?? null, "license": m.license ?? null,
            "associatedFiles": m.associatedFiles.map(file), "minParserVersion": m.minParserVersion ?? null,
        ]
    }

    static var null: Any { NSNull() }

    static func subgraph(_ s: TFLiteMetadata.Subgraph) -> [String: Any] {
        [
            "name": s.name ?? null, "description": s.description ?? null, "inputTensorMetadata": s.inputs.map(tensor),
            "outputTensorMetadata": s.outputs.map(tensor), "associatedFiles": s.associatedFiles.map(file),
            "inputProcessUnits": s.inputProcessUnits.map(unit), "outputProcessUnits": s.outputProcessUnits.map(unit),
            "inputTensorGroups": s.inputTensorGroups.map(group), "outputTensorGroups": s.outputTensorGroups.map(group),
            "customMetadata": s.customMetadata.map { ["name": $0.name ?? null, "data": $0.data.map(Int.init)] as [String: Any] },
        ]
    }

    static func tensor(_ t: TFLiteMetadata.TensorMetadata) -> [String: Any] {
        [
            "name": t.name ?? null, "description": t.description ?? null, "dimensionNames": t.dimensionNames,
            "content": t.content.map(content) ?? null, "processUnits": t.processUnits.map(unit),
            "stats": t.stats.map { ["max": $0.max.map(Double.init), "min": $0.min.map(Double.init)] as [String: Any] } ?? null,
            "associatedFiles": t.associatedFiles.map(file),
        ]
    }

    static func content(_ c: TFLiteMetadata.Content) -> [String: Any] {
        let (type, properties): (Int, Any)
        switch c.properties {
        case nil: (type, properties) = (0, null)
        case .feature: (type, properties) = (1, [String: Any]())
        case .image(let p):
            let size = p.defaultSize.map { ["width": Int($0.width), "height": Int($0.height)] as Any } ?? null
            (type, properties) = (2, ["colorSpace": Int(p.colorSpace.rawValue), "defaultSize": size] as [String: Any])
        case .boundingBox(let b):
            (type, properties) = (
                3, ["index": b.index.map(Int.init), "type": Int(b.type.rawValue), "coordinateType": Int(b.coordinateType.rawValue)] as [String: Any]
            )
        case .audio(let a): (type, properties) = (4, ["sampleRate": Int(a.sampleRate), "channels": Int(a.channels)] as [String: Any])
        case .other(let t): (type, properties) = (Int(t), null)
        }
        let range = c.range.map { ["min": Int($0.min), "max": Int($0.max)] as Any } ?? null
        return ["contentPropertiesType": type, "contentProperties": properties, "range": range]
    }

    static func unit(_ u: TFLiteMetadata.ProcessUnit) -> [String: Any] {
        let (type, options): (Int, Any)
        switch u {
        case .normalization(let n): (type, options) = (1, ["mean": n.mean.map(Double.init), "std": n.std.map(Double.init)] as [String: Any])
        case .scoreCalibration(let c):
            (type, options) = (
                2, ["scoreTransformation": Int(c.scoreTransformation.rawValue), "defaultScore": Double(c.defaultScore)] as [String: Any]
            )
        case .scoreThresholding(let t): (type, options) = (3, ["globalScoreThreshold": Double(t)])
        case .bertTokenizer(let v): (type, options) = (4, ["vocabFile": v.map(file)])
        case .sentencePieceTokenizer(let m, let v): (type, options) = (5, ["sentencePieceModel": m.map(file), "vocabFile": v.map(file)])
        case .regexTokenizer(let d, let v): (type, options) = (6, ["delimRegexPattern": d ?? null, "vocabFile": v.map(file)] as [String: Any])
        case .other(let t): (type, options) = (Int(t), null)
        }
        return ["optionsType": type, "options": options]
    }

    static func group(_ g: TFLiteMetadata.TensorGroup) -> [String: Any] { ["name": g.name ?? null, "tensorNames": g.tensorNames] }

    static func file(_ f: TFLiteMetadata.AssociatedFile) -> [String: Any] {
        [
            "name": f.name ?? null, "description": f.description ?? null, "type": Int(f.type.rawValue), "locale": f.locale ?? null,
            "version": f.version ?? null,
        ]
    }

    /// The first place `ours` and `expected` differ, or nil. An absent vector is null in the
    /// fixture and empty in FrameFlow. Floats are compared exactly as float32: the fixture holds
    /// each float32's exact decimal, which Foundation's JSON parser may read one double ulp off.
    static func difference(_ ours: Any, _ expected: Any, path: String) -> String? {
        switch (ours, expected) {
        case (let a as [Any], is NSNull): return a.isEmpty ? nil : "\(path): \(a) where the fixture has null"
        case (let a as [String: Any], let b as [String: Any]):
            guard Set(a.keys) == Set(b.keys) else { return "\(path): fields \(a.keys.sorted()) vs \(b.keys.sorted())" }
            return a.keys.sorted().lazy.compactMap { difference(a[$0]!, b[$0]!, path: "\(path).\($0)") }.first
        case (let a as [Any], let b as [Any]):
            guard a.count == b.count else { return "\(path): \(a.count) elements vs \(b.count)" }
            return zip(a, b).enumerated().lazy.compactMap { difference($1.0, $1.1, path: "\(path)[\($0)]") }.first
        case (is NSNull, is NSNull): return nil
        case (let a as String, let b as String): return a == b ? nil : "\(path): \(a) vs \(b)"
        case (let a as Int, let b as NSNumber): return Double(a) == b.doubleValue ? nil : "\(path): \(a) vs \(b)"
        case (let a as Double, let b as NSNumber): return Float(a) == Float(b.doubleValue) ? nil : "\(path): \(a) vs \(b)"
        default: return "\(path): \(ours) vs \(expected)"
        }
    }
}
