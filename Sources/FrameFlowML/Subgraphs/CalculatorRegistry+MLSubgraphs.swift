import FrameFlow

extension CalculatorRegistry {
    /// FrameFlowML's built-in subgraphs (MediaPipe's face detection family, …), by the names
    /// MediaPipe registers them under. They are compiled into the library as text, so a copied
    /// binary needs no resource files beside it.
    public static func mlSubgraphs() throws -> [(name: String, config: GraphConfig)] {
        let texts = [
            FaceDetectionSubgraphs.all, FaceLandmarkSubgraphs.all, HandLandmarkSubgraphs.all, LandmarkRendererSubgraphs.all,
            PoseLandmarkSubgraphs.all, SelfieSegmentationSubgraphs.all,
        ].joined()
        return try texts.map { name, text in (name, try GraphConfig(parsing: text, file: "<built-in \(name)>")) }
    }

    /// Registers `mlSubgraphs()` (a registered subgraph of the same name is replaced).
    public func registerMLSubgraphs() throws {
        for (name, config) in try Self.mlSubgraphs() { try registerSubgraph(config, as: name) }
    }

    /// The standard calculators, FrameFlowML's calculators and its built-in subgraphs.
    public static func withML() throws -> CalculatorRegistry {
        let r = CalculatorRegistry.standard.adding(mlCalculators)
        try r.registerMLSubgraphs()
        return r
    }
}
