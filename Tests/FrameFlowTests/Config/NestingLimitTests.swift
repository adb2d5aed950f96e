import Foundation
import FrameFlow
import FrameFlowTestSupport
import Testing

/// Graph text nested deeper than `ResourceLimits.maxNestingDepth` is a syntax error at the
/// message that crosses the limit, never a stack overflow.
@Suite struct NestingLimitTests {
    /// Tests/Fixtures/graph/deep-nesting.pbtxt: 10 000 nested messages (64 KB) in a node's
    /// options; before the limit it overflowed the stack in `TextFormatParser.parseField`.
    static let deepFile = RepositoryFiles.fixture("graph/deep-nesting.pbtxt")

    @Test func tenThousandNestedMessagesAreAnError() {
        let limit = ResourceLimits().maxNestingDepth
        let e = #expect(throws: GraphError.self) { try GraphConfig(contentsOfFile: Self.deepFile) }
        #expect(e?.kind == .syntax)
        #expect(e?.location?.file == Self.deepFile)
        #expect(e?.description.hasPrefix("\(Self.deepFile):") == true, "\(String(describing: e))")
        #expect(e?.message.contains("\(limit)") == true, "\(String(describing: e))")
    }

    /// `limit` nested messages parse; one more fails at the `{` that opens it.
    @Test func theLimitItselfParses() throws {
        let limit = ResourceLimits().maxNestingDepth
        func nested(_ n: Int) -> String { String(repeating: "a { ", count: n) + String(repeating: "} ", count: n) }
        var m = try TextFormatParser.parse(nested(limit), file: "ok.pbtxt")
        var depth = 0
        while case .message(let inner) = m.fields.first?.value.kind {
            depth += 1
            m = inner
        }
        #expect(depth == limit)
        // Caught by hand: #expect(throws:) would print the whole parsed tree if it parsed.
        var e: GraphError?
        do { _ = try TextFormatParser.parse(nested(limit + 1), file: "deep.pbtxt") } catch let error as GraphError { e = error }
        #expect(e?.location == SourceLocation(file: "deep.pbtxt", line: 1, column: 4 * limit + 3), "\(String(describing: e))")
    }
}
