/// `frameflow`'s exit statuses, for scripts.
public enum ExitCode {
    /// The inputs were read to their end (or `--frames`) and every output finished.
    public static let complete: Int32 = 0
    /// An error (named on standard error).
    public static let failed: Int32 = 1
    /// Bad arguments.
    public static let usage: Int32 = 2
    /// Stopped by Ctrl-C or SIGTERM; the outputs were finalized.
    public static let interrupted: Int32 = 3
    /// The inputs gave no frame (empty, unreadable or undecodable).
    public static let noFrames: Int32 = 4
}
