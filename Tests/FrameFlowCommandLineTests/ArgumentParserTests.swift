import FrameFlowArguments
import Testing

/// The parser: declarations in, filled commands, generated help and clear errors out.
@Suite struct ArgumentParserTests {
    /// The `ExitRequest` `body` throws; nil (and a failed expectation) when it throws none.
    func request(_ body: () throws -> Any) -> ExitRequest? {
        do {
            let value = try body()
            Issue.record("expected an ExitRequest, parsed \(value)")
        } catch let r as ExitRequest {
            return r
        } catch {
            Issue.record("expected an ExitRequest, got \(error)")
        }
        return nil
    }

    @Test func declarationsFillTheCommand() throws {
        let c = try SampleCommand.parse([
            "in.mp4", "--output", "out.mp4", "--count=7", "--verbose", "--setting", "a=1", "more", "--setting=b=2", "--max-workers-at-once", "4",
        ])
        #expect(c.source == "in.mp4" && c.extra == ["more"])
        #expect(c.output == "out.mp4" && c.count == 7 && c.verbose && c.maxWorkersAtOnce == 4)
        #expect(c.setting == ["a=1", "b=2"], "repeated options keep every value in order; = inside a value stays")
        #expect(c.timeout == nil && c.scale == "fit")
        let defaults = try SampleCommand.parse(["x"])
        #expect(defaults.output == nil && defaults.count == 3 && !defaults.verbose && defaults.setting.isEmpty && defaults.extra.isEmpty)
    }

    @Test func doubleDashEndsTheOptions() throws {
        let c = try SampleCommand.parse(["--count", "1", "--", "--output", "-x"])
        #expect(c.source == "--output" && c.extra == ["-x"] && c.output == nil)
    }

    @Test func theHelpIsGeneratedFromTheDeclarations() throws {
        let help = SampleCommand.helpMessage()
        #expect(help.hasPrefix("usage: sample SOURCE [EXTRA]... [--output FILE] [--count N]"), "\(help)")
        for line in [
            "  --output FILE               where the result goes", "  --count N                   how many times (default: 3)",
            "  --setting NAME=VALUE        a setting (repeatable)", "  --scale MODE                how to scale (fit|fill) (default: fit)",
            "  --verbose                   print more", "  --max-workers-at-once N     workers at once",
            "  SOURCE                      where to read from",
            "  -h, --help                  show this help", "exit status: 0 always", "a sample command",
        ] {
            #expect(help.contains(line), "\(line) in:\n\(help)")
        }
        let r = request { try SampleCommand.parse(["x", "--help"]) }
        #expect(r?.status == 0 && r?.message == help)
    }

    @Test func aWrongOptionIsAnsweredWithTheNearest() {
        let r = request { try SampleCommand.parse(["x", "--outptu", "y"]) }
        #expect(r?.status == 2)
        #expect(
            r?.message.hasPrefix("sample: unknown option '--outptu' (did you mean '--output'?)\nusage: sample SOURCE") == true, "\(r?.message ?? "")")
        let far = request { try SampleCommand.parse(["x", "--zzzzzzzzzz"]) }
        #expect(far?.message.contains("unknown option '--zzzzzzzzzz'\n") == true, "no suggestion when nothing is close: \(far?.message ?? "")")
        let short = request { try SampleCommand.parse(["x", "-v"]) }
        #expect(short?.status == 2 && short?.message.contains("unknown option '-v'") == true)
        // A hostile, long option name gets an answer at once and no suggestion.
        let long = request { try SampleCommand.parse(["x", "--" + String(repeating: "output", count: 20_000)]) }
        #expect(long?.status == 2 && long?.message.contains("did you mean") == false)
    }

    @Test func numbersAreRefusedUnlessFiniteAndInRange() {
        for (args, says) in [
            (["--timeout", "nan"], "--timeout needs a finite number, not 'nan'"), (["--timeout", "inf"], "not 'inf'"),
            (["--timeout", "-inf"], "not '-inf'"), (["--timeout", "1e400"], "not '1e400'"), (["--timeout", "1e308"], "not '1e308'"),
            (["--timeout", "0"], "not '0'"), (["--count", "-1"], "--count needs a whole number from 0 up, not '-1'"),
            (["--count", "1e308"], "not '1e308'"), (["--count", "99999999999999999999"], "not '99999999999999999999'"),
            (["--count", "2.5"], "not '2.5'"), (["--max-workers-at-once", "nan"], "--max-workers-at-once needs a whole number, not 'nan'"),
            (["--scale", "stretch"], "--scale must be one of fit, fill, not 'stretch'"),
        ] {
            let r = request { try SampleCommand.parse(["x"] + args) }
            #expect(r?.status == 2, "\(args)")
            #expect(r?.message.hasPrefix("sample: ") == true && r?.message.contains(says) == true, "\(args): \(r?.message ?? "")")
        }
        #expect((try? SampleCommand.parse(["x", "--timeout", "2.5"]))?.timeout == 2.5)
    }

    @Test func missingAndExtraArgumentsAreNamed() {
        for (args, says) in [
            (["x", "--output"], "sample: --output needs a value (FILE)"), (["x", "--output", "--verbose"], "--output needs a value (FILE)"),
            ([], "sample: missing SOURCE"), (["x", "--verbose=yes"], "--verbose takes no value"),
            (["x", "--output", "a", "--output", "b"], "--output is given more than once"), (["x", "--output="], "--output needs a file name"),
        ] {
            let r = request { try SampleCommand.parse(args) }
            #expect(r?.status == 2 && r?.message.contains(says) == true, "\(args): \(r?.message ?? "")")
        }
        let extra = request { try SampleRoot.parseAsRoot(["help", "sample", "nothing"]) }
        #expect(extra?.status == 2 && extra?.message.contains("unknown command 'nothing'") == true, "\(extra?.message ?? "")")
    }

    @Test func subcommandsHelpAndVersion() throws {
        let parsed = try SampleRoot.parseAsRoot(["sample", "in", "--count", "2"])
        #expect((parsed as? SampleCommand)?.count == 2)
        let help = request { try SampleRoot.parseAsRoot(["help", "sample"]) }
        #expect(help?.status == 0 && help?.message.contains("  --output FILE               where the result goes") == true)
        #expect(help?.message.hasPrefix("usage: tool sample SOURCE") == true, "\(help?.message ?? "")")
        let dashHelp = request { try SampleRoot.parseAsRoot(["sample", "-h"]) }
        #expect(dashHelp?.message == help?.message)
        let root = request { try SampleRoot.parseAsRoot(["--help"]) }
        #expect(root?.status == 0 && root?.message.contains("  sample                      a sample command") == true, "\(root?.message ?? "")")
        #expect(request { try SampleRoot.parseAsRoot(["help"]) }?.message == root?.message)
        #expect(request { try SampleRoot.parseAsRoot(["--version"]) } == ExitRequest(status: 0, message: "tool 1.2.3"))
        #expect(
            request { try SampleRoot.parseAsRoot(["--verison"]) }?.message.hasPrefix("tool: unknown option '--verison' (did you mean '--version'?)")
                == true)
        let typo = request { try SampleRoot.parseAsRoot(["sampel"]) }
        #expect(typo?.status == 2 && typo?.message.hasPrefix("tool: unknown command 'sampel' (did you mean 'sample'?)") == true)
    }

    @MainActor @Test func aRootWithoutACommandAsksForOne() {
        #expect(SampleRoot.runToStatus([]) == 2)
        #expect(SampleRoot.runToStatus(["--version"]) == 0)
        #expect(SampleRoot.runToStatus(["sample"]) == 2)
    }
}
