import FrameFlow

/// MediaPipe's image tags for calculators that take `IMAGE` (an `Image`), `IMAGE_CPU` (an
/// `ImageFrame`) or `IMAGE_GPU` (a `GpuBuffer`); FrameFlow has only `ImageFrame`.
enum ImageTags {
    /// The three image inputs, each optional; `singleInput` picks the one connected.
    static let inputs: [PortSpec] = [
        .init("IMAGE", ImageFrame.self, optional: true), .init("IMAGE_CPU", ImageFrame.self, optional: true),
        .init("IMAGE_GPU", optional: true),
    ]

    /// The one image input the node connects, `IMAGE` or `IMAGE_CPU`.
    /// - Throws: `GraphError(.invalidPort)` for `IMAGE_GPU`, for none, or for more than one.
    static func singleInput(_ cc: CalculatorContext, calculator: String) throws -> String {
        if cc.hasInputPort("IMAGE_GPU") {
            throw GraphError(
                .invalidPort, "\(calculator): IMAGE_GPU is not supported (FrameFlow has no GPU images); use IMAGE or IMAGE_CPU",
                node: cc.nodeName, stream: cc.inputStreamName("IMAGE_GPU"))
        }
        return try cc.connectedInputTag(oneOf: ["IMAGE", "IMAGE_CPU"])
    }
}
