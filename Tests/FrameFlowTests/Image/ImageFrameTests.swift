import FrameFlow
import Testing

@Suite struct ImageFrameTests {
    @Test func planarLayouts() throws {
        let pool = ImagePool()
        let nv12 = try pool.makeImage(width: 5, height: 3, format: .nv12(.full)).freeze()
        #expect(nv12.planes.count == 2)
        #expect(nv12.row(0, plane: 1).count == 6)  // 3 UV pairs
        #expect(nv12.planes[1].rows == 2)
        let i420 = try pool.makeImage(width: 4, height: 4, format: .i420(.video)).freeze()
        #expect(i420.planes.count == 3 && i420.format.yuvRange == .video)
        #expect(i420.row(1, plane: 2).count == 2)
        #expect(PixelFormat(name: "nv12_video") == .nv12(.video) && PixelFormat(name: "bogus") == nil)
    }

    @Test func poolRecyclesMemory() throws {
        let pool = ImagePool()
        for _ in 0..<100 {
            var m = try pool.makeImage(width: 64, height: 64, format: .rgba8)
            m.fill(1)
            _ = m.freeze()
        }
        #expect(pool.statistics.allocations == 1)
        #expect(pool.statistics.reuses == 99)
    }

    @Test func invalidImagesAreErrors() throws {
        #expect(throws: ImageError.self) { try ImagePool().makeImage(width: 0, height: 4, format: .gray8) }
        let small = ImageBuffer(byteCount: 10)
        #expect(throws: ImageError.self) {
            try ImageFrame(width: 4, height: 4, format: .gray8, planes: [ImagePlane(buffer: small, offset: 0, bytesPerRow: 4, rows: 4)])
        }
        #expect(throws: ImageError.self) {
            try ImageFrame(width: 4, height: 4, format: .nv12(.full), planes: [ImagePlane(buffer: small, offset: 0, bytesPerRow: 4, rows: 4)])
        }
    }

    @Test func foreignMemoryIsReleasedByItsClosure() throws {
        let released = ReleaseFlag()
        do {
            let p = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
            let buffer = ImageBuffer(wrapping: p, byteCount: 16) { p, _ in
                released.set()
                p.deallocate()
            }
            let img = try ImageFrame(width: 4, height: 4, format: .gray8, planes: [ImagePlane(buffer: buffer, offset: 0, bytesPerRow: 4, rows: 4)])
            #expect(img.row(3).count == 4)
        }
        #expect(released.isSet)
    }
}

final class ReleaseFlag: @unchecked Sendable {  // only touched from one thread in the test
    private(set) var isSet = false
    func set() { isSet = true }
}
