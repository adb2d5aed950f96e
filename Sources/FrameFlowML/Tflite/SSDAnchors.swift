import Foundation

/// One SSD anchor (MediaPipe's `Anchor`): a centre and size, normalised to [0, 1] of the
/// model's input. Codable with MediaPipe's field names (`x_center`, `y_center`, `w`, `h`), as
/// `SsdAnchorsCalculatorOptions.fixed_anchors` writes them.
public struct Anchor: Sendable, Equatable, Codable {
    public var x, y, width, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    enum CodingKeys: String, CodingKey {
        case x = "x_center", y = "y_center", width = "w", height = "h"
    }
}
