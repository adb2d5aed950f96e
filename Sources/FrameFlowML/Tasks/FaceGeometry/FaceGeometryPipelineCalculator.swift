import Foundation
import FrameFlow
import FrameFlowInference

/// Face poses and metric meshes from face landmarks, as MediaPipe's
/// `FaceGeometryPipelineCalculator` (see `FaceGeometryPipeline` for the steps): per face a
/// `FaceGeometry` whose `poseTransformMatrix` is what FaceLandmarker reports as the facial
/// transformation matrix.
///
/// Inputs: `IMAGE_SIZE` (ImageSize) and either `MULTI_FACE_LANDMARKS`
///   ([NormalizedLandmarkList]) or `FACE_LANDMARKS` (NormalizedLandmarkList); each face must
///   have as many landmarks as the canonical mesh has vertices (468: drop the iris points).
/// Outputs: `MULTI_FACE_GEOMETRY` ([FaceGeometry]) with `MULTI_FACE_LANDMARKS`, or
///   `FACE_GEOMETRY` (FaceGeometry) with `FACE_LANDMARKS`; at the inputs' timestamp, once
///   both inputs have a packet. Faces too compact to fit (all landmarks within 1e-3 of their
///   mean) are left out; for `FACE_LANDMARKS` nothing is sent then.
/// Side packets in: `ENVIRONMENT` (`FaceGeometryEnvironment`, from
///   `FaceGeometryEnvGeneratorCalculator`); `METADATA` ([UInt8], optional): the serialized
///   `GeometryPipelineMetadata`, e.g. `ModelAssetCalculator`'s `CONTENTS` of a face_landmarker
///   .task's `geometry_pipeline_metadata_landmarks.binarypb`.
/// Options: `mediapipe.tasks.vision.face_geometry.FaceGeometryPipelineCalculatorOptions` {
///   metadata_file { file_name }: the metadata file instead of `METADATA` (a .binarypb, or a
///   .task bundle whose `geometry_pipeline_metadata_landmarks.binarypb` is read) }.
///   Exactly one of the two must be given. MediaPipe's `file_pointer_meta` (its expanded
///   FaceLandmarker graphs point into the loaded .task bundle) reads that entry of the graph's
///   `ModelAssets.taskAsset` instead (an error without one); `file_descriptor_meta` and
///   `file_content` are refused with a message saying so.
///
/// Broken metadata fails the node's open naming the file and field; an invalid environment,
/// a non-positive image size, a face with the wrong number of landmarks or non-finite ones
/// fail the node naming the face.
///
/// Example usage:
/// ```
/// node {
///   calculator: "FaceGeometryPipelineCalculator"
///   input_side_packet: "ENVIRONMENT:environment"
///   input_side_packet: "METADATA:geometry_metadata"
///   input_stream: "IMAGE_SIZE:image_size"
///   input_stream: "MULTI_FACE_LANDMARKS:multi_face_landmarks"
///   output_stream: "MULTI_FACE_GEOMETRY:multi_face_geometry"
/// }
/// ```
public final class FaceGeometryPipelineCalculator: Calculator {
    /// The name MediaPipe's expanded FaceLandmarker graphs use.
    public static var aliases: [String] { ["mediapipe.tasks.vision.face_geometry.FaceGeometryPipelineCalculator"] }
    /// Where the metadata is read from when no `METADATA` side packet is given.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.tasks.vision.face_geometry.FaceGeometryPipelineCalculatorOptions"
        public static var protoSchema: ProtoSchema? {
            MediaPipeOptionSchemas.tasksVisionFace_geometryFaceGeometryPipelineCalculatorOptions
        }

