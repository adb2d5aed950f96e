import Foundation
import FrameFlow

/// Reads files named by side packets into side packets, as MediaPipe's
/// `LocalFileContentsCalculator`: the bytes of the file at `FILE_PATH:i` become `CONTENTS:i`.
/// A relative path is looked up under the resource root first (`GraphEnvironment.resolve`). A
/// file that cannot be read fails the node's open, naming the path.
///
/// Inputs: none. Outputs: none.
/// Side packets in: `FILE_PATH` (String), or `FILE_PATH:0`, `FILE_PATH:1`, … for several files.
/// Side packets out: `CONTENTS` ([UInt8]): one per `FILE_PATH`, same index.
/// Options: `mediapipe.LocalFileContentsCalculatorOptions` { text_mode (false) }: accepted; on
///   the platforms FrameFlow runs on, text and binary reads give the same bytes.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LocalFileContentsCalculator"
///   input_side_packet: "FILE_PATH:model_path"
///   output_side_packet: "CONTENTS:model_blob"
/// }
/// ```
public final class LocalFileContentsCalculator: Calculator {
    /// MediaPipe's `LocalFileContentsCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LocalFileContentsCalculatorOptions"
        /// MediaPipe's file open mode (`r` instead of `rb`); the bytes read are the same.
        public var textMode = false
        public init() {}
    }

    /// The paths of the files to read, one per index.
    public static let filePath = InputSidePacket<String>("FILE_PATH", repeated: true)
    /// The files' bytes, at the index of their path.
    public static let contents = OutputSidePacket<[UInt8]>("CONTENTS", repeated: true)

    public static let contract = CalculatorContract(ports: [filePath, contents])

    public init(options: Options) {}

    public func open(_ cc: CalculatorContext) throws {
        let paths = cc.sidePacketPorts.filter { $0.tag == Self.filePath.tag }.map(\.index).sorted()
        let contents = cc.outputSidePacketPorts.filter { $0.tag == Self.contents.tag }.map(\.index).sorted()
        guard paths == contents else {
            throw GraphError(
                .invalidPort,
                "LocalFileContentsCalculator needs one CONTENTS per FILE_PATH, same indexes "
                    + "(FILE_PATH: \(paths), CONTENTS: \(contents))", node: cc.nodeName)
        }
        for i in paths {
            let path = try cc.get(Self.filePath, i)
            let resolved = cc.environment.resolve(path)
            guard let data = FileManager.default.contents(atPath: resolved) else {
                let shown = resolved == path ? "'\(path)'" : "'\(path)' (as '\(resolved)')"
                let searched = resolved == path ? cc.environment.placesSearched(for: path) : ""
                throw GraphError(
                    .missingSidePacket, "cannot read file \(shown) given as FILE_PATH:\(i)\(searched)", node: cc.nodeName,
                    cause: .missingFile(path: path))
            }
            try cc.set([UInt8](data), to: Self.contents, index: i)
        }
    }

    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}

extension LocalFileContentsCalculator.Options {
    /// mediapipe/calculators/util/local_file_contents_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.localFileContentsCalculatorOptions }
}
