import FrameFlowArguments
import FrameFlowCommandLine
import Foundation

/// `frameflow`: validate, inspect and run FrameFlow graphs (`FrameFlowCommand` and its
/// subcommands, in FrameFlowCommandLine).

// A file-size limit (ulimit -f) must make writes fail with an error we report, not kill us:
// ignored, and also blocked before any thread starts (threads inherit the mask), so that no
// signal interposer (ThreadSanitizer's runtime) can turn it back into a fatal signal.
signal(SIGXFSZ, SIG_IGN)
var fileSizeSignal = sigset_t()
sigemptyset(&fileSizeSignal)
sigaddset(&fileSizeSignal, SIGXFSZ)
pthread_sigmask(SIG_BLOCK, &fileSizeSignal, nil)
// Ctrl-C and SIGTERM finish the outputs; a parent that started us with them blocked (test
// runners, some supervisors) would leave a run that cannot be stopped cleanly.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
StopSignals.install()

FrameFlowCommand.main()
