import FrameFlowArguments

/// `frameflow-bench`: FrameFlow against reference tools on the same input, in one run,
/// printed as ratios (FrameFlow time / reference time; below 1.0 FrameFlow is faster). Each
/// section is a subcommand; without one, every section runs with its defaults.
struct BenchCommand: ParsableCommand {
    /// The sections in the order a full run prints them.
    static var sections: [any BenchSection.Type] {
        [
            EdgesBench.self, OverheadBench.self, MediaBench.self, FiltersBench.self, HaarBench.self, HOGBench.self, ModelsBench.self,
            BlazeFaceBench.self, MediaPipeBench.self, TasksBench.self, FleetBench.self, HTTPBench.self,
        ]
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "frameflow-bench", abstract: "FrameFlow against reference tools on the same input, printed as ratios",
            discussion: """
                ratio = FrameFlow time / reference time (≤ 1.0: FrameFlow as fast or faster); without a command every
                section runs in turn. Reference tools: scripts/setup.sh bench.
                """,
            subcommands: sections + [HelpCommand.self])
    }

    @Flag(help: "every section with fewer iterations, shorter clips and one round") var quick = false

    @MainActor func run() throws {
        printBenchHeader()
        for section in Self.sections {
            guard let command = try section.parseAsRoot(quick ? ["--quick"] : []) as? any BenchSection else { continue }
            try command.measure()
        }
    }
}
