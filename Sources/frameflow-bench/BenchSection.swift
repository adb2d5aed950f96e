import FrameFlowArguments

/// One section of `frameflow-bench` (`edges`, `models`, …): a subcommand whose `measure()`
/// prints its rows; run alone it prints the header line first.
protocol BenchSection: ParsableCommand {
    /// Measures and prints the section's rows.
    @MainActor func measure() throws
}

extension BenchSection {
    @MainActor func run() throws {
        printBenchHeader()
        try measure()
    }
}
