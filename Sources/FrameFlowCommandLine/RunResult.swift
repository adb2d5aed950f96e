import FrameFlowMedia
import Foundation

/// The outcome of a run on another thread.
final class RunResult: @unchecked Sendable {  // guarded by the lock
    private let lock = NSLock()
    private var value: Result<GraphRunner.Summary, any Error>?
    func set(_ v: Result<GraphRunner.Summary, any Error>) { lock.lock(); value = v; lock.unlock() }
    var isDone: Bool { lock.lock(); defer { lock.unlock() }; return value != nil }
    func get() throws -> GraphRunner.Summary {
        lock.lock()
        defer { lock.unlock() }
        guard let value else { throw NotFinished.beforeTheEnd }
        return try value.get()
    }

    /// Asked for before the run finished (a defect of the caller).
    enum NotFinished: Error { case beforeTheEnd }
}
