import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowCalculators

/// Sizes and ranges from `.cube` files (and LUTs made in code) are checked before anything is
/// allocated or indexed: hostile values are errors, never traps or gigabytes.
@Suite struct CubeLUTLimitsTests {
    static let image = Result {
        try TestImages.make(width: 8, height: 8, format: .rgba8) { x, y, c in UInt8(truncatingIfNeeded: x * 37 + y * 11 + c * 70) }
    }

    /// luts/input-range-infinite.cube: `LUT_3D_INPUT_RANGE -inf inf` loaded, and applying it
    /// trapped converting NaN coordinates to indexes.
    @Test func infiniteInputRangeIsAnError() throws {
        let path = RepositoryFiles.fixture("luts/input-range-infinite.cube")
        let img = try Self.image.get()
        let e = #expect(throws: CubeLUTError.self) {
            let lut = try CubeLUT(contentsOfFile: path)
            for mode in LUTCalculator.LUTInterpolation.allCases { _ = try LUTCalculator.apply(lut, to: img, interpolation: mode) }
        }
        #expect(e?.file == path && e?.line == 3, "\(String(describing: e))")
        #expect(e?.description.contains("finite") == true, "\(String(describing: e))")
    }

    @Test(arguments: ["LUT_1D_INPUT_RANGE 0 inf", "LUT_3D_INPUT_RANGE nan 1", "LUT_3D_INPUT_RANGE 0 1e39", "DOMAIN_MAX 1 inf 1"])
    func nonFiniteDomainsAreErrors(line: String) {
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(text: "LUT_1D_SIZE 2\n\(line)\n0 0 0\n1 1 1\n", file: "bad.cube") }
        #expect(e?.line == 2, "\(String(describing: e))")
    }

    /// The table's element count is held to `ResourceLimits.maxTensorElements`.
    @Test func tableSizeIsHeldToTheMemoryBudget() throws {
        var limits = ResourceLimits()
        limits.maxTensorElements = 3 * 64 * 64 * 64 - 1
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(text: "# big\nLUT_3D_SIZE 64\n", file: "big.cube", limits: limits) }
        #expect(e?.line == 2 && e?.description.contains("memory budget") == true, "\(String(describing: e))")
        limits.maxTensorElements = 3 * 64 * 64 * 64
        let short = #expect(throws: CubeLUTError.self) { try CubeLUT(text: "LUT_3D_SIZE 64\n", file: "big.cube", limits: limits) }
        #expect(short?.description.contains("0 table rows, the size 64 needs 262144") == true, "\(String(describing: short))")
    }

    /// luts/size-256-header-only.cube: the largest size with no rows is the missing-rows error
    /// (and reserves room only for the rows the text can hold).
    @Test func largestSizeWithoutRows() {
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(contentsOfFile: RepositoryFiles.fixture("luts/size-256-header-only.cube")) }
        #expect(e?.description.contains("0 table rows, the size 256 needs 16777216") == true, "\(String(describing: e))")
    }

    /// Windows line ends: "\r\n" is one Character, so splitting on "\n" by Character read a
    /// CRLF file as one line ("LUT_3D_SIZE needs one integer").
    @Test func crlfLineEnds() throws {
        let text = LUTCalculatorTests.cube(3) { ($0, $1 * $1, 1 - $2) }
        let lf = try CubeLUT(text: text)
        let crlf = try CubeLUT(text: text.replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(crlf.size == 3 && crlf.table == lf.table && crlf.title == lf.title)
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(text: "LUT_1D_SIZE 2\r\n0 0 0\r\n1 x 1\r\n", file: "crlf.cube") }
        #expect(e?.line == 3, "\(String(describing: e))")
    }

    /// Lines with other than ASCII (a title, a no-break space, a comment) read as before.
    @Test func nonASCIILines() throws {
        let text = "TITLE \"Café\"\n# ünïcode comment\nLUT_1D_SIZE 2\n0 0 0\u{00A0}\n1 1 1 # ok\n\u{3000}\n"
        let lut = try CubeLUT(text: text)
        #expect(lut.title == "Café" && lut.size == 2 && lut.table == [0, 0, 0, 1, 1, 1])
        let e = #expect(throws: CubeLUTError.self) { try CubeLUT(text: "LUT_1D_SIZE 2\n0 0 0\n1 1 1\n1 1 1 é\n", file: "u.cube") }
        #expect(e?.line == 4 && e?.description.contains("more table rows") == true, "\(String(describing: e))")
    }

    /// A LUT made in code with a size whose cube overflows `Int`: an error, not a trap.
    @Test(arguments: [(CubeLUT.Kind.threeD, 3_000_000), (.threeD, Int.max), (.oneD, Int.max), (.threeD, -5), (.oneD, 1)])
    func codeMadeLUTWithAHugeSize(kind: CubeLUT.Kind, size: Int) throws {
        let lut = CubeLUT(kind: kind, size: size, table: [0, 0, 0])
        #expect(throws: GraphError.self) { try LUTCalculator.apply(lut, to: try Self.image.get()) }
    }
}
