import FrameFlowArguments
import FrameFlowDisplay
import FrameFlowMedia
import Foundation

/// Runs `runner` with `StopSignals` routed to it.
func runWithInterrupt(_ runner: GraphRunner) throws -> GraphRunner.Summary {
    StopSignals.attach(runner)
    defer { StopSignals.detach() }
    do {
        let summary = try runner.run()
        for w in summary.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
        return summary
    } catch {
        if let s = runner.lastSummary {
            for w in s.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
            FileHandle.standardError.write(Data("\(s)\n".utf8))
        }
        throw error
    }
}

/// How a command reports the end of a run.
enum SummaryStyle {
    /// One line of text on standard output.
    case text
    /// One line of JSON on standard output (`--json-summary`).
    case json
    /// Nothing (`--quiet`); errors still go to standard error.
    case quiet
}

/// Prints how a run ended; throws the run's exit status (4) when it read no frame.
func finishRun(_ summary: GraphRunner.Summary, readsInput: Bool, style: SummaryStyle = .text) throws {
    switch style {
    case .text: print(summary)
    case .json: print(summary.json)
    case .quiet: break
    }
    if summary.interrupted {
        FileHandle.standardError.write(Data("interrupted: outputs finalized\n".utf8))
    } else if readsInput && summary.framesIn == 0 {
        throw ExitRequest.failure("no frame was read from the input", status: ExitCode.noFrames)
    }
}

/// Runs `runner` on a background thread while the main thread drives the window; closing
/// the window (q, Esc) stops the input and the run finishes its outputs.
@MainActor func runWithWindow(_ runner: GraphRunner, _ window: PreviewWindow) throws -> GraphRunner.Summary {
    let box = RunnerBox(runner)
    let result = RunResult()
    let thread = Thread {
        do { result.set(.success(try runWithInterrupt(box.runner))) } catch { result.set(.failure(error)) }
    }
    thread.start()
    window.run(until: { result.isDone }, onClose: { box.runner.requestStop() })
    while !result.isDone { usleep(2000) }
    return try result.get()
}