        /// `mediapipe.tasks.core.proto.ExternalFile`: FrameFlow reads `file_name`; the other
        /// ways MediaPipe passes a file are accepted by the parser only to be refused clearly.
        public struct ExternalFile: Codable, Sendable, Equatable {
            /// A `{ pointer length }` or `{ fd length offset }` message, refused.
            public struct Meta: Codable, Sendable, Equatable {
                public var pointer: Int64?
                public var fd: Int64?
                public var length: Int64?
                public var offset: Int64?
            }
            /// The metadata file (relative: under the resource roots).
            public var fileName = ""
            /// Refused: the bytes inline.
            public var fileContent: String?
            /// Refused: an address in MediaPipe's memory.
            public var filePointerMeta: Meta?
            /// Refused: an open file descriptor.
            public var fileDescriptorMeta: Meta?
            public init(fileName: String = "") { self.fileName = fileName }
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                fileName = try c.decodeIfPresent(String.self, forKey: .fileName) ?? ""
                fileContent = try c.decodeIfPresent(String.self, forKey: .fileContent)
                filePointerMeta = try c.decodeIfPresent(Meta.self, forKey: .filePointerMeta)
                fileDescriptorMeta = try c.decodeIfPresent(Meta.self, forKey: .fileDescriptorMeta)
            }
        }

        /// The metadata file.
        public var metadataFile: ExternalFile?
        public init() {}
        /// Options reading the metadata from `metadataFileName`.
        public init(metadataFileName: String) { metadataFile = ExternalFile(fileName: metadataFileName) }

        public func validate() throws {
            guard let f = metadataFile else { return }
            let refused = [
                ("file_content", f.fileContent != nil), ("file_descriptor_meta", f.fileDescriptorMeta != nil),
            ]
            if let (name, _) = refused.first(where: \.1) {
                throw GraphError(
                    .invalidOption,
                    "metadata_file.\(name) cannot be read by FrameFlow: give metadata_file.file_name, file_pointer_meta with the task's ModelAssets, or the METADATA side packet"
                )
            }
        }
    }

    /// The entry of a face_landmarker .task bundle that holds the metadata.
    public static let bundleEntry = "geometry_pipeline_metadata_landmarks.binarypb"

    /// The image the landmarks are in.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// Every face's landmarks.
    public static let multiFaceLandmarks = InputPort<[NormalizedLandmarkList]>("MULTI_FACE_LANDMARKS", optional: true)
    /// One face's landmarks.
    public static let faceLandmarks = InputPort<NormalizedLandmarkList>("FACE_LANDMARKS", optional: true)
    /// Every face's geometry.
    public static let multiFaceGeometry = OutputPort<[FaceGeometry]>("MULTI_FACE_GEOMETRY", optional: true)
    /// The face's geometry.
    public static let faceGeometry = OutputPort<FaceGeometry>("FACE_GEOMETRY", optional: true)
    /// The virtual camera.
    public static let environmentIn = InputSidePacket<FaceGeometryEnvironment>("ENVIRONMENT")
    /// The serialized metadata.
    public static let metadataIn = InputSidePacket<[UInt8]>("METADATA", optional: true)

    public static let contract = CalculatorContract(ports: [
        imageSize, multiFaceLandmarks, faceLandmarks, multiFaceGeometry, faceGeometry, environmentIn, metadataIn,
    ])

    private let options: Options
    private let graphEnvironment: GraphEnvironment
    private var pipeline: FaceGeometryPipeline?

    public convenience init(options: Options) throws { try self.init(options: options, environment: GraphEnvironment()) }

    public init(options: Options, environment: GraphEnvironment) throws {
        try options.validate()
        self.options = options
        graphEnvironment = environment
    }

    public func open(_ cc: CalculatorContext) throws {
        let multi = cc.isConnected(Self.multiFaceLandmarks), single = cc.isConnected(Self.faceLandmarks)
        guard multi != single else {
            throw GraphError(.invalidPort, "connect exactly one of MULTI_FACE_LANDMARKS and FACE_LANDMARKS", node: cc.nodeName)
        }
        guard
            multi
                ? cc.isConnected(Self.multiFaceGeometry) && !cc.isConnected(Self.faceGeometry)
                : cc.isConnected(Self.faceGeometry) && !cc.isConnected(Self.multiFaceGeometry)
        else {
            throw GraphError(
                .invalidPort, "MULTI_FACE_LANDMARKS goes with MULTI_FACE_GEOMETRY, FACE_LANDMARKS with FACE_GEOMETRY", node: cc.nodeName)
        }
        let bytes = try cc.value(Self.metadataIn)
        let fileName = options.metadataFile?.fileName ?? ""
        let pointer = options.metadataFile?.filePointerMeta != nil
        guard [bytes != nil, !fileName.isEmpty, pointer].filter({ $0 }).count == 1 else {
            throw GraphError(
                .invalidOption,
                "give the metadata as exactly one of the METADATA side packet, metadata_file.file_name and metadata_file.file_pointer_meta",
                node: cc.nodeName)
        }
        let metadata: GeometryPipelineMetadata
        do {
            if let bytes {
                metadata = try GeometryPipelineMetadata(bytes: bytes, file: "METADATA side packet")
            } else if pointer {
                // MediaPipe's pointer is into the task's bundle in memory: here, the graph's task asset.
                guard let task = cc.environment.service(ModelAssets.self)?.taskAsset else {
                    throw GraphError(
                        .invalidOption,
                        "metadata_file.file_pointer_meta points into the task's bundle: give the graph ModelAssets(taskAsset:) with the face_landmarker .task file"
                    )
                }
                let (data, name) = try ModelAssetCalculator.read(.init(modelAssetPath: task, entry: Self.bundleEntry), environment: cc.environment)
                metadata = try GeometryPipelineMetadata(bytes: data, file: name)
            } else {
                let (data, name) = try Self.readMetadataFile(fileName, environment: graphEnvironment)
                metadata = try GeometryPipelineMetadata(bytes: data, file: name)
            }
            pipeline = try FaceGeometryPipeline(environment: try cc.get(Self.environmentIn), metadata: metadata)
        } catch var e as GraphError {
            if e.node == nil { e.node = cc.nodeName }
            throw e
        }
    }

    /// The metadata file's bytes and its name for errors: a ZIP bundle (a ZIP entry
    /// signature in its first 8 bytes: .task files may start with padding) gives its
    /// `bundleEntry`, anything else is taken whole as the serialized message.
    static func readMetadataFile(_ fileName: String, environment: GraphEnvironment) throws -> (bytes: [UInt8], name: String) {
        let path = environment.resolve(fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            let searched = path == fileName ? environment.placesSearched(for: path) : ""
            throw GraphError(.invalidOption, "cannot read the metadata file '\(fileName)'\(searched)", cause: .missingFile(path: fileName))
        }
        let bytes = [UInt8](data)
        let head = bytes.prefix(8)
        let isZip = head.indices.contains { i in
            i + 3 < head.endIndex && head[i] == 0x50 && head[i + 1] == 0x4B && head[i + 2] == 0x03 && head[i + 3] == 0x04
        }
        guard isZip else { return (bytes, path) }
        do {
            let bundle = try ModelBundle(bytes: bytes, name: path)
            return (try bundle.data(bundleEntry), bundle.path(of: bundleEntry))
        } catch let e as ModelError {
            throw GraphError(.invalidOption, e.message, cause: .invalidModelAsset(asset: "\(fileName)/\(bundleEntry)"))
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let pipeline, let size = try cc.value(Self.imageSize) else { return }
        do {
            if cc.isConnected(Self.multiFaceLandmarks) {
                guard let faces = try cc.value(Self.multiFaceLandmarks) else { return }
                try cc.emit(try pipeline.estimate(faces, width: size.width, height: size.height), to: Self.multiFaceGeometry)
            } else {
                guard let face = try cc.value(Self.faceLandmarks) else { return }
                if let g = try pipeline.estimate([face], width: size.width, height: size.height).first {
                    try cc.emit(g, to: Self.faceGeometry)
                }
            }
        } catch var e as GraphError {
            if e.node == nil { e.node = cc.nodeName }
            throw e
        }
    }
}
