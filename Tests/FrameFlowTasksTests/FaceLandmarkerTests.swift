import Foundation
import FrameFlow
import FrameFlowTasks
import FrameFlowTestSupport
import Testing

/// `FaceLandmarker` (landmarks, blendshapes, facial transformation matrices) against MediaPipe
/// Tasks' FaceLandmarker on the fixture photos (Tests/Fixtures/mediapipe/tasks/face_landmarker.json,
/// num_faces 4): the same faces; landmarks within 0.5 % of the width on average and 2 % at
/// worst; every blendshape within 0.01; matrices within 1e-3 (rotation), 0.1 cm (translation).
@Suite struct FaceLandmarkerTests {
    struct Face: Decodable {
        var landmarks: [Float]
        var blendshapes: [Float]
        var matrix: [Float]
    }
    struct Frame: Decodable { var faces: [Face] }
    struct Run: Decodable {
        var source: String
        var path: String
        var mode: String
        var width: Int
        var height: Int
        var frames: [Frame]
    }
    struct File: Decodable { var runs: [Run] }

    @Test func photosGiveMediaPipesFacesBlendshapesAndPoses() throws {
        let bundle = RepositoryFiles.built("tasks/face_landmarker.task")
        try #require(FileManager.default.fileExists(atPath: bundle), "run scripts/setup.sh test")
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/face_landmarker.json")))
        var options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = bundle
        options.numFaces = 4
        options.outputFaceBlendshapes = true
        options.outputFacialTransformationMatrixes = true
        let landmarker = try FaceLandmarker(options: options)
        var faces = 0
        for run in try JSONDecoder().decode(File.self, from: data).runs where run.mode == "image" {
            let image = try #require(try RepositoryFiles.frames(run.path, count: 1).first)
            let result = try landmarker.detect(image: image)
            let want = run.frames[0].faces
            #expect(result.faceLandmarks.count == want.count, "\(run.source): \(result.faceLandmarks.count) faces, MediaPipe \(want.count)")
            #expect(result.faceBlendshapes?.count == want.count && result.facialTransformationMatrixes?.count == want.count)
            for w in want {
                // The nearest of ours, by mean landmark distance in pixels over the width.
                func distance(_ k: Int) -> (mean: Double, max: Double) {
                    let got = result.faceLandmarks[k]
                    guard got.count * 3 == w.landmarks.count else { return (.infinity, .infinity) }
                    var sum = 0.0, worst = 0.0
                    for (i, p) in got.enumerated() {
                        let dx = (p.x - Double(w.landmarks[3 * i])) * Double(run.width)
                        let dy = (p.y - Double(w.landmarks[3 * i + 1])) * Double(run.height)
                        let d = (dx * dx + dy * dy).squareRoot() / Double(run.width)
                        sum += d
                        worst = max(worst, d)
                    }
                    return (sum / Double(got.count), worst)
                }
                guard let k = result.faceLandmarks.indices.min(by: { distance($0).mean < distance($1).mean }) else { continue }
                faces += 1
                let d = distance(k)
                #expect(d.mean <= 0.005 && d.max <= 0.02, "\(run.source): landmarks mean \(d.mean), worst \(d.max)")
                let shapes = result.faceBlendshapes![k]
                #expect(shapes.count == 52 && shapes[0].categoryName == "_neutral")
                let blendWorst = zip(shapes, w.blendshapes).map { abs($0.score - $1) }.max() ?? .infinity
                #expect(blendWorst <= 0.01, "\(run.source): a blendshape \(blendWorst) off")
                let m = result.facialTransformationMatrixes![k]
                for r in 0..<3 {
                    for c in 0..<3 { #expect(abs(m[r, c] - w.matrix[r * 4 + c]) <= 1e-3, "\(run.source): rotation [\(r)][\(c)]") }
                    #expect(abs(m[r, 3] - w.matrix[r * 4 + 3]) <= 0.1, "\(run.source): translation \(r): \(m[r, 3]) vs \(w.matrix[r * 4 + 3]) cm")
                }
            }
        }
        #expect(faces >= 9, "\(faces) faces compared")
    }
}
