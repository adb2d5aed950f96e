import FrameFlow
import FrameFlowMedia
import Foundation

/// Ctrl-C and SIGTERM (`timeout`, systemd, Kubernetes, `docker stop`), handled from the
/// start of the process: during a run they stop the input and the outputs are finalized (a
/// second one exits at once); before the run starts (loading the graph, opening sinks) they
/// stop it as soon as it starts; for other commands they exit.
public enum StopSignals {
    /// The run signals go to, whether one arrived before it, whether a run is starting (then a
    /// signal waits for it), and the installed sources; one lock, so a signal sees them together.
    private static let state = Locked<State>((nil, false, false, []))  // process-wide: signal handlers belong to the process
    private typealias State = (runner: RunnerBox?, pending: Bool, starting: Bool, sources: [any DispatchSourceSignal])

    /// Installs the handlers; call first thing.
    public static func install() {
        let sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { received() }
            source.resume()
            return source
        }
        state.withLock { $0.sources = sources }
    }

    private static func received() {
        let (runner, wasPending, starting) = state.withLock { s -> (RunnerBox?, Bool, Bool) in
            defer { s.pending = true }
            return (s.runner, s.pending, s.starting)
        }
        guard let runner else {
            if wasPending || !starting { exit(ExitCode.interrupted) }
            return  // the run about to start takes it
        }
        if runner.runner.stopRequested {
            FileHandle.standardError.write(Data("\ninterrupted again: exiting without finishing the outputs\n".utf8))
            exit(ExitCode.interrupted)
        }
        FileHandle.standardError.write(Data("\ninterrupted: finishing the outputs…\n".utf8))
        runner.runner.requestStop()
    }

    /// Called by `frameflow run` and `demo` before loading: a signal then waits for the runner.
    static func runWillStart() { state.withLock { $0.starting = true } }

    /// Routes signals to `runner` from now on (one that came before stops it at once).
    static func attach(_ runner: GraphRunner) {
        let pending = state.withLock { s -> Bool in
            s.runner = RunnerBox(runner)
            return s.pending
        }
        if pending {
            FileHandle.standardError.write(Data("\ninterrupted: finishing the outputs…\n".utf8))
            runner.requestStop()
        }
    }

    static func detach() { state.withLock { $0.runner = nil } }
}
