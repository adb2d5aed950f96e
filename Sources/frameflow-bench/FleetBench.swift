import FrameFlowArguments

/// `frameflow-bench fleet`: cameras per machine, a fleet of graphs on one worker pool (`FleetRow`),
/// what motion gating saves on mostly static scenes (`MotionGateRow`), and what batching one
/// model's runs saves per frame (`BatchRow`).
struct FleetBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fleet",
            abstract: "cameras per machine: a fleet of face-detection graphs on one worker pool; motion-gated people detection; batched BlazeFace")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false
    @Flag(help: "only the motion-gated people detection rows") var motionOnly = false
    @Flag(help: "only the batched-BlazeFace row (time per frame at batch 1, 2, 4, 8)") var batchOnly = false
    @Option(help: "alternating rounds of the motion CPU row and the batch row (at least 1; the median and spread are over them)") var rounds = 3

    @MainActor func measure() throws {
        if batchOnly {
            BatchRow.measure(repoRoot: repoRoot, quick: quick, rounds: rounds)
            return
        }
        if !motionOnly { FleetRow.measure(repoRoot: repoRoot, quick: quick) }
        MotionGateRow.measure(repoRoot: repoRoot, quick: quick, rounds: rounds)
        if !motionOnly { BatchRow.measure(repoRoot: repoRoot, quick: quick, rounds: rounds) }
    }
}
