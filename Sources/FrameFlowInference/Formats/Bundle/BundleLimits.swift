// BundleLimits: what a ZIP archive (a MediaPipe Tasks `.task` bundle, or the associated files
// appended to a `.tflite` model) may make FrameFlow hold or inflate. Archives are untrusted: a
// crafted one that declares millions of entries, gigabytes of inflated data or endless nesting
// is refused with a `ModelError` before anything of that size is allocated.

/// Limits on what a ZIP archive (`ZipArchive`, `ModelBundle`, `TFLiteMetadata`'s associated
/// files) may declare: entries, name lengths, inflated sizes and nested bundles.
///
/// ```swift
/// var limits = BundleLimits()
/// limits.maxEntryBytes = 64 << 20  // no entry over 64 MiB
/// let bundle = try ModelBundle(contentsOf: url, limits: limits)
/// ```
public struct BundleLimits: Sendable, Equatable {
    /// Entries in one archive's central directory.
    public var maxEntries: Int = 4096
    /// Bytes in one entry's name.
    public var maxNameLength: Int = 1024
    /// Uncompressed bytes of one entry (1 GiB): a deflated entry that declares more, or
    /// inflates to more than it declares, is refused.
    public var maxEntryBytes: Int = 1 << 30
    /// Uncompressed bytes of all the entries of one archive together (2 GiB).
    public var maxTotalBytes: Int = 1 << 31
    /// Bundles inside bundles: `ModelBundle.bundle(_:)` opens at most this many levels below
    /// the outermost bundle (MediaPipe's gesture recognizer nests one).
    public var maxNestingDepth: Int = 4

    /// The default limits.
    public init() {}
}
