import FrameFlow

/// MediaPipe's `face_geometry.proto.GeometryPipelineMetadata`, read from its protobuf binary
/// form (`geometry_pipeline_metadata_landmarks.binarypb` in `face_landmarker.task`): the
/// canonical face mesh and the weighted landmarks the pose is fitted on.
///
/// `init(bytes:file:)` reads the wire format with FrameFlow's `ProtoReader` and then checks
/// what MediaPipe's `ValidateGeometryPipelineMetadata` checks, and a little more (finite
/// values, a positive total weight). Truncated or corrupt bytes, a field of the wrong wire
/// type, an unknown enum value or an inconsistent mesh throw `GraphError(.syntax)` naming the
/// file, the field and (for wire errors) the byte offset. Unknown fields are skipped, as
/// protobuf parsers do. Every array is bounded by the input's size.
public struct GeometryPipelineMetadata: Sendable, Hashable {
    /// One landmark of the Procrustes fit and its weight.
    public struct WeightedLandmark: Sendable, Hashable {
        /// The canonical mesh vertex (and landmark) index.
        public var landmarkId: Int
        /// Its weight, ≥ 0.
        public var weight: Float
        /// Landmark `landmarkId` weighted `weight`.
        public init(landmarkId: Int, weight: Float) {
            self.landmarkId = landmarkId
            self.weight = weight
        }
    }

    /// Which landmarks the pipeline is fed.
    public enum InputSource: Int, Sendable, Hashable {
        /// Unset: taken as `faceLandmarkPipeline`.
        case `default` = 0
        /// The face mesh's 468 landmarks (FaceLandmarker).
        case faceLandmarkPipeline = 1
        /// Face detection keypoints, whose z is replaced by the canonical face's.
        case faceDetectionPipeline = 2
    }

    /// The canonical face mesh, in centimetres.
    public var canonicalMesh: Mesh3d
    /// The landmarks the pose is fitted on, with their weights (others weigh 0).
    public var procrustesLandmarkBasis: [WeightedLandmark]
    /// The pipeline the landmarks come from.
    public var inputSource: InputSource

    /// Metadata from its parts, checked as `init(bytes:file:)` checks what it reads.
    public init(canonicalMesh: Mesh3d, procrustesLandmarkBasis: [WeightedLandmark], inputSource: InputSource = .default) throws {
        self.canonicalMesh = canonicalMesh
        self.procrustesLandmarkBasis = procrustesLandmarkBasis
        self.inputSource = inputSource
        try validate(file: "<metadata>")
    }

    /// Decodes the serialized message `bytes`; `file` names them in errors.
    public init(bytes: [UInt8], file: String) throws {
        var mesh: Mesh3d?
        var basis: [WeightedLandmark] = []
        var source = InputSource.default
        var field = "GeometryPipelineMetadata"
        do {
            try bytes.withUnsafeBytes { raw in
                var r = ProtoReader(raw, what: file)
                while !r.atEnd {
                    let (number, wire) = try r.tag()
                    switch number {
                    case 1:
                        field = "GeometryPipelineMetadata.canonical_mesh"
                        try Self.expect(wire, 2, &r)
                        mesh = try Self.mesh(raw, try r.lengthDelimited(), file: file, field: &field)
                    case 2:
                        field = "GeometryPipelineMetadata.procrustes_landmark_basis[\(basis.count)]"
                        try Self.expect(wire, 2, &r)
                        basis.append(try Self.weightedLandmark(raw, try r.lengthDelimited(), file: file, field: &field))
                    case 3:
                        field = "GeometryPipelineMetadata.input_source"
                        try Self.expect(wire, 0, &r)
                        let v = try r.varint()
                        guard let s = InputSource(rawValue: Int(truncatingIfNeeded: v)), v <= 2 else { throw r.fail("unknown InputSource \(v)") }
                        source = s
                    default:
                        field = "GeometryPipelineMetadata (field \(number))"
                        try r.skip(wire)
                    }
                    field = "GeometryPipelineMetadata"
                }
            }
        } catch let e as ProtoReader.DecodeError {
            throw GraphError(.syntax, "\(file): \(e.reason) at byte \(e.offset) in \(field)")
        }
        guard let mesh else { throw GraphError(.syntax, "\(file): GeometryPipelineMetadata has no canonical_mesh") }
        canonicalMesh = mesh
        procrustesLandmarkBasis = basis
        inputSource = source
        try validate(file: file)
    }

    /// Throws unless `wire` is the wire type the field has.
    private static func expect(_ wire: Int, _ want: Int, _ r: inout ProtoReader) throws {
        guard wire == want else { throw r.fail("wire type \(wire) where \(want) was expected") }
    }

