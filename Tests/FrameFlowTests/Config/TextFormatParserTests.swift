import FrameFlow
import Testing

@Suite struct TextFormatParserTests {
    @Test func parsesEveryConstruct() throws {
        let text = """
            # a comment
            name: "a\\tb\\n\\"q\\" \\x41\\101" 'single' # trailing comment
            count: -12
            ratio: 1.5e-3
            hex: 0x1F
            flag: true
            mode: FILL_AND_CROP
            inner { x: 1 }
            angled < y: 2; z: 3 >
            colon: { w: 4 }
            [mediapipe.Ext.ext] { v: 5 }
            r: 1, r: 2
            l: [3, 4]
            """
        let m = try TextFormatParser.parse(text, file: "t.pbtxt")
        #expect(
            m.fields.map(\.name) == [
                "name", "count", "ratio", "hex", "flag", "mode", "inner", "angled", "colon", "mediapipe.Ext.ext", "r", "r", "l", "l",
            ])
        guard case .string(let s) = m.fields[0].value.kind else { Issue.record("not a string"); return }
        #expect(s == "a\tb\n\"q\" AAsingle")
        guard case .number("-12") = m.fields[1].value.kind else { Issue.record("count"); return }
        guard case .identifier("FILL_AND_CROP") = m.fields[5].value.kind else { Issue.record("enum"); return }
        guard case .message(let angled) = m.fields[7].value.kind else { Issue.record("angled"); return }
        #expect(angled.fields.map(\.name) == ["y", "z"])
        #expect(m.fields[8].isExtension == false && m.fields[9].isExtension)
        #expect(m.fields[1].location.line == 3 && m.fields[1].location.column == 1)
    }

    /// Broken input: each case must fail with a syntax error at the right line and column.
    @Test(arguments: [
        ("node {\n  calculator: \"X\"\n", 3, "to close"),
        ("a: \"unterminated\n", 1, "unterminated"),
        ("a: 1.2.3", 1, "invalid number"),
        ("a 5", 1, "expected ':' or '{'"),
        ("a: }", 1, "expected a value"),
        ("a: \"bad \\q escape\"", 1, "unknown escape"),
        ("x: 1\n  : 2", 2, "expected a field name"),
        ("[unclosed { }", 1, "extension name"),
        ("a: [1, 2", 1, "expected ',' or ']'"),
        ("a: [1 2]", 1, "expected ',' or ']'"),
        ("a: \"\\xZZ\"", 1, "hex digits"),
        ("a {\n b: 1 }\n}", 3, "expected a field name"),
    ])
    func brokenInputNamesLineAndColumn(text: String, line: Int, fragment: String) {
        let e = #expect(throws: GraphError.self) { try TextFormatParser.parse(text, file: "bad.pbtxt") }
        #expect(e?.kind == .syntax)
        #expect(e?.location?.line == line, "\(String(describing: e))")
        #expect(e?.location?.file == "bad.pbtxt")
        #expect(e?.description.contains(fragment) == true, "\(String(describing: e))")
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 12345
        let alphabet = Array("node{}<>:[]\"'#\\ \n\t0123456789.-+eE_abcXYZ/,;".utf8)
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(state % 64) {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                bytes.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1
            _ = try? TextFormatParser.parse(String(decoding: bytes, as: UTF8.self))
            _ = try? GraphConfig(parsing: String(decoding: bytes, as: UTF8.self))
        }
    }
}
