import Foundation
import FrameFlow

/// Reads resources named by side packets or options into side packets, as MediaPipe's
/// `ResourceProviderCalculator` (its model loaders since 0.10.15): resource `i` is
/// `RESOURCE_ID:i` when that side packet is connected, else the options' `resource_id[i]`, and
/// its bytes become `RESOURCE:i`. An id is a path, looked up under the resource roots first
/// (`GraphEnvironment.resolve`), as `LocalFileContentsCalculator` looks up its files. A
/// resource that cannot be read fails the node's open, naming the id.
///
/// Inputs: none. Outputs: none.
/// Side packets in: `RESOURCE_ID` (String), or `RESOURCE_ID:0`, `RESOURCE_ID:1`, … (optional
/// when the options give the ids).
/// Side packets out: `RESOURCE` ([UInt8]): one per id, same index.
/// Options: `mediapipe.ResourceProviderCalculatorOptions` { resource_id ([]), read_mode
///   (READ_MODE_UNDEFINED: binary; READ_MODE_TEXT reads the same bytes on the platforms
///   FrameFlow runs on) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ResourceProviderCalculator"
///   input_side_packet: "RESOURCE_ID:model_path"
///   output_side_packet: "RESOURCE:model_resource"
/// }
/// ```
public final class ResourceProviderCalculator: Calculator {
    /// MediaPipe's `ResourceProviderCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ResourceProviderCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.resourceProviderCalculatorOptions }

        /// How MediaPipe opens the resource; every mode gives the file's bytes here.
        public enum ReadMode: String, Codable, Sendable {
            case undefined = "READ_MODE_UNDEFINED"
            case binary = "READ_MODE_BINARY"
            case text = "READ_MODE_TEXT"
        }

        /// The ids of resources whose `RESOURCE_ID` side packet is not connected, by index.
        public var resourceId: [String] = []
        public var readMode = ReadMode.undefined
        public init() {}
    }

    /// The ids (paths) of the resources to read, one per index.
    public static let resourceID = InputSidePacket<String>("RESOURCE_ID", optional: true, repeated: true)
    /// The resources' bytes, at the index of their id.
    public static let resource = OutputSidePacket<[UInt8]>("RESOURCE", repeated: true)

    public static let contract = CalculatorContract(ports: [resourceID, resource])

    private let options: Options

    public init(options: Options) { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        let given = Set(cc.sidePacketPorts.filter { $0.tag == Self.resourceID.tag }.map(\.index))
        for i in cc.outputSidePacketPorts.filter({ $0.tag == Self.resource.tag }).map(\.index).sorted() {
            let id: String
            if given.contains(i) {
                id = try cc.get(Self.resourceID, i)
            } else if i < options.resourceId.count {
                id = options.resourceId[i]
            } else {
                throw GraphError(
                    .invalidPort, "RESOURCE:\(i) has no id: connect RESOURCE_ID:\(i) or give resource_id[\(i)] in the options",
                    node: cc.nodeName)
            }
            let bytes = try LocalFileContentsCalculator.read(id, "resource", givenAs: "the id of RESOURCE:\(i)", cc)
            try cc.set(bytes, to: Self.resource, index: i)
        }
    }

    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}
