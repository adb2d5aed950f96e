import FrameFlow

/// Model assets held in memory under names, for graphs that get a model as bytes instead of a
/// file (MediaPipe Tasks' `BaseOptions.modelAssetBuffer`): a `ModelAssetCalculator` whose
/// `model_asset_path` is one of the names reads these bytes, not the file system. Given to a
/// graph as a `GraphEnvironment` service.
///
/// ```swift
/// let assets = ModelAssets(["memory:face": bytes])
/// let environment = GraphEnvironment().with(assets)
/// ```
public final class ModelAssets: Sendable {
    private let assets: [String: [UInt8]]
    /// The task's model asset (a `.task` bundle or `.tflite` file) that the
    /// `ModelResourcesCalculator`s of MediaPipe's expanded Tasks graphs take their models from.
    public let taskAsset: String?

    /// Assets by name, and the task asset of an expanded Tasks graph.
    public init(_ assets: [String: [UInt8]] = [:], taskAsset: String? = nil) {
        self.assets = assets
        self.taskAsset = taskAsset
    }

    /// The bytes of the asset named `name`, or nil.
    public func bytes(named name: String) -> [UInt8]? { assets[name] }
}
