import FrameFlowArguments

/// `frameflow-bench fleet`: cameras per machine, a fleet of graphs on one worker pool (`FleetRow`).
struct FleetBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "fleet", abstract: "cameras per machine: a fleet of face-detection graphs on one worker pool")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false

    @MainActor func measure() throws { FleetRow.measure(repoRoot: repoRoot, quick: quick) }
}
