// ModelBundle: a MediaPipe Tasks model asset bundle (a `.task` file): a ZIP archive of the
// models (`.tflite`), nested bundles (`.task`) and other assets (`.binarypb`) one task runs,
// each found by a fixed entry name.
//
// Contract (MediaPipe 0.10.21, mediapipe/tasks/cc/core/model_asset_bundle_resources.cc and the
// vision task graphs):
// - The bundle is read as `ZipArchive` reads it; its entries are looked up by exact name, as
//   MediaPipe's resources look up `kHandDetectorTFLiteName` and the like (`Asset`).
// - A missing entry is a `ModelError` naming the bundle, the entry wanted and the entries
//   present, as MediaPipe's `GetFile` reports it.
// - A nested bundle (`hand_landmarker.task` inside `gesture_recognizer.task`) is opened from the
//   entry's bytes, named `outer.task/inner.task` in errors, at most
//   `BundleLimits.maxNestingDepth` levels deep.
// - MediaPipe only reads stored entries; FrameFlow reads deflated ones too.

import Foundation

/// A MediaPipe Tasks model bundle (`.task`): the models and assets of one task, by entry name.
///
/// ```swift
/// let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: "gesture_recognizer.task"))
/// let hands = try bundle.bundle(.handLandmarker)
/// let detector = try Model.load(tflite: try hands.data(.handDetector),
///                               file: hands.path(of: .handDetector), limits: ResourceLimits())
/// ```
public struct ModelBundle: Sendable {
    /// The entry names MediaPipe's task graphs look up in their bundles.
    public enum Asset: String, Sendable, CaseIterable {
        /// The face detector model (`FaceLandmarkerGraph`'s `kFaceDetectorTFLiteName`).
        case faceDetector = "face_detector.tflite"
        /// The face landmarks model (`kFaceLandmarksDetectorTFLiteName`).
        case faceLandmarksDetector = "face_landmarks_detector.tflite"
        /// The face blendshapes model (`kFaceBlendshapeTFLiteName`), optional in a face landmarker.
        case faceBlendshapes = "face_blendshapes.tflite"
        /// The face geometry pipeline's metadata, a binary `GeometryPipelineMetadata` proto
        /// (`kFaceGeometryPipelineMetadataName`).
        case faceGeometryPipelineMetadata = "geometry_pipeline_metadata_landmarks.binarypb"
        /// The palm detector model (`HandLandmarkerGraph`'s `kHandDetectorTFLiteName`).
        case handDetector = "hand_detector.tflite"
        /// The hand landmarks model (`kHandLandmarksDetectorTFLiteName`).
        case handLandmarksDetector = "hand_landmarks_detector.tflite"
        /// The hand landmarker bundle inside a gesture recognizer (`kHandLandmarkerBundleAssetName`).
        case handLandmarker = "hand_landmarker.task"
        /// The gesture classifier bundle inside a gesture recognizer
        /// (`kHandGestureRecognizerBundleAssetName`).
        case handGestureRecognizer = "hand_gesture_recognizer.task"
        /// The gesture embedding model (`HandGestureRecognizerGraph`'s `kGestureEmbedderTFLiteName`).
        case gestureEmbedder = "gesture_embedder.tflite"
        /// The classifier of the built-in gestures (`kCannedGestureClassifierTFLiteName`).
        case cannedGestureClassifier = "canned_gesture_classifier.tflite"
        /// A classifier of custom gestures (`kCustomGestureClassifierTFLiteName`), optional.
        case customGestureClassifier = "custom_gesture_classifier.tflite"
        /// The pose detector model (`PoseLandmarkerGraph`'s `kPoseDetectorTFLiteName`).
        case poseDetector = "pose_detector.tflite"
        /// The pose landmarks model (`kPoseLandmarksDetectorTFLiteName`).
        case poseLandmarksDetector = "pose_landmarks_detector.tflite"
    }

