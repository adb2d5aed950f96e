import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// The face geometry pipeline (`FaceGeometryPipelineCalculator`, and the built-in subgraph
/// `mediapipe.tasks.vision.face_geometry.FaceGeometryFromLandmarksGraph`) fed MediaPipe
/// FaceLandmarker's own landmarks (Tests/Fixtures/mediapipe/tasks/face_landmarker.json, every
/// face of every run, with its image's size) against the facial transformation matrices
/// MediaPipe computed from them: rotation part within 1e-3 (every element; the columns are unit
/// vectors), translation within 0.1 cm (issue 44). The fixture rounds landmarks and matrices to
/// 5 significant digits, which bounds how close the two can be.
@Suite struct FaceGeometryTests {
    struct Face: Decodable {
        var landmarks: [Double]
        var matrix: [Double]
        /// The landmarks as a list (478 points: 468 mesh + 10 iris).
        var list: NormalizedLandmarkList {
            NormalizedLandmarkList(
                stride(from: 0, to: landmarks.count - 2, by: 3).map {
                    NormalizedLandmark(x: landmarks[$0], y: landmarks[$0 + 1], z: landmarks[$0 + 2])
                })
        }
    }
    struct Frame: Decodable {
        var index: Int
        var faces: [Face]
    }

    static let bundle = ".build/fixtures/tasks/face_landmarker.task"

    /// Worst differences over the faces compared.
    struct Worst: CustomStringConvertible {
        var rotation = 0.0
        var translation = 0.0
        var faces = 0
        var description: String {
            String(format: "%d faces, rotation max |Δ| %.2e, translation max |Δ| %.2e cm", faces, rotation, translation)
        }
    }

    static func compare(_ got: FaceGeometry, _ want: Face, _ label: String, _ worst: inout Worst) {
        #expect(got.poseTransformMatrix.count == 16 && want.matrix.count == 16, "\(label)")
        guard got.poseTransformMatrix.count == 16, want.matrix.count == 16 else { return }
        var rot = 0.0, tr = 0.0
        for r in 0..<3 {
            for c in 0..<3 { rot = max(rot, abs(got.pose(r, c) - want.matrix[r * 4 + c])) }
            tr = max(tr, abs(got.pose(r, 3) - want.matrix[r * 4 + 3]))
        }
        #expect(rot <= 1e-3, "\(label): rotation off by \(rot): \(got.poseTransformMatrix) vs \(want.matrix)")
        #expect(tr <= 0.1, "\(label): translation off by \(tr) cm: \(got.poseTransformMatrix) vs \(want.matrix)")
        #expect(Array(got.poseTransformMatrix[12...]) == [0, 0, 0, 1], "\(label)")
        worst.rotation = max(worst.rotation, rot)
        worst.translation = max(worst.translation, tr)
        worst.faces += 1
    }

    /// Every run's frames: (label, image size, MediaPipe's faces).
    static func cases() throws -> [(String, ImageSize, [Face])] {
        try TasksFixtures.runs("face_landmarker", as: Frame.self).flatMap { run in
            run.frames.map { ("\(run.source) \(run.mode) frame \($0.index)", ImageSize(width: run.width, height: run.height), $0.faces) }
        }
    }

