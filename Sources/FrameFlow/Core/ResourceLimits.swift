/// Limits on what an input file may make FrameFlow allocate or recurse into: a crafted file
/// that declares a huge image or tensor, or nests without end, is an error naming the file,
/// never gigabytes of memory or a stack overflow.
///
/// A graph's `GraphEnvironment.limits` are what its loaders (images, models, graphs, cascades,
/// LUTs) check; parsers called directly take the limits as an argument (the defaults when
/// none is given).
public struct ResourceLimits: Sendable, Equatable {
    /// Pixels in one decoded image or one image a calculator allocates (8192 × 8192).
    public var maxImagePixels: Int = 1 << 26
    /// Elements in one tensor a model declares or computes (512 MiB of floats).
    public var maxTensorElements: Int = 1 << 27
    /// Nested messages in a graph file (text or binary) and nested model subgraphs.
    public var maxNestingDepth: Int = 100

    /// The default limits.
    public init() {}

    /// The product of `dimensions`, or nil when one is negative or the product overflows `Int`.
    public static func elementCount(_ dimensions: some Sequence<Int>) -> Int? {
        var count = 1
        for d in dimensions {
            guard d >= 0 else { return nil }
            let (p, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow else { return nil }
            count = p
        }
        return count
    }

    /// Whether an image of `width` × `height` fits `maxImagePixels` (false on overflow).
    public func allowsImage(width: Int, height: Int) -> Bool {
        guard width >= 0, height >= 0, let n = Self.elementCount([width, height]) else { return false }
        return n <= maxImagePixels
    }

    /// Whether a tensor of `shape` fits `maxTensorElements` (false on overflow or a negative dimension).
    public func allowsTensor(_ shape: some Sequence<Int>) -> Bool {
        guard let n = Self.elementCount(shape) else { return false }
        return n <= maxTensorElements
    }
}
