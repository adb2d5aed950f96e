import FrameFlow
import Synchronization

/// The latest image of a running camera, for live views and snapshots: a reference to the
/// frame (no copy, no encoding), replaced as frames pass. Which stream it comes from: the
/// first of the graph's output streams (in the graph file's order) that carries
/// `ImageFrame`s, else the graph's input (the source's frames).
///
/// Threading: `offer` is called from the graph's threads, `latest` from any thread.
public final class FrameTap: Sendable {
    private struct State {
        var frame: ImageFrame?
        var sequence = 0
        /// The rank of the stream the frames come from in this run (lower is preferred).
        var rank = Int.max
    }
    private let state = Mutex(State())

    init() {}

    /// The newest frame and its number (it grows by one with every new frame); nil before
    /// the camera's first frame.
    public var latest: (frame: ImageFrame, sequence: Int)? {
        state.withLock { s in s.frame.map { ($0, s.sequence) } }
    }

    /// A new run starts: any stream may supply frames again (the old frame stays until then).
    func runStarted() { state.withLock { $0.rank = Int.max } }

    /// A frame on the stream of rank `rank`: kept unless a preferred stream supplies frames.
    func offer(_ frame: ImageFrame, rank: Int) {
        state.withLock { s in
            guard rank <= s.rank else { return }
            s.rank = rank
            s.frame = frame
            s.sequence += 1
        }
    }
}
