/// An image's size in pixels: what MediaPipe passes as `std::pair<int, int>` (width first,
/// height second), e.g. on `ImagePropertiesCalculator`'s `SIZE` output.
public struct ImageSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// The size `width` × `height`.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}
