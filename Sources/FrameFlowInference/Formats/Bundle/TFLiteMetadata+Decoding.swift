// TFLiteMetadata+Decoding: finds the "TFLITE_METADATA" buffer of a TFLite model (schema.fbs:
// Model.metadata, field 6, of Metadata{name, buffer}; Model.buffers, field 4) and decodes the
// ModelMetadata flatbuffer in it with FrameFlowInference's bounds-checked `FlatBuffer` reader.
// Field numbers are metadata_schema.fbs's declaration order (a union takes two: its type, then
// its value). Every read names the field it was reading when it fails.

extension TFLiteMetadata {
    /// The metadata of the TFLite model in `bytes`, or nil when it has none; `file` names the
    /// model in errors.
    /// - Throws: `ModelError` naming the model (and the field) when the bytes are not a TFLite
    ///   model, the metadata is malformed, or the archive appended to the model is.
    public init?(tflite bytes: [UInt8], file: String, limits: BundleLimits = BundleLimits()) throws {
        guard bytes.count >= 8, bytes[4..<8].elementsEqual("TFL3".utf8) else {
            throw ModelError("\(file): not a TFLite (FlatBuffers) model (no TFL3 identifier)")
        }
        guard let buffer = try Self.metadataBuffer(in: bytes, file: file) else { return nil }
        guard buffer.count >= 8, buffer[4..<8].elementsEqual("M001".utf8) else {
            let id = buffer.count >= 8 ? String(decoding: buffer[4..<8], as: UTF8.self) : "(none: \(buffer.count) bytes)"
            throw ModelError("\(file): the TFLITE_METADATA buffer's file identifier is \(id), not M001 (a ModelMetadata flatbuffer)")
        }
        let walk = Walk(file: file, budget: buffer.count + 16)
        let root = try Node.root(FlatBuffer(bytes: buffer, file: "TFLITE_METADATA"), walk: walk)
        name = try root.string(0, "name")
        description = try root.string(1, "description")
        version = try root.string(2, "version")
        subgraphs = try root.tables(3, "subgraph_metadata").map(Self.subgraph)
        author = try root.string(4, "author")
        license = try root.string(5, "license")
        associatedFiles = try root.tables(6, "associated_files").map(Self.associatedFile)
        minParserVersion = try root.string(7, "min_parser_version")
        self.file = file
        archive = ZipArchive.hasEndRecord(bytes) ? try ZipArchive(bytes: bytes, name: "\(file) (associated files)", limits: limits) : nil
    }

