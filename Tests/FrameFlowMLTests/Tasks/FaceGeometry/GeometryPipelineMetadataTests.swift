import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// `GeometryPipelineMetadata` read from face_landmarker.task against the protobuf package's
/// parse of the same bytes with the mediapipe wheel's own message class
/// (Tests/Fixtures/mediapipe/tasks/face_geometry_metadata.json, from
/// scripts/fixtures/make_face_geometry_metadata_fixture.py), and on broken bytes.
@Suite struct GeometryPipelineMetadataTests {
    /// The fixture script's numbers.
    struct Reference: Decodable {
        var bytes: Int
        var input_source: Int
        var vertex_type: Int
        var primitive_type: Int
        var vertex_floats: Int
        var indices: Int
        var vertex_sum: Double
        var vertex_abs_sum: Double
        var index_sum: Int
        var first_vertex: [Double]
        var last_vertex: [Double]
        var first_triangle: [UInt32]
        var last_triangle: [UInt32]
        var basis: [[Double]]
    }

    static let bundlePath = RepositoryFiles.built("tasks/face_landmarker.task")

    /// The metadata entry's bytes, out of the bundle with FrameFlow's ZIP reader.
    static func entryBytes() throws -> [UInt8] {
        try #require(FileManager.default.fileExists(atPath: bundlePath), "run scripts/setup.sh test")
        let bundle = try ModelBundle(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: bundlePath))), name: bundlePath)
        return try bundle.data(FaceGeometryPipelineCalculator.bundleEntry)
    }

    @Test func matchesTheProtobufPackagesParse() throws {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/face_geometry_metadata.json")))
        let ref = try JSONDecoder().decode(Reference.self, from: data)
        let bytes = try Self.entryBytes()
        #expect(bytes.count == ref.bytes)
        let m = try GeometryPipelineMetadata(bytes: bytes, file: "face_landmarker.task/geometry_pipeline_metadata_landmarks.binarypb")
        let mesh = m.canonicalMesh
        #expect(m.inputSource.rawValue == ref.input_source)
        #expect(mesh.vertexType.rawValue == ref.vertex_type && mesh.primitiveType.rawValue == ref.primitive_type)
        #expect(mesh.vertexBuffer.count == ref.vertex_floats && mesh.indexBuffer.count == ref.indices)
        // docs/tasks-graphs.md: 468 vertices × 5 floats, 2694 indices, 33 basis entries.
        #expect(mesh.vertexCount == 468 && mesh.indexBuffer.count == 2694 && m.procrustesLandmarkBasis.count == 33)
        let sum = mesh.vertexBuffer.reduce(0.0) { $0 + Double($1) }
        let absSum = mesh.vertexBuffer.reduce(0.0) { $0 + Double(abs($1)) }
        #expect(abs(sum - ref.vertex_sum) <= 1e-9 * ref.vertex_abs_sum, "vertex sum \(sum) vs \(ref.vertex_sum)")
        #expect(abs(absSum - ref.vertex_abs_sum) <= 1e-9 * ref.vertex_abs_sum)
        #expect(mesh.indexBuffer.reduce(0) { $0 + Int($1) } == ref.index_sum)
        #expect(mesh.vertexBuffer.prefix(5).map(Double.init) == ref.first_vertex)
        #expect(mesh.vertexBuffer.suffix(5).map(Double.init) == ref.last_vertex)
        #expect(Array(mesh.indexBuffer.prefix(3)) == ref.first_triangle && Array(mesh.indexBuffer.suffix(3)) == ref.last_triangle)
        #expect(m.procrustesLandmarkBasis.map { [Double($0.landmarkId), Double($0.weight)] } == ref.basis)
    }

    /// Every cut of the file either fails naming the file and a field or, where the cut falls
    /// between two basis entries, reads the entries before it.
    @Test func truncationsFailNamingTheFileOrKeepWholeEntries() throws {
        let bytes = try Self.entryBytes()
        let full = try GeometryPipelineMetadata(bytes: bytes, file: "meta.binarypb")
        var cuts = Array(0..<min(80, bytes.count)) + Array(stride(from: 80, to: bytes.count, by: 37))
        cuts += Array(max(0, bytes.count - 200)..<bytes.count)
        var failed = 0, prefixes = 0
        for n in cuts {
            do {
                let m = try GeometryPipelineMetadata(bytes: Array(bytes[..<n]), file: "meta.binarypb")
                #expect(m.canonicalMesh == full.canonicalMesh, "cut at \(n): a different mesh")
                #expect(m.procrustesLandmarkBasis == Array(full.procrustesLandmarkBasis.prefix(m.procrustesLandmarkBasis.count)))
                #expect(m.procrustesLandmarkBasis.count < full.procrustesLandmarkBasis.count || m.inputSource != full.inputSource)
                prefixes += 1
            } catch let e as GraphError {
                #expect(e.message.contains("meta.binarypb"), "cut at \(n): \(e.message)")
                failed += 1
            }
        }
        #expect(failed > cuts.count / 2, "\(failed) of \(cuts.count) cuts failed")
        #expect(prefixes < 40)
    }

    /// Bytes changed at spread-out places (each of 600 mutants: one to three bytes set to a
    /// pseudo-random value) either read or throw a `GraphError` naming the file: no trap, no
    /// hang.
    @Test func mutatedBytesReadOrThrow() throws {
        let bytes = try Self.entryBytes()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var thrown = 0
        for _ in 0..<600 {
            var b = bytes
            for _ in 0...(next() % 3) { b[next() % b.count] = UInt8(truncatingIfNeeded: next()) }
            do {
                _ = try GeometryPipelineMetadata(bytes: b, file: "mutant.binarypb")
            } catch let e as GraphError {
                #expect(e.message.contains("mutant.binarypb"), "\(e.message)")
                thrown += 1
            }
        }
        #expect(thrown > 0)
    }

    /// A small valid message: 4 vertices, 2 triangles, `basis` (id, weight) entries.
    static func message(
        vertexType: Int64 = 0, vertices: [Float]? = nil, indices: [UInt64] = [0, 1, 2, 1, 2, 3],
        basis: [(Int64, Float)] = [(0, 1), (1, 1), (2, 1)], extra: (inout ProtobufWire) -> Void = { _ in }
    ) -> [UInt8] {
        let verts = vertices ?? [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1]
        var w = ProtobufWire()
        w.message(1) { m in
            m.int(1, vertexType)
            m.int(2, 0)
            var packed: [UInt8] = []
            for v in verts { packed += withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) }
            m.data(3, packed)
            var ix = ProtobufWire()
            for i in indices { ix.varint(i) }
            m.data(4, ix.bytes)
        }
        for (id, weight) in basis {
            w.message(2) { b in
                b.int(1, id)
                b.float(2, weight)
            }
        }
        w.int(3, 1)
        extra(&w)
        return w.bytes
    }

    static func error(_ bytes: [UInt8]) -> String? {
        do {
            _ = try GeometryPipelineMetadata(bytes: bytes, file: "probe.binarypb")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func handWrittenMessageReads() throws {
        var unknown = ProtobufWire()
        unknown.string(9, "skipped")
        let m = try GeometryPipelineMetadata(bytes: Self.message(extra: { $0.bytes += unknown.bytes }), file: "probe.binarypb")
        #expect(m.canonicalMesh.vertexCount == 4 && m.canonicalMesh.indexBuffer == [0, 1, 2, 1, 2, 3])
        #expect(m.canonicalMesh.position(2) == SIMD3(0, 1, 0) && m.canonicalMesh.position(3) == SIMD3(0, 0, 1))
        #expect(m.procrustesLandmarkBasis.map(\.landmarkId) == [0, 1, 2] && m.inputSource == .faceLandmarkPipeline)
    }

    @Test func brokenMessagesNameTheFileAndField() throws {
        var wrongWire = ProtobufWire()
        wrongWire.message(1) { m in m.int(3, 5) }  // vertex_buffer as a varint
        var hugeLength = ProtobufWire()
        hugeLength.tag(1, 2)
        hugeLength.varint(UInt64.max >> 1)
        var badSource = ProtobufWire()
        badSource.int(3, 7)
        var bigIndex = ProtobufWire()
        bigIndex.message(1) { m in
            m.tag(4, 0)
            m.varint(1 << 40)
        }
        let cases: [(String, [UInt8], [String])] = [
            ("empty", [], ["probe.binarypb", "canonical_mesh"]),
            ("vertex type", Self.message(vertexType: 3), ["probe.binarypb", "Mesh3d.vertex_type", "VertexType 3"]),
            ("wire type", wrongWire.bytes, ["probe.binarypb", "Mesh3d.vertex_buffer", "wire type"]),
            ("length", hugeLength.bytes, ["probe.binarypb", "canonical_mesh", "runs past the end"]),
            ("input source", badSource.bytes, ["probe.binarypb", "input_source", "InputSource 7"]),
            ("uint32", bigIndex.bytes, ["probe.binarypb", "index_buffer", "uint32"]),
            ("index range", Self.message(indices: [0, 1, 4]), ["probe.binarypb", "index_buffer[2]", "4 vertices"]),
            ("index count", Self.message(indices: [0, 1]), ["probe.binarypb", "index_buffer", "multiple of 3"]),
            ("vertex count", Self.message(vertices: [0, 0, 0, 0]), ["probe.binarypb", "vertex_buffer", "multiple of 5"]),
            ("no vertices", Self.message(vertices: [], indices: []), ["probe.binarypb", "vertex_buffer is empty"]),
            ("nan vertex", Self.message(vertices: [.nan] + [Float](repeating: 0, count: 4)), ["probe.binarypb", "vertex_buffer[0]"]),
            ("basis id", Self.message(basis: [(9, 1)]), ["probe.binarypb", "procrustes_landmark_basis[0].landmark_id", "9"]),
            ("basis weight", Self.message(basis: [(0, -1)]), ["probe.binarypb", "procrustes_landmark_basis[0].weight"]),
            ("nan weight", Self.message(basis: [(0, .nan)]), ["probe.binarypb", "procrustes_landmark_basis[0].weight"]),
            ("inf weight", Self.message(basis: [(0, .infinity)]), ["probe.binarypb", "procrustes_landmark_basis[0].weight"]),
            ("zero weights", Self.message(basis: [(0, 0), (1, 0)]), ["probe.binarypb", "add up to"]),
            ("no basis", Self.message(basis: []), ["probe.binarypb", "procrustes_landmark_basis is empty"]),
            ("field 0", [0x00, 0x01], ["probe.binarypb", "field number 0"]),
            ("wire 7", [0x0F], ["probe.binarypb", "wire type 7"]),
        ]
        for (name, bytes, words) in cases {
            let e = Self.error(bytes)
            #expect(e != nil, "\(name): accepted")
            for w in words { #expect(e?.contains(w) == true, "\(name): \(e ?? "nil") lacks '\(w)'") }
        }
    }
}
