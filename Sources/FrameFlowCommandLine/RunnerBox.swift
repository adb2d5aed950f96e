import FrameFlowMedia

/// A runner handed across threads; `@unchecked Sendable`: `requestStop` is atomic.
final class RunnerBox: @unchecked Sendable {
    let runner: GraphRunner
    init(_ runner: GraphRunner) { self.runner = runner }
}
