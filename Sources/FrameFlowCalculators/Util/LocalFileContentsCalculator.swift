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
            try cc.set(try Self.read(try cc.get(Self.filePath, i), "file", givenAs: "FILE_PATH:\(i)", cc), to: Self.contents, index: i)
        }
    }

    /// The bytes of the file at `path`, looked up under the resource roots first; a file that
    /// cannot be read is an error naming it as `what` and `givenAs`, and the places searched.
    static func read(_ path: String, _ what: String, givenAs: String, _ cc: CalculatorContext) throws -> [UInt8] {
        let resolved = cc.environment.resolve(path)
        guard !path.isEmpty, let data = FileManager.default.contents(atPath: resolved) else {
            let shown = resolved == path ? "'\(path)'" : "'\(path)' (as '\(resolved)')"
            let searched = resolved == path ? cc.environment.placesSearched(for: path) : ""
            throw GraphError(
                .missingSidePacket, "cannot read \(what) \(shown) given as \(givenAs)\(searched)", node: cc.nodeName,
                cause: .missingFile(path: path))
        }
        return [UInt8](data)
    }

    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}

extension LocalFileContentsCalculator.Options {
    /// mediapipe/calculators/util/local_file_contents_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.localFileContentsCalculatorOptions }
}