    /// The bytes of the buffer the model's "TFLITE_METADATA" entry points to; nil when there is
    /// no such entry, or its buffer is empty.
    private static func metadataBuffer(in bytes: [UInt8], file: String) throws -> [UInt8]? {
        let fb = FlatBuffer(bytes: bytes, file: file)
        func field<T>(_ what: String, _ body: () throws -> T) throws -> T {
            do { return try body() } catch let e as ModelError { throw ModelError("\(file): malformed model field \(what) (\(e.message))") }
        }
        let model = try field("root") { try fb.root() }
        let entries = try field("metadata") { try model.tables(6) }
        for (i, entry) in entries.enumerated() {
            guard try field("metadata[\(i)].name", { try entry.string(0) }) == "TFLITE_METADATA" else { continue }
            let index = Int(try field("metadata[\(i)].buffer") { try entry.uint(1) })
            let buffers = try field("buffers") { try model.tables(4) }
            guard index < buffers.count else {
                throw ModelError("\(file): metadata 'TFLITE_METADATA' refers to buffer \(index), but the model has \(buffers.count)")
            }
            let buffer = buffers[index]
            var data = try field("buffers[\(index)].data") { try buffer.bytesVector(0) }
            // Models over 2 GB keep buffers after the flatbuffer: an offset from the file's start.
            if data.isEmpty, let at = try field("buffers[\(index)].offset", { try buffer.field(1) }) {
                let offset = try field("buffers[\(index)].offset") { try fb.u64(at) }
                let size = try field("buffers[\(index)].size") { try buffer.field(2).map { try fb.u64($0) } ?? 0 }
                guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                    throw ModelError("\(file): the TFLITE_METADATA buffer (\(size) bytes at \(offset)) runs past the end of the file")
                }
                data = bytes[Int(offset)..<Int(offset + size)]
            }
            if data.isEmpty { continue }
            return Array(data)
        }
        return nil
    }

    private static func subgraph(_ t: Node) throws -> Subgraph {
        Subgraph(
            name: try t.string(0, "name"), description: try t.string(1, "description"),
            inputs: try t.tables(2, "input_tensor_metadata").map(tensor), outputs: try t.tables(3, "output_tensor_metadata").map(tensor),
            associatedFiles: try t.tables(4, "associated_files").map(associatedFile),
            inputProcessUnits: try t.tables(5, "input_process_units").map(processUnit),
            outputProcessUnits: try t.tables(6, "output_process_units").map(processUnit),
            inputTensorGroups: try t.tables(7, "input_tensor_groups").map(tensorGroup),
            outputTensorGroups: try t.tables(8, "output_tensor_groups").map(tensorGroup),
            customMetadata: try t.tables(9, "custom_metadata").map { CustomMetadata(name: try $0.string(0, "name"), data: try $0.bytes(1, "data")) })
    }

    private static func tensor(_ t: Node) throws -> TensorMetadata {
        TensorMetadata(
            name: try t.string(0, "name"), description: try t.string(1, "description"), dimensionNames: try t.strings(2, "dimension_names"),
            content: try t.table(3, "content").map(content), processUnits: try t.tables(4, "process_units").map(processUnit),
            stats: try t.table(5, "stats").map { Stats(max: try $0.floats(0, "max"), min: try $0.floats(1, "min")) },
            associatedFiles: try t.tables(6, "associated_files").map(associatedFile))
    }

    private static func content(_ t: Node) throws -> Content {
        let type = try t.byte(0, "content_properties_type")
        var properties: ContentProperties?
        if type != 0, let p = try t.table(1, "content_properties") {
            switch type {
            case 1: properties = .feature
            case 2:
                let size = try p.table(1, "default_size").map { ImageSize(width: try $0.uint(0, "width"), height: try $0.uint(1, "height")) }
                properties = .image(ImageProperties(colorSpace: ColorSpaceType(rawValue: try p.int8(0, "color_space")), defaultSize: size))
            case 3:
                properties = .boundingBox(
                    BoundingBoxProperties(
                        index: try p.uints(0, "index"), type: BoundingBoxType(rawValue: try p.int8(1, "type")),
                        coordinateType: CoordinateType(rawValue: try p.int8(2, "coordinate_type"))))
            case 4: properties = .audio(AudioProperties(sampleRate: try p.uint(0, "sample_rate"), channels: try p.uint(1, "channels")))
            default: properties = .other(type: type)
            }
        }
        let range = try t.table(2, "range").map { ValueRange(min: try $0.int(0, "min"), max: try $0.int(1, "max")) }
        return Content(properties: properties, range: range)
    }

    private static func processUnit(_ t: Node) throws -> ProcessUnit {
        let type = try t.byte(0, "options_type")
        guard type != 0, let o = try t.table(1, "options") else { return .other(type: type) }
        switch type {
        case 1: return .normalization(NormalizationOptions(mean: try o.floats(0, "mean"), std: try o.floats(1, "std")))
        case 2:
            return .scoreCalibration(
                ScoreCalibrationOptions(
                    scoreTransformation: ScoreTransformationType(rawValue: try o.int8(0, "score_transformation")),
                    defaultScore: try o.float(1, "default_score")))
        case 3: return .scoreThresholding(globalScoreThreshold: try o.float(0, "global_score_threshold"))
        case 4: return .bertTokenizer(vocabFiles: try o.tables(0, "vocab_file").map(associatedFile))
        case 5:
            return .sentencePieceTokenizer(
                modelFiles: try o.tables(0, "sentencePiece_model").map(associatedFile), vocabFiles: try o.tables(1, "vocab_file").map(associatedFile))
        case 6:
            return .regexTokenizer(
                delimiterPattern: try o.string(0, "delim_regex_pattern"), vocabFiles: try o.tables(1, "vocab_file").map(associatedFile))
        default: return .other(type: type)
        }
    }

    private static func tensorGroup(_ t: Node) throws -> TensorGroup {
        TensorGroup(name: try t.string(0, "name"), tensorNames: try t.strings(1, "tensor_names"))
    }

    private static func associatedFile(_ t: Node) throws -> AssociatedFile {
        AssociatedFile(
            name: try t.string(0, "name"), description: try t.string(1, "description"), type: AssociatedFileType(rawValue: try t.int8(2, "type")),
            locale: try t.string(3, "locale"), version: try t.string(4, "version"))
    }

    /// The items read so far, against a budget of one per byte of the buffer: tables shared
    /// between vectors could otherwise make a few bytes describe millions of items.
    private final class Walk {
        let file: String
        let budget: Int
        var items = 0
        init(file: String, budget: Int) {
            self.file = file
            self.budget = budget
        }
        func count(_ n: Int, _ path: String) throws {
            items += n
            guard items <= budget else {
                throw ModelError("\(file): malformed TFLite metadata: more than \(budget) items (tables shared too often) at '\(path)'")
            }
        }
    }

    /// A metadata table and its path from the root (`subgraph_metadata[0].input_tensor_metadata[1]`):
    /// each read names the field in its error.
    private struct Node {
        let table: FlatBuffer.Table
        let path: String
        let walk: Walk

        /// The ModelMetadata table the buffer starts with.
        static func root(_ fb: FlatBuffer, walk: Walk) throws -> Node {
            let table: FlatBuffer.Table
            do {
                table = try fb.root()
                _ = try table.field(0)  // its vtable lies in the buffer
            } catch let e as ModelError { throw ModelError("\(walk.file): malformed TFLite metadata at its root table (\(e.message))") }
            try walk.count(1, "(root)")
            return Node(table: table, path: "", walk: walk)
        }

        private func name(_ field: String) -> String { path.isEmpty ? field : "\(path).\(field)" }

        private func read<T>(_ field: String, _ body: () throws -> T) throws -> T {
            do { return try body() } catch let e as ModelError {
                throw ModelError("\(walk.file): malformed TFLite metadata in field '\(name(field))' (\(e.message))")
            }
        }

        func string(_ i: Int, _ field: String) throws -> String? {
            guard let bytes = try read(field, { try table.field(i) == nil ? nil : try table.bytesVector(i) }) else { return nil }
            try walk.count(bytes.count / 16, name(field))
            return String(decoding: bytes, as: UTF8.self)
        }
        func byte(_ i: Int, _ field: String) throws -> UInt8 { try read(field) { try table.byte(i) } }
        func int8(_ i: Int, _ field: String) throws -> Int8 { Int8(bitPattern: try byte(i, field)) }
        func int(_ i: Int, _ field: String) throws -> Int32 { try read(field) { try table.int(i) } }
        func uint(_ i: Int, _ field: String) throws -> UInt32 { try read(field) { try table.uint(i) } }
        func float(_ i: Int, _ field: String) throws -> Float { try read(field) { try table.float(i) } }

        func bytes(_ i: Int, _ field: String) throws -> [UInt8] {
            let b = try read(field) { Array(try table.bytesVector(i)) }
            try walk.count(b.count / 16, name(field))
            return b
        }
        func uints(_ i: Int, _ field: String) throws -> [UInt32] {
            let v = try read(field) { try table.ints(i) }
            try walk.count(v.count, name(field))
            return v.map { UInt32(bitPattern: $0) }
        }
        func floats(_ i: Int, _ field: String) throws -> [Float] {
            let v = try read(field) { try table.ints(i) }
            try walk.count(v.count, name(field))
            return v.map { Float(bitPattern: UInt32(bitPattern: $0)) }
        }

        func table(_ i: Int, _ field: String) throws -> Node? {
            let found = try read(field) { () throws -> FlatBuffer.Table? in
                let t = try table.table(i)
                _ = try t?.field(0)  // its vtable lies in the buffer
                return t
            }
            guard let t = found else { return nil }
            try walk.count(1, name(field))
            return Node(table: t, path: name(field), walk: walk)
        }
        func tables(_ i: Int, _ field: String) throws -> [Node] {
            let count = try read(field) { try table.vector(i)?.1 ?? 0 }
            try walk.count(count, name(field))
            let found = try read(field) { () throws -> [FlatBuffer.Table] in
                let ts = try table.tables(i)
                for t in ts { _ = try t.field(0) }  // their vtables lie in the buffer
                return ts
            }
            return found.enumerated().map { Node(table: $1, path: "\(name(field))[\($0)]", walk: walk) }
        }
        /// A vector of strings: offsets to length-prefixed UTF-8.
        func strings(_ i: Int, _ field: String) throws -> [String] {
            guard let (start, n) = try read(field, { try table.vector(i) }) else { return [] }
            try walk.count(n, name(field))
            return try (0..<n).map { k in
                let bytes = try read("\(field)[\(k)]") { () throws -> ArraySlice<UInt8> in
                    let fb = table.fb, e = start + 4 * k
                    let s = e + Int(try fb.u32(e))
                    let length = Int(try fb.u32(s))
                    guard s + 4 + length <= fb.bytes.count else { throw fb.fail("string of \(length) bytes runs past the end") }
                    return fb.bytes[(s + 4)..<(s + 4 + length)]
                }
                try walk.count(bytes.count / 16, name(field))
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }
}
