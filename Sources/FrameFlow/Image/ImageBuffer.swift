import Synchronization

/// A block of pixel memory: owned (and recycled into a pool when released) or foreign
/// (memory of another library, released by a closure).
///
/// `@unchecked Sendable`: the memory is written only while the image that owns it is
/// being built (`MutableImageFrame`, which is not `Sendable`), and only read once the
/// frame is frozen into an `ImageFrame`.
public final class ImageBuffer: @unchecked Sendable {
    /// The start of the memory.
    public let baseAddress: UnsafeMutableRawPointer
    /// Its size in bytes.
    public let byteCount: Int
    private let release: @Sendable (UnsafeMutableRawPointer, Int) -> Void

    /// Buffers alive in this process, updated by every buffer's init and deinit.
    package static let live = AtomicCounter()

    /// How many buffers are alive in this process, for leak and memory-flatness checks.
    public static var liveCount: Int { live.current }

    /// Allocates `byteCount` bytes, 64-byte aligned, freed when the buffer is released.
    public convenience init(byteCount: Int) {
        let p = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(byteCount, 1), alignment: 64)
        self.init(wrapping: p, byteCount: byteCount) { p, _ in p.deallocate() }
    }

    /// Wraps foreign memory without copying; `release` runs when the last image using it
    /// goes away.
    public init(
        wrapping pointer: UnsafeMutableRawPointer, byteCount: Int,
        release: @escaping @Sendable (UnsafeMutableRawPointer, Int) -> Void
    ) {
        self.baseAddress = pointer
        self.byteCount = byteCount
        self.release = release
        ImageBuffer.live.add(1)
    }

    deinit {
        ImageBuffer.live.add(-1)
        release(baseAddress, byteCount)
    }
}

/// Recycles pixel memory so that a steady graph allocates none per frame.
///
/// A pool keeps released blocks by size; `makeImage` takes one when it can. Kept
/// blocks are bounded (`maxFreeBlocksPerSize`), so a burst does not pin memory forever.
public final class ImagePool: Sendable {
    /// The pool most code uses.
    public static let shared = ImagePool()

    private struct State {
        var free: [Int: [UnsafeMutableRawPointer]] = [:]
        var allocations = 0
        var reuses = 0
        var live = 0
    }
    // Raw pointers are only moved in and out under the mutex.
    private let state = Locked(State())
    /// How many released blocks of one size are kept for reuse.
    public let maxFreeBlocksPerSize: Int

    /// A pool keeping at most `maxFreeBlocksPerSize` released blocks of each size.
    public init(maxFreeBlocksPerSize: Int = 16) { self.maxFreeBlocksPerSize = maxFreeBlocksPerSize }

    deinit {
        state.withLock { s in
            for (_, blocks) in s.free { for b in blocks { b.deallocate() } }
        }
    }

    /// A buffer of at least `byteCount` bytes, recycled when possible.
    public func buffer(byteCount: Int) -> ImageBuffer {
        let size = (byteCount + 63) & ~63
        let reused: UnsafeMutableRawPointer? = state.withLock { s in
            s.live += 1
            if var list = s.free[size], let p = list.popLast() {
                s.free[size] = list
                s.reuses += 1
                return p
            }
            s.allocations += 1
            return nil
        }
        let p = reused ?? UnsafeMutableRawPointer.allocate(byteCount: Swift.max(size, 64), alignment: 64)
        return ImageBuffer(wrapping: p, byteCount: size) { [weak self] p, n in
            guard let self else { p.deallocate(); return }
            self.recycle(p, size: n)
        }
    }

    private func recycle(_ p: UnsafeMutableRawPointer, size: Int) {
        let kept = state.withLock { s -> Bool in
            s.live -= 1
            var list = s.free[size, default: []]
            guard list.count < maxFreeBlocksPerSize else { return false }
            list.append(p)
            s.free[size] = list
            return true
        }
        if !kept { p.deallocate() }
    }

    /// Buffers from this pool that are still in use (for memory-flatness checks).
    public var liveBuffers: Int { state.withLock { $0.live } }

    /// How many blocks the pool had to allocate, and how many times it reused one.
    public var statistics: (allocations: Int, reuses: Int) {
        state.withLock { ($0.allocations, $0.reuses) }
    }

    /// Bytes allocated past an image's last row.
    public static let tailPadding = 256

    /// The most pixels an image may have on either side.
    public static let maxSide = 1 << 15

    /// A new image of `width`×`height` in `format`, with rows padded to 64 bytes and
    /// `tailPadding` spare bytes at the end, backed by recycled memory.
    public func makeImage(width: Int, height: Int, format: PixelFormat) throws -> MutableImageFrame {
        guard width > 0, height > 0, width <= Self.maxSide, height <= Self.maxSide else {
            throw ImageError.invalidSize(width: width, height: height)
        }
        var layouts: [(offset: Int, bytesPerRow: Int, rows: Int)] = []
        var total = 0
        for plane in 0..<format.planeCount {
            let (pw, ph) = format.planeSize(plane, width: width, height: height)
            let stride = (pw * format.bytesPerPixel(plane: plane) + 63) & ~63
            layouts.append((total, stride, ph))
            total += stride * ph
        }
        // Spare bytes after the last row: FFmpeg's converters write whole SIMD blocks, up to
        // a block past a row's end (a 360-pixel RGB row is written as 368 pixels).
        let buf = buffer(byteCount: total + Self.tailPadding)
        let planes = layouts.map { ImagePlane(buffer: buf, offset: $0.offset, bytesPerRow: $0.bytesPerRow, rows: $0.rows) }
        return MutableImageFrame(
            frame: ImageFrame(uncheckedWidth: width, height: height, format: format, planes: planes))
    }
}

/// Wraps a non-Sendable value that is only touched under a lock.
struct UnsafeSendable<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// Why an image could not be made or read.
public enum ImageError: Error, Equatable, CustomStringConvertible {
    /// The width or height is not positive, or larger than an image may be.
    case invalidSize(width: Int, height: Int)
    /// The planes do not fit the format and size, or a file is not an image; the text says how.
    case invalidLayout(String)
    /// An operation does not take this pixel format; the text names the operation.
    case unsupportedFormat(PixelFormat, String)

    public var description: String {
        switch self {
        case let .invalidSize(w, h): return "invalid image size \(w)×\(h) (each side must be 1 to \(ImagePool.maxSide) pixels)"
        case let .invalidLayout(m): return "invalid image layout: \(m)"
        case let .unsupportedFormat(f, what): return "\(what) does not support pixel format \(f)"
        }
    }
}
