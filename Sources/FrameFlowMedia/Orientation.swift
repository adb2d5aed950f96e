import FrameFlow
import FrameFlowSinks

/// Rotation (clockwise, multiples of 90°) and mirroring of packed 8-bit images, for camera
/// orientation: rotation first, then the horizontal flip, as MediaPipe does.
public enum Orientation {
    public static func apply(_ image: ImageFrame, rotation: Int, mirrored: Bool, pool: ImagePool = .shared) throws -> ImageFrame {
        try image.oriented(rotation: rotation, flipHorizontally: mirrored, pool: pool)
    }
}