    @Test func subgraphMatchesMediaPipeOnEveryFace() throws {
        try TasksFixtures.requireModels()
        let cases = try Self.cases()
        #expect(cases.count >= 60 && cases.filter { $0.2.count == 2 }.count >= 1)
        let text = """
            input_stream: "landmarks"
            input_stream: "size"
            output_stream: "geometry"
            node {
              calculator: "mediapipe.tasks.vision.face_geometry.FaceGeometryFromLandmarksGraph"
              input_stream: "FACE_LANDMARKS:landmarks"
              input_stream: "IMAGE_SIZE:size"
              output_stream: "FACE_GEOMETRY:geometry"
              node_options { [type.googleapis.com/mediapipe.tasks.vision.face_geometry.proto.FaceGeometryGraphOptions] {
                geometry_pipeline_options { metadata_file { file_name: "\(Self.bundle)" } }
              } }
            }
            """
        let registry = MLFixtures.registry
        let graph = try Graph(
            GraphConfig(parsing: text, file: "geometry.pbtxt"), registry: registry,
            environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        let collector = try PacketCollector(graph, "geometry")
        try graph.start()
        for (k, c) in cases.enumerated() {
            try graph.send(c.2.map(\.list), to: "landmarks", at: Timestamp(Int64(k)))
            try graph.send(c.1, to: "size", at: Timestamp(Int64(k)))
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        var worst = Worst()
        for (k, c) in cases.enumerated() {
            let got = try collector.packets.first { $0.timestamp == Timestamp(Int64(k)) }?.get([FaceGeometry].self) ?? []
            #expect(got.count == c.2.count, "\(c.0): \(got.count) geometries, MediaPipe \(c.2.count) matrices")
            for (i, (g, w)) in zip(got, c.2).enumerated() { Self.compare(g, w, "\(c.0) face \(i)", &worst) }
        }
        #expect(worst.faces == cases.reduce(0) { $0 + $1.2.count } && worst.faces >= 59)
        print("FaceGeometryTests subgraph: \(worst)")
    }

    /// The calculator on its own with `FACE_LANDMARKS` (468 points), the metadata from
    /// `metadata_file` (the bundle, and the bare .binarypb), and what its mesh must be.
    @Test func calculatorOnOneFaceAndItsMesh() throws {
        try TasksFixtures.requireModels()
        let cases = try Self.cases().filter { !$0.2.isEmpty && $0.0.contains("image") }
        #expect(cases.count >= 8 && cases.reduce(0) { $0 + $1.2.count } >= 9)
        let bundlePath = RepositoryFiles.path(Self.bundle)
        let entry = try GeometryPipelineMetadataTests.entryBytes()
        let bare = FileManager.default.temporaryDirectory.appendingPathComponent("geometry-\(getpid()).binarypb").path
        try Data(entry).write(to: URL(fileURLWithPath: bare))
        defer { try? FileManager.default.removeItem(atPath: bare) }
        let canonical = try GeometryPipelineMetadata(bytes: entry, file: "entry").canonicalMesh
        var worst = Worst()
        for file in [bundlePath, bare] {
            let runner = try CalculatorRunner(
                FaceGeometryPipelineCalculator.self, options: .init(metadataFileName: file),
                inputs: ["IMAGE_SIZE:size", "FACE_LANDMARKS:landmarks"], outputs: ["FACE_GEOMETRY:geometry"],
                sideInputs: ["ENVIRONMENT:environment"])
            runner.setSidePacket(FaceGeometryEnvironment.faceLandmarker, tag: "ENVIRONMENT")
            var t: Int64 = 0
            var expected: [Face] = []
            for c in cases {
                for face in c.2 {
                    runner.add(c.1, tag: "IMAGE_SIZE", at: Timestamp(t))
                    runner.add(NormalizedLandmarkList(Array(face.list.landmark.prefix(468))), tag: "FACE_LANDMARKS", at: Timestamp(t))
                    expected.append(face)
                    t += 1
                }
            }
            try runner.run()
            let out = try runner.outputs("FACE_GEOMETRY").map { try $0.get(FaceGeometry.self) }
            #expect(out.count == expected.count)
            for (k, (g, w)) in zip(out, expected).enumerated() {
                Self.compare(g, w, "face \(k)", &worst)
                // The mesh: the canonical one's texture coordinates and triangles, positions
                // near the canonical face's (the landmarks moved back by the pose's inverse; the
                // fixture's faces differ from it by 1.2 cm on average, 4.4 cm at most).
                #expect(g.mesh.indexBuffer == canonical.indexBuffer && g.mesh.vertexCount == canonical.vertexCount)
                var uvSame = true, far = 0.0, mean = 0.0
                for i in 0..<canonical.vertexCount {
                    uvSame =
                        uvSame && g.mesh.vertexBuffer[i * 5 + 3] == canonical.vertexBuffer[i * 5 + 3]
                        && g.mesh.vertexBuffer[i * 5 + 4] == canonical.vertexBuffer[i * 5 + 4]
                    let d = SIMD3<Double>(g.mesh.position(i) - canonical.position(i))
                    let dist = (d * d).sum().squareRoot()
                    far = max(far, dist)
                    mean += dist / Double(canonical.vertexCount)
                }
                #expect(uvSame)
                #expect(mean < 2.0 && far < 8.0, "face \(k): mesh off the canonical face by \(mean) cm on average, \(far) at worst")
                // The pose maps the mesh back onto the metric landmarks: their z is negative
                // (in front of the camera) and their x, y project onto the screen landmarks.
                let m = g.poseTransformMatrix
                let tan = Foundation.tan(63.0 / 2 * .pi / 180)
                let aspect =
                    Double(cases.first { c in c.2.contains { $0.matrix == w.matrix } }?.1.width ?? 1)
                    / Double(cases.first { c in c.2.contains { $0.matrix == w.matrix } }?.1.height ?? 1)
                var screenOff = 0.0
                for i in [1, 4, 33, 263] {
                    let p = SIMD3<Double>(g.mesh.position(i))
                    let x = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3]
                    let y = m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7]
                    let z = m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]
                    #expect(z < 0)
                    let sx = 0.5 + x / (-z) / (2 * tan * aspect), sy = 0.5 - y / (-z) / (2 * tan)
                    let l = w.list.landmark[i]
                    screenOff = max(screenOff, max(abs(sx - l.x), abs(sy - l.y)))
                }
                #expect(screenOff < 1e-4, "face \(k): mesh posed back is \(screenOff) off the landmarks on screen")
            }
        }
        print("FaceGeometryTests calculator: \(worst)")
    }

    /// Builds `text` (one graph) and returns the error, nil when it builds and runs.
    static func error(_ text: String, sidePackets: [String: any Sendable] = [:], send: ((Graph) throws -> Void)? = nil) -> String? {
        do {
            let graph = try Graph(
                GraphConfig(parsing: text, file: "probe.pbtxt"), registry: MLFixtures.registry,
                environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
            try graph.start(sidePackets: sidePackets)
            try send?(graph)
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("vertical_fov_degrees: nan near: 1 far: 100", "vertical_fov_degrees"),
        ("vertical_fov_degrees: inf near: 1 far: 100", "vertical_fov_degrees"),
        ("vertical_fov_degrees: 63 near: 1e308 far: 100", "near"),
        ("vertical_fov_degrees: 63 near: 0 far: 100", "near"),
        ("vertical_fov_degrees: 63 near: -1 far: 100", "near"),
        ("vertical_fov_degrees: 63 near: 1 far: 1", "far"),
        ("vertical_fov_degrees: 63 near: 1 far: -inf", "far"),
        ("vertical_fov_degrees: 180 near: 1 far: 100", "vertical_fov_degrees"),
        ("vertical_fov_degrees: 0 near: 1 far: 100", "vertical_fov_degrees"),
        ("vertical_fov_degrees: -30 near: 1 far: 100", "vertical_fov_degrees"),
        ("near: 1 far: 100", "vertical_fov_degrees"),
    ])
    func badCamerasAreRefusedAtGraphBuild(camera: String, field: String) {
        let text = """
            node {
              calculator: "FaceGeometryEnvGeneratorCalculator"
              output_side_packet: "ENVIRONMENT:environment"
              options { [mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions.ext] {
                environment { origin_point_location: TOP_LEFT_CORNER perspective_camera { \(camera) } } } }
            }
            """
        let e = Self.error(text)
        #expect(e != nil, "\(camera): accepted")
        #expect(e?.contains(field) == true, "\(camera): \(e ?? "")")
        #expect(e?.contains("FaceGeometryEnvGeneratorCalculator") == true, "\(camera): \(e ?? "")")
    }

    static let pipelineNode = """
        input_stream: "size"
        input_stream: "landmarks"
        node {
          calculator: "FaceGeometryEnvGeneratorCalculator"
          output_side_packet: "ENVIRONMENT:environment"
          options { [mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions.ext] {
            environment { origin_point_location: TOP_LEFT_CORNER perspective_camera { vertical_fov_degrees: 63 near: 1 far: 10000 } } } }
        }
        node {
          calculator: "FaceGeometryPipelineCalculator"
          input_side_packet: "ENVIRONMENT:environment"
          %METADATA%
          input_stream: "IMAGE_SIZE:size"
          input_stream: "MULTI_FACE_LANDMARKS:landmarks"
          output_stream: "MULTI_FACE_GEOMETRY:geometry"
          %OPTIONS%
        }
        """

    static func pipeline(metadata: Bool, options: String) -> String {
        pipelineNode.replacingOccurrences(of: "%METADATA%", with: metadata ? "input_side_packet: \"METADATA:metadata\"" : "")
            .replacingOccurrences(
                of: "%OPTIONS%",
                with: options.isEmpty
                    ? "" : "options { [mediapipe.tasks.vision.face_geometry.FaceGeometryPipelineCalculatorOptions.ext] { \(options) } }")
    }

    @Test func badMetadataAndInputsFailNamingWhat() throws {
        try TasksFixtures.requireModels()
        let entry = try GeometryPipelineMetadataTests.entryBytes()
        let face = try #require(try Self.cases().first { !$0.2.isEmpty }?.2.first)
        let fileName = "metadata_file { file_name: \"\(Self.bundle)\" }"
        func sending(_ faces: [NormalizedLandmarkList], _ size: ImageSize) -> (Graph) throws -> Void {
            { g in
                try g.send(size, to: "size", at: Timestamp(0))
                try g.send(faces, to: "landmarks", at: Timestamp(0))
            }
        }
        let ok468 = NormalizedLandmarkList(Array(face.list.landmark.prefix(468)))
        let cases: [(String, String?, [String: any Sendable], ((Graph) throws -> Void)?, [String])] = [
            ("neither", Self.pipeline(metadata: false, options: ""), [:], nil, ["METADATA", "metadata_file.file_name"]),
            ("both", Self.pipeline(metadata: true, options: fileName), ["metadata": entry], nil, ["exactly one"]),
            (
                "pointer without a task asset",
                Self.pipeline(metadata: false, options: "metadata_file { file_pointer_meta { pointer: 0 length: 19376 } }"), [:], nil,
                ["file_pointer_meta", "ModelAssets(taskAsset:)", "FaceGeometryPipelineCalculator"]
            ),
            (
                "descriptor", Self.pipeline(metadata: false, options: "metadata_file { file_descriptor_meta { fd: 3 } }"), [:], nil,
                ["file_descriptor_meta", "FaceGeometryPipelineCalculator"]
            ),
            (
                "missing file", Self.pipeline(metadata: false, options: "metadata_file { file_name: \"nowhere.task\" }"), [:], nil,
                ["nowhere.task"]
            ),
            (
                "broken bytes", Self.pipeline(metadata: true, options: ""), ["metadata": Array(entry.prefix(1000))], nil,
                ["METADATA side packet", "canonical_mesh", "FaceGeometryPipelineCalculator"]
            ),
            (
                "not a bundle entry",
                Self.pipeline(metadata: false, options: "metadata_file { file_name: \".build/fixtures/tasks/hand_landmarker.task\" }"),
                [:], nil, ["geometry_pipeline_metadata_landmarks.binarypb"]
            ),
            (
                "478 points", Self.pipeline(metadata: true, options: ""), ["metadata": entry],
                sending([face.list], ImageSize(width: 100, height: 100)),
                ["478 landmarks", "468"]
            ),
            (
                "zero size", Self.pipeline(metadata: true, options: ""), ["metadata": entry], sending([ok468], ImageSize(width: 0, height: 100)),
                ["0×100"]
            ),
            (
                "nan landmark", Self.pipeline(metadata: true, options: ""), ["metadata": entry],
                sending([NormalizedLandmarkList([NormalizedLandmark(x: .nan, y: 0)] + ok468.landmark.dropFirst())], ImageSize(width: 9, height: 9)),
                ["landmark 0 is not finite"]
            ),
        ]
        for (name, text, side, send, words) in cases {
            guard let text else { continue }
            let e = Self.error(text, sidePackets: side, send: send)
            #expect(e != nil, "\(name): accepted")
            for w in words { #expect(e?.contains(w) == true, "\(name): \(e ?? "") lacks '\(w)'") }
        }
        // A face squeezed to a point is skipped, as MediaPipe skips it; an empty list gives an
        // empty list.
        let point = NormalizedLandmarkList([NormalizedLandmark](repeating: NormalizedLandmark(x: 0.5, y: 0.5), count: 468))
        let graph = try Graph(GraphConfig(parsing: Self.pipeline(metadata: true, options: "")), registry: MLFixtures.registry)
        let out = try PacketCollector(graph, "geometry")
        try graph.start(sidePackets: ["metadata": entry])
        try graph.send([point, ok468], to: "landmarks", at: Timestamp(0))
        try graph.send(ImageSize(width: 288, height: 384), to: "size", at: Timestamp(0))
        try graph.send([NormalizedLandmarkList](), to: "landmarks", at: Timestamp(1))
        try graph.send(ImageSize(width: 288, height: 384), to: "size", at: Timestamp(1))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try out.packets.map { try $0.get([FaceGeometry].self).count } == [1, 0])
    }

    /// How FaceLandmarkerGraph wires the subgraph in: its own task options' model path
    /// forwarded into `geometry_pipeline_options.metadata_file.file_name` with `option_value`.
    @Test func aParentGraphForwardsItsModelPath() throws {
        try TasksFixtures.requireModels()
        let registry = MLFixtures.registry.adding([])
        try registry.registerSubgraph(
            GraphConfig(
                parsing: """
                    type: "test.FaceLandmarkerLike"
                    input_stream: "FACE_LANDMARKS:landmarks"
                    input_stream: "IMAGE_SIZE:size"
                    output_stream: "FACE_GEOMETRY:geometry"
                    graph_options { [type.googleapis.com/mediapipe.tasks.vision.face_landmarker.proto.FaceLandmarkerGraphOptions] {} }
                    node {
                      calculator: "mediapipe.tasks.vision.face_geometry.FaceGeometryFromLandmarksGraph"
                      input_stream: "FACE_LANDMARKS:landmarks"
                      input_stream: "IMAGE_SIZE:size"
                      output_stream: "FACE_GEOMETRY:geometry"
                      node_options { [type.googleapis.com/mediapipe.tasks.vision.face_geometry.proto.FaceGeometryGraphOptions] {} }
                      option_value: "geometry_pipeline_options/metadata_file/file_name:options/base_options/model_asset/file_name"
                    }
                    """, file: "parent.pbtxt"))
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "landmarks"
                    input_stream: "size"
                    output_stream: "geometry"
                    node {
                      calculator: "test.FaceLandmarkerLike"
                      input_stream: "FACE_LANDMARKS:landmarks"
                      input_stream: "IMAGE_SIZE:size"
                      output_stream: "FACE_GEOMETRY:geometry"
                      node_options { [type.googleapis.com/mediapipe.tasks.vision.face_landmarker.proto.FaceLandmarkerGraphOptions] {
                        base_options { model_asset { file_name: "\(Self.bundle)" } } } }
                    }
                    """, file: "top.pbtxt"), registry: registry, environment: GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]))
        let c = try #require(try Self.cases().first { $0.2.count == 2 })
        let out = try PacketCollector(graph, "geometry")
        try graph.start()
        try graph.send(c.2.map(\.list), to: "landmarks", at: Timestamp(0))
        try graph.send(c.1, to: "size", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try #require(out.packets.first).get([FaceGeometry].self)
        #expect(got.count == 2)
        var worst = Worst()
        for (g, w) in zip(got, c.2) { Self.compare(g, w, c.0, &worst) }
    }

    /// Ports connected in pairs MediaPipe does not allow fail the node's open.
    @Test(arguments: [
        ("MULTI_FACE_LANDMARKS:landmarks", "FACE_GEOMETRY:geometry", "goes with"),
        ("FACE_LANDMARKS:landmarks", "MULTI_FACE_GEOMETRY:geometry", "goes with"),
        ("", "MULTI_FACE_GEOMETRY:geometry", "exactly one of MULTI_FACE_LANDMARKS and FACE_LANDMARKS"),
    ])
    func mismatchedPortsAreRefused(input: String, output: String, words: String) throws {
        let text = """
            input_stream: "size"
            input_stream: "landmarks"
            input_side_packet: "environment"
            input_side_packet: "metadata"
            node {
              calculator: "FaceGeometryPipelineCalculator"
              input_side_packet: "ENVIRONMENT:environment"
              input_side_packet: "METADATA:metadata"
              input_stream: "IMAGE_SIZE:size"
              \(input.isEmpty ? "" : "input_stream: \"\(input)\"")
              output_stream: "\(output)"
            }
            """
        let e = Self.error(
            text, sidePackets: ["environment": FaceGeometryEnvironment.faceLandmarker, "metadata": try GeometryPipelineMetadataTests.entryBytes()])
        #expect(e?.contains(words) == true, "\(e ?? "built")")
    }

    /// The subgraph without a metadata file says what to set.
    @Test func subgraphWithoutAMetadataFileFails() {
        let text = """
            input_stream: "landmarks"
            input_stream: "size"
            node {
              calculator: "mediapipe.tasks.vision.face_geometry.FaceGeometryFromLandmarksGraph"
              input_stream: "FACE_LANDMARKS:landmarks"
              input_stream: "IMAGE_SIZE:size"
              output_stream: "FACE_GEOMETRY:geometry"
            }
            """
        let e = Self.error(text)
        #expect(e?.contains("model_asset_path is empty") == true, "\(e ?? "built")")
    }
}
