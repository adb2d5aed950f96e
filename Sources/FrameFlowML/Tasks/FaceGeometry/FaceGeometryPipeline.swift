import Foundation
import FrameFlow

/// MediaPipe's face geometry pipeline (`geometry_pipeline.cc`): from a face's screen
/// landmarks (normalized x, y; z relative, in about x's scale) and the image size, the pose of
/// the canonical face in a virtual perspective camera's space and the face's metric mesh.
///
/// Per face (MediaPipe's steps, computed here in Double):
/// 1. the camera frustum at the near plane: height 2·near·tan(fov/2), width height · w / h;
/// 2. the landmarks onto it: y flipped for a top-left origin, x and z times the frustum's
///    width, y times its height, x and y shifted by its left and bottom;
/// 3. a first scale: the Procrustes fit of the canonical vertices to those points (z negated:
///    screen space is left-handed, metric space right-handed);
/// 4. z moved and rescaled, (z − mean z + near) / scale, x and y unprojected (× z / near),
///    handedness flipped, and a second fit for a second scale (the face-detection input also
///    takes z from the canonical face posed by a fit first);
/// 5. the same from the screen points with the product of both scales; the Procrustes fit of
///    the canonical vertices to these metric landmarks is the pose (the face-detection input
///    again replaces z and fits once more);
/// 6. the mesh: the canonical mesh with its positions set to the metric landmarks moved back
///    by the pose's inverse.
/// A face whose landmarks all lie within 1e-3 of their mean is skipped (MediaPipe: unstable).
struct FaceGeometryPipeline {
    let environment: FaceGeometryEnvironment
    let metadata: GeometryPipelineMetadata
    /// The canonical vertices' positions.
    let canonical: [SIMD3<Double>]
    /// Each vertex's weight in the fits (0 outside the basis).
    let weights: [Double]

    init(environment: FaceGeometryEnvironment, metadata: GeometryPipelineMetadata) throws {
        try environment.validate()
        self.environment = environment
        self.metadata = metadata
        let mesh = metadata.canonicalMesh
        canonical = (0..<mesh.vertexCount).map { SIMD3<Double>(mesh.position($0)) }
        var w = [Double](repeating: 0, count: canonical.count)
        // Later entries for the same id win, as MediaPipe's loop assigns them.
        for b in metadata.procrustesLandmarkBasis { w[b.landmarkId] = Double(b.weight) }
        weights = w
    }

    /// The geometry of each face in `faces` (landmarks in an image of `width` × `height`),
    /// skipping faces too compact to fit.
    func estimate(_ faces: [NormalizedLandmarkList], width: Int, height: Int) throws -> [FaceGeometry] {
        guard width > 0, height > 0 else {
            throw GraphError(.calculatorFailed, "the image size is \(width)×\(height): both must be positive")
        }
        return try faces.enumerated().compactMap { k, face in
            guard face.landmark.count == canonical.count else {
                throw GraphError(
                    .calculatorFailed,
                    "face \(k) has \(face.landmark.count) landmarks; the canonical mesh has \(canonical.count) (drop the iris points first)")
            }
            if let i = face.landmark.firstIndex(where: { !$0.x.isFinite || !$0.y.isFinite || !$0.z.isFinite }) {
                throw GraphError(.calculatorFailed, "face \(k): landmark \(i) is not finite")
            }
            if Self.isTooCompact(face) { return nil }
            return try geometry(face, width: width, height: height)
        }
    }

    /// MediaPipe's filter: every landmark within 1e-3 of the landmarks' mean (x, y).
    static func isTooCompact(_ face: NormalizedLandmarkList) -> Bool {
        var mx = 0.0, my = 0.0
        for (i, p) in face.landmark.enumerated() {
            mx += (p.x - mx) / Double(i + 1)
            my += (p.y - my) / Double(i + 1)
        }
        let far = face.landmark.reduce(0.0) { max($0, (($1.x - mx) * ($1.x - mx) + ($1.y - my) * ($1.y - my))) }
        return far.squareRoot() <= 1e-3
    }

    private func geometry(_ face: NormalizedLandmarkList, width: Int, height: Int) throws -> FaceGeometry {
        let camera = environment.perspectiveCamera
        let near = Double(camera.near)
        let heightAtNear = 2 * near * tan(0.5 * Double(camera.verticalFovDegrees) * .pi / 180)
        let widthAtNear = Double(width) * heightAtNear / Double(height)
        let (left, bottom) = (-0.5 * widthAtNear, -0.5 * heightAtNear)
        let flip = environment.originPointLocation == .topLeftCorner

        // Step 2: the screen points on the near plane.
        let screen = face.landmark.map { p in
            SIMD3(p.x * widthAtNear + left, (flip ? 1 - p.y : p.y) * heightAtNear + bottom, p.z * widthAtNear)
        }
        let depthOffset = screen.reduce(0.0) { $0 + $1.z } / Double(screen.count)
        let detection = metadata.inputSource == .faceDetectionPipeline

        func handednessFlipped(_ points: [SIMD3<Double>]) -> [SIMD3<Double>] { points.map { SIMD3($0.x, $0.y, -$0.z) } }
        func unprojected(_ scale: Double) -> [SIMD3<Double>] {
            screen.map { p in
                let z = (p.z - depthOffset + near) / scale
                return SIMD3(p.x * z / near, p.y * z / near, -z)
            }
        }
        func fit(_ points: [SIMD3<Double>]) throws -> ProcrustesSolver.Transform {
            try ProcrustesSolver.solve(source: canonical, target: points, weights: weights)
        }
        /// `points` with z taken from the canonical face posed by `pose`.
        func canonicalDepth(_ points: [SIMD3<Double>], _ pose: ProcrustesSolver.Transform) -> [SIMD3<Double>] {
            zip(points, canonical).map { p, c in SIMD3(p.x, p.y, pose.apply(c).z) }
        }

        // Steps 3-4.
        let firstScale = try fit(handednessFlipped(screen)).scale
        var intermediate = unprojected(firstScale)
        if detection { intermediate = canonicalDepth(intermediate, try fit(intermediate)) }
        let secondScale = try fit(intermediate).scale
        // Step 5.
        var metric = unprojected(firstScale * secondScale)
        var pose = try fit(metric)
        if detection {
            metric = canonicalDepth(metric, pose)
            pose = try fit(metric)
        }
        // Step 6.
        var mesh = metadata.canonicalMesh
        let size = mesh.vertexType.size
        for (i, p) in metric.enumerated() {
            let q = pose.unapply(p)
            mesh.vertexBuffer[i * size] = Float(q.x)
            mesh.vertexBuffer[i * size + 1] = Float(q.y)
            mesh.vertexBuffer[i * size + 2] = Float(q.z)
        }
        return FaceGeometry(mesh: mesh, poseTransformMatrix: pose.matrix)
    }
}
