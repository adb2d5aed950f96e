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

    /// Assets by name.
    public init(_ assets: [String: [UInt8]]) { self.assets = assets }

    /// The bytes of the asset named `name`, or nil.
    public func bytes(named name: String) -> [UInt8]? { assets[name] }
}