    /// The bundle's name in errors: the file's path, or `outer.task/inner.task` when nested.
    public let name: String
    /// How many bundles this one is nested in (0 for a bundle opened from a file or bytes).
    public let depth: Int
    /// The limits the bundle was opened under; nested bundles keep them.
    public let limits: BundleLimits
    /// The archive the bundle is read from.
    public let archive: ZipArchive

    /// Opens the bundle in `bytes`; `name` names it in errors.
    /// - Throws: `ModelError` naming the bundle when the bytes are not a ZIP archive
    ///   `ZipArchive` reads within `limits`.
    public init(bytes: [UInt8], name: String, limits: BundleLimits = BundleLimits()) throws {
        try self.init(bytes: bytes, name: name, depth: 0, limits: limits)
    }

    /// Opens the bundle file at `url`.
    /// - Throws: `ModelError` naming the file when it cannot be read or is no bundle.
    public init(contentsOf url: URL, limits: BundleLimits = BundleLimits()) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ModelError("\(url.path): cannot read the bundle (\(error.localizedDescription))", cause: .missingFile(path: url.path))
        }
        try self.init(bytes: [UInt8](data), name: url.path, limits: limits)
    }

    private init(bytes: [UInt8], name: String, depth: Int, limits: BundleLimits) throws {
        self.name = name
        self.depth = depth
        self.limits = limits
        archive = try ZipArchive(bytes: bytes, name: name, limits: limits)
    }

    /// The entries' names, in the archive's order.
    public var entryNames: [String] { archive.entries.map(\.name) }

    /// Whether the bundle has an entry named `entry`.
    public func contains(_ entry: String) -> Bool { archive.entry(named: entry) != nil }

    /// Whether the bundle has `asset`.
    public func contains(_ asset: Asset) -> Bool { contains(asset.rawValue) }

    /// `entry`'s name as errors and loaded models show it: `bundle/entry`.
    public func path(of entry: String) -> String { "\(name)/\(entry)" }

    /// `asset`'s name as errors and loaded models show it: `bundle/asset`.
    public func path(of asset: Asset) -> String { path(of: asset.rawValue) }

    /// The bytes of the entry named `entry`.
    /// - Throws: `ModelError` naming the bundle, `entry` and the entries present when there is
    ///   none of that name, or naming the entry when its bytes cannot be read.
    public func data(_ entry: String) throws -> [UInt8] { try archive.data(named: entry) }

    /// The bytes of `asset`.
    /// - Throws: as `data(_:)` for its entry name.
    public func data(_ asset: Asset) throws -> [UInt8] { try data(asset.rawValue) }

    /// The bundle in the entry named `entry`, one level deeper.
    /// - Throws: `ModelError` when the entry is missing or no bundle, or when it would be
    ///   nested deeper than `limits.maxNestingDepth`.
    public func bundle(_ entry: String) throws -> ModelBundle {
        guard depth < limits.maxNestingDepth else {
            throw ModelError(
                "\(path(of: entry)): a bundle nested \(depth + 1) deep, over the limit of \(limits.maxNestingDepth) (BundleLimits.maxNestingDepth)")
        }
        return try ModelBundle(bytes: try data(entry), name: path(of: entry), depth: depth + 1, limits: limits)
    }

    /// The bundle in `asset` (`.handLandmarker`, `.handGestureRecognizer`).
    /// - Throws: as `bundle(_:)` for its entry name.
    public func bundle(_ asset: Asset) throws -> ModelBundle { try bundle(asset.rawValue) }

    /// The TFLite metadata of the model in the entry named `entry`; nil when the model has none.
    /// - Throws: `ModelError` when the entry is missing, is not a TFLite model, or its metadata
    ///   is malformed.
    public func metadata(_ entry: String) throws -> TFLiteMetadata? {
        try TFLiteMetadata(tflite: try data(entry), file: path(of: entry), limits: limits)
    }

    /// The TFLite metadata of the model `asset`; nil when the model has none.
    /// - Throws: as `metadata(_:)` for its entry name.
    public func metadata(_ asset: Asset) throws -> TFLiteMetadata? { try metadata(asset.rawValue) }
}
