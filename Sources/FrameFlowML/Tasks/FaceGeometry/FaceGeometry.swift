/// One face's geometry as MediaPipe's face geometry pipeline gives it
/// (`face_geometry.proto.FaceGeometry`, what FaceLandmarker's `facialTransformationMatrixes`
/// are made of): the pose of the canonical face in the camera's space and the face's mesh.
///
/// Units are centimetres; the space is right-handed with the camera at the origin looking
/// down −z (MediaPipe's perspective camera: faces in front of it have negative z).
public struct FaceGeometry: Sendable, Hashable, Codable {
    /// The canonical face mesh with its vertex positions replaced by the face's metric
    /// landmarks, moved back into the canonical face's frame (the pose's inverse applied).
    public var mesh: Mesh3d
    /// The 4×4 transform from the canonical face to the face in camera space, row by row:
    /// a rotation (scaled by the fit's scale, which is 1 up to rounding for a face-landmark
    /// input) in the upper-left 3×3, the translation in centimetres in the last column, and
    /// (0, 0, 0, 1) as the last row. MediaPipe's `MatrixData` stores it column by column;
    /// its Python API gives the same row-by-row numpy matrix as here.
    public var poseTransformMatrix: [Double]

    /// A face geometry from its mesh and its 16 row-major matrix elements.
    public init(mesh: Mesh3d, poseTransformMatrix: [Double]) {
        self.mesh = mesh
        self.poseTransformMatrix = poseTransformMatrix
    }

    /// Element (`row`, `column`) of `poseTransformMatrix`.
    public func pose(_ row: Int, _ column: Int) -> Double { poseTransformMatrix[row * 4 + column] }
}
