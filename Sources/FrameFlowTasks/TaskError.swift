/// Why a task could not be created or could not process a frame. Each case names the option,
/// the model entry or the call at fault.
public enum TaskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option's value is outside what the task accepts: its name and why.
    case invalidOption(name: String, reason: String)
    /// The model asset cannot be used: the asset (and entry) and why.
    case modelAsset(String)
    /// A call that does not fit the task's running mode (`detect(image:)` on a video task).
    case wrongRunningMode(call: String, mode: RunningMode)
    /// Timestamps of video frames and live-stream images must increase.
    case timestampOrder(got: Int, after: Int)
    /// The task's graph failed on a frame.
    case failed(String)

    public var description: String {
        switch self {
        case .invalidOption(let name, let reason): "option \(name): \(reason)"
        case .modelAsset(let message): "model asset: \(message)"
        case .wrongRunningMode(let call, let mode): "\(call) cannot be used in running mode \(mode)"
        case .timestampOrder(let got, let after): "timestamps must increase: got \(got) ms after \(after) ms"
        case .failed(let message): message
        }
    }
}
