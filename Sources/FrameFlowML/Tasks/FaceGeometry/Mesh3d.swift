/// MediaPipe's `face_geometry.proto.Mesh3d`: a triangle mesh whose vertices are 5 floats each
/// (`VERTEX_PT`: position x, y, z, then texture coordinates u, v) and whose indices, three per
/// triangle, point into the vertices. The canonical face mesh of the face geometry pipeline
/// has 468 vertices (centimetres) and 898 triangles; each `FaceGeometry` carries a copy with
/// the positions replaced by the face's metric landmarks.
public struct Mesh3d: Sendable, Hashable, Codable {
    /// How the vertex buffer is laid out. MediaPipe knows one layout.
    public enum VertexType: Int, Sendable, Hashable, Codable {
        /// Position (x, y, z) then texture coordinates (u, v): 5 floats a vertex.
        case vertexPT = 0
        /// Floats per vertex.
        public var size: Int { 5 }
    }

    /// What the index buffer's entries form. MediaPipe knows one primitive.
    public enum PrimitiveType: Int, Sendable, Hashable, Codable {
        /// Three indices a triangle.
        case triangle = 0
        /// Indices per primitive.
        public var size: Int { 3 }
    }

    /// The vertex layout.
    public var vertexType: VertexType
    /// The primitive the indices form.
    public var primitiveType: PrimitiveType
    /// `vertexType.size` floats per vertex, one vertex after another.
    public var vertexBuffer: [Float]
    /// Vertex indices, `primitiveType.size` per primitive.
    public var indexBuffer: [UInt32]

    /// A mesh from its buffers (not checked: `GeometryPipelineMetadata` checks what it reads).
    public init(vertexType: VertexType = .vertexPT, primitiveType: PrimitiveType = .triangle, vertexBuffer: [Float], indexBuffer: [UInt32]) {
        self.vertexType = vertexType
        self.primitiveType = primitiveType
        self.vertexBuffer = vertexBuffer
        self.indexBuffer = indexBuffer
    }

    /// The number of whole vertices in the buffer.
    public var vertexCount: Int { vertexBuffer.count / vertexType.size }

    /// Vertex `i`'s position (x, y, z).
    public func position(_ i: Int) -> SIMD3<Float> {
        let o = i * vertexType.size
        return SIMD3(vertexBuffer[o], vertexBuffer[o + 1], vertexBuffer[o + 2])
    }
}
