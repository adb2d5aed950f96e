import FrameFlow
import FrameFlowCalculators
import FrameFlowDisplay
import FrameFlowML
import FrameFlowMQTT
import FrameFlowMedia

extension CalculatorRegistry {
    /// The registry `frameflow` uses: every built-in calculator plus the media ones, and the
    /// built-in subgraphs; a new one per command, since `--subgraph` registers into it.
    public static func commandLine() throws -> CalculatorRegistry {
        let r = CalculatorRegistry.standard.adding([DebugSnapshotCalculator.self, MQTTSinkCalculator.self] + CalculatorRegistry.mlCalculators)
        try r.registerMLSubgraphs()
        return r
    }
}
