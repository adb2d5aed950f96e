import FrameFlowArguments
import FrameFlowML

/// `frameflow onnx-conformance [DIR] [--op OP] [--failures]`: ONNX's node tests, a per-op table.
public struct ONNXConformanceCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "onnx-conformance", abstract: "run ONNX's node tests (libonnx-testdata); print a per-op table")
    }

    /// The node tests' folder.
    @Argument(valueName: "DIR", help: "the node tests' folder (default: \(ONNXConformance.defaultDirectory))")
    public var directory: String?
    /// `--op OP`.
    @Option(valueName: "OP", help: "only the tests of this operator") public var op: String?
    /// `--failures`.
    @Flag(help: "print each failure's reason") public var failures = false

    public init() {}

    @MainActor public func run() throws {
        let results = ONNXConformance.run(directory: directory ?? ONNXConformance.defaultDirectory)
        let shown = op.map { op in results.filter { $0.ops.contains(op) } } ?? results
        print(ONNXConformance.table(shown))
        if failures {
            for r in shown { if case .failed(let why) = r.outcome { print("FAIL \(r.name): \(why)") } }
        }
        let passed = shown.filter { $0.outcome == .passed }.count
        let failed = shown.filter {
            if case .failed = $0.outcome { return true }
            return false
        }.count
        print("\(passed) passed, \(failed) failed, \(shown.count - passed - failed) unsupported")
    }
}
