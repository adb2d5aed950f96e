import FrameFlow

/// Shared plumbing of the image calculators: row bands on the graph's workers, typed row
/// pointers, clamping.
enum Kernels {
    /// Splits `height` rows into bands of at least `grain` rows on `cc`'s workers (inline without
    /// a context). Not inlined: an inlined copy without a context compiled worse.
    @inline(never)
    static func rows(_ height: Int, _ cc: CalculatorContext?, grain: Int = 16, _ body: @escaping (Range<Int>) -> Void) {
        if let cc { cc.parallelFor(height, grain: grain, body) } else { body(0..<height) }
    }

    @inline(__always) static func clamp255(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: Swift.min(Swift.max(v, 0), 255))
    }

    /// Rounds to nearest and clamps to 0…255 without a trapping Float→Int conversion (which
    /// would stop the loop from vectorizing): adding 1.5·2²³ leaves the rounded value in the
    /// low mantissa bits.
    @inline(__always) static func clamp255(_ v: Float) -> UInt8 {
        let c = Swift.min(Swift.max(v, 0), 255)
        return UInt8(truncatingIfNeeded: (c + 12_582_912).bitPattern)
    }

    /// `clamp255(_:)` on four lanes: clamped with selects (`clamped` and `pointwiseMin` are
    /// calls, not instructions), rounded by the same 1.5·2²³ addition.
    @inline(__always) static func clamp255(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
        var c = v
        c.replace(with: SIMD4(repeating: 0), where: c .< 0)
        c.replace(with: SIMD4(repeating: 255), where: c .> 255)
        return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(c + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self))
    }

    @inline(__always) static func rowPointer(_ image: ImageFrame, _ y: Int, plane: Int = 0) -> UnsafeMutablePointer<UInt8> {
        (image.planes[plane].baseAddress + y * image.planes[plane].bytesPerRow).assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always) static func rowPointer(_ image: MutableImageFrame, _ y: Int, plane: Int = 0) -> UnsafeMutablePointer<UInt8> {
        (image.planes[plane].baseAddress + y * image.planes[plane].bytesPerRow).assumingMemoryBound(to: UInt8.self)
    }

    /// Byte offsets of R, G, B (and A, or -1) in a packed pixel, and its size.
    static func layout(_ f: PixelFormat) -> (r: Int, g: Int, b: Int, a: Int, bpp: Int)? {
        switch f {
        case .rgba8: return (0, 1, 2, 3, 4)
        case .bgra8: return (2, 1, 0, 3, 4)
        case .rgb8: return (0, 1, 2, -1, 3)
        case .gray8: return (0, 0, 0, -1, 1)
        default: return nil
        }
    }
}

/// Colour matrices for YUV ↔ RGB.
public enum YUVMatrix: String, Codable, Sendable, CaseIterable {
    case bt601 = "BT601"
    case bt709 = "BT709"

    /// Luma weights Kr, Kb (Kg = 1 − Kr − Kb).
    var weights: (kr: Double, kb: Double) {
        switch self {
        case .bt601: return (0.299, 0.114)
        case .bt709: return (0.2126, 0.0722)
        }
    }
}