    /// A `Mesh3d` message in `range`.
    private static func mesh(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, field: inout String) throws -> Mesh3d {
        var r = ProtoReader(raw, range: range, what: file)
        var vertexType = Mesh3d.VertexType.vertexPT
        var primitiveType = Mesh3d.PrimitiveType.triangle
        var vertices: [Float] = []
        var indices: [UInt32] = []
        while !r.atEnd {
            let (number, wire) = try r.tag()
            switch number {
            case 1:
                field = "Mesh3d.vertex_type"
                try expect(wire, 0, &r)
                let v = try r.varint()
                guard v == 0 else { throw r.fail("unknown VertexType \(v) (only VERTEX_PT, 0)") }
                vertexType = .vertexPT
            case 2:
                field = "Mesh3d.primitive_type"
                try expect(wire, 0, &r)
                let v = try r.varint()
                guard v == 0 else { throw r.fail("unknown PrimitiveType \(v) (only TRIANGLE, 0)") }
                primitiveType = .triangle
            case 3:
                field = "Mesh3d.vertex_buffer"
                guard wire == 2 || wire == 5 else { throw r.fail("wire type \(wire) where 5 (or 2, packed) was expected") }
                try r.floats(wire, into: &vertices)
            case 4:
                field = "Mesh3d.index_buffer"
                if wire == 2 {
                    var p = ProtoReader(raw, range: try r.lengthDelimited(), what: file)
                    while !p.atEnd { indices.append(try uint32(&p)) }
                } else {
                    try expect(wire, 0, &r)
                    indices.append(try uint32(&r))
                }
            default:
                field = "Mesh3d (field \(number))"
                try r.skip(wire)
            }
            field = "GeometryPipelineMetadata.canonical_mesh"
        }
        return Mesh3d(vertexType: vertexType, primitiveType: primitiveType, vertexBuffer: vertices, indexBuffer: indices)
    }

    /// A varint that must fit a uint32.
    private static func uint32(_ r: inout ProtoReader) throws -> UInt32 {
        let v = try r.varint()
        guard let u = UInt32(exactly: v) else { throw r.fail("\(v) does not fit a uint32") }
        return u
    }

    /// A `WeightedLandmarkRef` message in `range`.
    private static func weightedLandmark(
        _ raw: UnsafeRawBufferPointer, _ range: Range<Int>, file: String, field: inout String
    ) throws -> WeightedLandmark {
        var r = ProtoReader(raw, range: range, what: file)
        var id: UInt32 = 0
        var weight: Float = 0
        let outer = field
        while !r.atEnd {
            let (number, wire) = try r.tag()
            switch number {
            case 1:
                field = outer + ".landmark_id"
                try expect(wire, 0, &r)
                id = try uint32(&r)
            case 2:
                field = outer + ".weight"
                try expect(wire, 5, &r)
                weight = Float(bitPattern: try r.fixed32())
            default:
                field = outer + " (field \(number))"
                try r.skip(wire)
            }
            field = outer
        }
        return WeightedLandmark(landmarkId: Int(id), weight: weight)
    }

    /// MediaPipe's checks of the metadata, and finite values and a positive total weight.
    private func validate(file: String) throws {
        func bad(_ m: String) -> GraphError { GraphError(.syntax, "\(file): \(m)") }
        let mesh = canonicalMesh
        guard !mesh.vertexBuffer.isEmpty else { throw bad("canonical_mesh.vertex_buffer is empty") }
        guard mesh.vertexBuffer.count % mesh.vertexType.size == 0 else {
            throw bad("canonical_mesh.vertex_buffer has \(mesh.vertexBuffer.count) floats: not a multiple of \(mesh.vertexType.size)")
        }
        if let i = mesh.vertexBuffer.firstIndex(where: { !$0.isFinite }) {
            throw bad("canonical_mesh.vertex_buffer[\(i)] is \(mesh.vertexBuffer[i])")
        }
        guard mesh.indexBuffer.count % mesh.primitiveType.size == 0 else {
            throw bad("canonical_mesh.index_buffer has \(mesh.indexBuffer.count) indices: not a multiple of \(mesh.primitiveType.size)")
        }
        let n = mesh.vertexCount
        if let i = mesh.indexBuffer.firstIndex(where: { Int($0) >= n }) {
            throw bad("canonical_mesh.index_buffer[\(i)] is \(mesh.indexBuffer[i]): the mesh has \(n) vertices")
        }
        guard !procrustesLandmarkBasis.isEmpty else { throw bad("procrustes_landmark_basis is empty") }
        var total: Float = 0
        for (k, w) in procrustesLandmarkBasis.enumerated() {
            guard w.landmarkId < n else {
                throw bad("procrustes_landmark_basis[\(k)].landmark_id is \(w.landmarkId): the mesh has \(n) vertices")
            }
            guard w.weight.isFinite, w.weight >= 0 else {
                throw bad("procrustes_landmark_basis[\(k)].weight is \(w.weight): it must be finite and ≥ 0")
            }
            total += w.weight
        }
        guard total > 1e-9 else { throw bad("procrustes_landmark_basis: the weights add up to \(total), too little to fit on") }
    }
}
