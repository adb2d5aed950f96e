import Foundation
import FrameFlow

/// Where a graph output stream goes in `frameflow run`.
///
/// A run ends its sinks in two steps so that it either completes every output or replaces
/// none: `prepare()` on each (everything that can fail: flush, trailer, sync), then `finish()`
/// on each (making the output visible); on any error, `discard()` on each.
public protocol PacketSink: AnyObject {
    /// Writes one packet. Called from one thread at a time, in timestamp order.
    func write(_ packet: Packet) throws
    /// Completes the output without making it visible yet (flush, trailer, close, sync).
    func prepare() throws
    /// Finishes the output (after `prepare()`, which it calls if it was not): files are moved
    /// into place. Called once, after a run that succeeded or was interrupted.
    func finish() throws
    /// Abandons the output: removes its temporary files and leaves the destination as it was.
    /// Called instead of `finish` when the run failed, or after `finish` failed.
    func discard()
}

extension PacketSink {
    /// Nothing to complete before `finish`.
    public func prepare() throws {}
    /// Nothing to remove.
    public func discard() {}
}

/// Discards packets (counts them; the count may be read from any thread while it runs).
public final class NullSink: PacketSink, Sendable {
    private let counter = AtomicCounter()
    /// Packets written so far.
    public var count: Int { counter.current }
    public init() {}
    public func write(_ packet: Packet) throws { counter.add(1) }
    public func finish() throws {}
}
