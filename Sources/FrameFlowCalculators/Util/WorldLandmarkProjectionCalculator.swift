import Foundation
import FrameFlow

/// Turns world landmarks by the rotation of the region they were found in, as MediaPipe's
/// `WorldLandmarkProjectionCalculator` does.
///
/// World landmarks are metric and centred on the object, so only the rect's rotation applies:
/// x' = cos(r)·x − sin(r)·y, y' = sin(r)·x + cos(r)·y, in single precision as MediaPipe
/// computes; z, visibility and presence are kept. Without `NORM_RECT` the landmarks pass
/// unchanged. A timestamp without landmarks, or (when connected) without the rect, gives
/// nothing.
///
/// Inputs:
///   - `LANDMARKS`: `LandmarkList` (world landmarks).
///   - `NORM_RECT` (optional): `NormalizedRect` whose `rotation` is applied.
/// Outputs:
///   - `LANDMARKS`: `LandmarkList`.
/// Options: none.
///
/// Example usage:
/// ```
/// node {
///   calculator: "WorldLandmarkProjectionCalculator"
///   input_stream: "LANDMARKS:unprojected_world_landmarks"
///   input_stream: "NORM_RECT:roi"
///   output_stream: "LANDMARKS:world_landmarks"
/// }
/// ```
public final class WorldLandmarkProjectionCalculator: Calculator {
    /// The world landmarks to turn.
    public static let landmarks = InputPort<LandmarkList>("LANDMARKS")
    /// The rect whose rotation turns them.
    public static let rect = InputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// The turned landmarks.
    public static let projected = OutputPort<LandmarkList>("LANDMARKS")

    public static let contract = CalculatorContract(ports: [landmarks, rect, projected])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.landmarks) else { return }
        var rotation: Double?
        if cc.isConnected(Self.rect) {
            guard let rect = try cc.value(Self.rect) else { return }
            rotation = rect.rotation
        }
        let list = try cc.get(Self.landmarks)
        try cc.emit(rotation.map { Self.rotate(list, by: $0) } ?? list, to: Self.projected)
    }

    /// `list` turned by `rotation` radians about the origin in the x–y plane.
    public static func rotate(_ list: LandmarkList, by rotation: Double) -> LandmarkList {
        let angle = Float(rotation)
        let c = cos(angle), s = sin(angle)
        return LandmarkList(
            list.landmark.map { p in
                let x = Float(p.x), y = Float(p.y)
                var q = p
                q.x = Double(c * x - s * y)
                q.y = Double(s * x + c * y)
                return q
            })
    }
}
