import FrameFlow
import FrameFlowArguments

/// `frameflow version`, as `--version`: the version and the kernel level in use.
public struct VersionCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "version",
            abstract: "print the version and the kernel level in use (the CPU's highest, or FRAMEFLOW_KERNELS=baseline|avx2|avx512)")
    }

    public init() {}

    @MainActor public func run() throws { print(frameFlowBuildDescription) }
}
