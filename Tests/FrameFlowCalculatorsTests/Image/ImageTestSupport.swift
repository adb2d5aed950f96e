import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting

enum Photo {
    static func rgb() throws -> ImageFrame { try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm")) }
    static func rgba() throws -> ImageFrame { try TestImages.readPNM(RepositoryFiles.fixture("astronaut_256.ppm"), rgba: true) }
    static func fixture(_ name: String) throws -> ImageFrame { try TestImages.readPNM(RepositoryFiles.fixture("image/" + name)) }

    /// The NV12 fixture (256×256, BT.601 video range) made by OpenCV.
    static func nv12() throws -> ImageFrame {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("image/nv12_video.yuv"))))
        var m = try ImagePool.shared.makeImage(width: 256, height: 256, format: .nv12(.video))
        for y in 0..<256 { m.withMutableRow(y) { r in for x in 0..<256 { r[x] = bytes[y * 256 + x] } } }
        for y in 0..<128 { m.withMutableRow(y, plane: 1) { r in for x in 0..<256 { r[x] = bytes[65536 + y * 256 + x] } } }
        return m.freeze()
    }
}

/// Largest channel difference between two images of the same size, comparing the first
/// `channels` channels of each pixel (so rgba can be checked against an rgb reference).
func maxChannelDifference(_ a: ImageFrame, _ b: ImageFrame, channels: Int = 3) -> Int {
    precondition(a.width == b.width && a.height == b.height)
    var m = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a[x, y], q = b[x, y]
            for c in 0..<min(channels, p.count, q.count) { m = max(m, abs(Int(p[c]) - Int(q[c]))) }
        }
    }
    return m
}

/// A graph file of one `calculator` node on IMAGE streams whose options extension `type`
/// holds `options`.
func imageNodeGraph(_ calculator: String, _ type: String, _ options: String) -> String {
    """
    input_stream: "in"
    output_stream: "out"
    node {
      calculator: "\(calculator)"
      input_stream: "IMAGE:in"
      output_stream: "IMAGE:out"
      options { [\(type).ext] { \(options) } }
    }
    """
}

/// The first error building `imageNodeGraph(calculator, type, options)` throws, nil if it builds.
func optionError(_ calculator: String, _ type: String, _ options: String) -> GraphError? {
    GraphBuildErrors.of(imageNodeGraph(calculator, type, options), registry: .standard).first
}

/// `image` through a graph of one `calculator` node built from text with `options`.
func runImageNode(_ calculator: String, _ type: String, _ options: String, _ image: ImageFrame) throws -> ImageFrame {
    let graph = try Graph(GraphConfig(parsing: imageNodeGraph(calculator, type, options)), registry: .standard)
    let out = try PacketCollector(graph, "out")
    try graph.start()
    try graph.send(image, to: "in", at: 0)
    try graph.closeAllInputStreams()
    try graph.waitUntilDone()
    return try out.packets[0].get(ImageFrame.self)
}
