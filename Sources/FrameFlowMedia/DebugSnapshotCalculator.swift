import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// Passes images through unchanged and writes every N-th one as a PNG into a folder,
/// named by tag and timestamp (`{tag}_{timestamp_us}.png`): a look at intermediate images
/// of a running graph.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame`; a snapshot of a format PNG cannot hold (`rgba_f32`) is an
///     error naming the stream.
/// Outputs:
///   - `IMAGE`: the same packets (optional).
/// Options: `frameflow.DebugSnapshotCalculatorOptions` { folder ("debug"), every_n (30;
/// 1…1000000000), tag ("snapshot") }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DebugSnapshotCalculator"
///   input_stream: "IMAGE:luma_video"
///   output_stream: "IMAGE:luma_video_checked"
///   options { [frameflow.DebugSnapshotCalculatorOptions.ext] { folder: "snapshots" every_n: 10 tag: "luma" } }
/// }
/// ```
public final class DebugSnapshotCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.DebugSnapshotCalculatorOptions"
        public var folder = "debug"
        public var everyN = 30
        public var tag = "snapshot"
        public init() {}

        /// The header's range.
        public func validate() throws { try OptionCheck.range(everyN, 1...1_000_000_000, "every_n") }
    }

    /// The frames to snapshot.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The frames, passed on as they came.
    public static let passThrough = OutputPort<ImageFrame>("IMAGE", optional: true)

    public static let contract = CalculatorContract(ports: [image, passThrough])

    private var options: Options
    private var count = 0
    /// Files written so far.
    public private(set) var written: [String] = []

    public init(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func update(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        try FileManager.default.createDirectory(atPath: options.folder, withIntermediateDirectories: true)
    }

    public func process(_ cc: CalculatorContext) throws {
        let packet = cc.input(Self.image.tag)
        guard !packet.isEmpty else { return }
        if count % options.everyN == 0 {
            let image = try packet.get(ImageFrame.self, stream: cc.inputStreamName(Self.image.tag) ?? Self.image.tag)
            guard image.format.avPixelFormat != AV_PIX_FMT_NONE else {
                throw GraphError(.calculatorFailed, "cannot write a \(image.format) image as PNG", stream: cc.inputStreamName(Self.image.tag))
            }
            let path = (options.folder as NSString).appendingPathComponent("\(options.tag)_\(cc.inputTimestamp.microseconds).png")
            try ImageFileWriter.write(image, to: path)
            written.append(path)
        }
        count += 1
        // The payload goes on as it came: frames not written are not cast to ImageFrame.
        if cc.isConnected(Self.passThrough), let payload = packet.payload { try cc.emit(payload, tag: Self.passThrough.tag) }
    }
}
