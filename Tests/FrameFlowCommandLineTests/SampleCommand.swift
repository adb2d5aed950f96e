import FrameFlowArguments

/// A command declaring one of each kind of argument, for the parser's tests.
struct SampleCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sample", abstract: "a sample command", discussion: "exit status: 0 always")
    }

    @Argument(valueName: "SOURCE", help: "where to read from") var source: String
    @Argument(valueName: "EXTRA", help: "more words") var extra: [String] = []
    @Option(valueName: "FILE", help: "where the result goes") var output: String?
    @Option(valueName: "N", help: "how many times", expecting: "needs a whole number from 0 up", valid: { $0 >= 0 }) var count = 3
    @Option(valueName: "SECONDS", help: "how long to wait", valid: { $0 > 0 && $0 <= 1e6 }) var timeout: Double?
    @Option(valueName: "NAME=VALUE", help: "a setting") var setting: [String] = []
    @Option(valueName: "MODE", help: "how to scale", allowedValues: ["fit", "fill"]) var scale = "fit"
    @Flag(help: "print more") var verbose = false
    @Option(valueName: "N", help: "workers at once") var maxWorkersAtOnce: Int?

    func validate() throws {
        if output == "" { throw ValidationError("--output needs a file name") }
    }
}
