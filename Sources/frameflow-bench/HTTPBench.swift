import FrameFlowArguments

/// `frameflow-bench http`: does serving the fleet's HTTP API under load slow its cameras
/// down (`HTTPLoadRow`)?
struct HTTPBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "http",
            abstract: "the fleet's cameras with and without HTTP load: 50 MJPEG viewers, a stalled one and 200 requests/s on /api/cameras")
    }

    @Flag(help: "5-second phases and 3 rounds (a quick look, not a measurement)") var quick = false
    @Option(help: "seconds of each phase, with and without load (1 to 3600)") var seconds = 30.0
    @Option(help: "alternating rounds without and with load (at least 1; medians and spreads are over them)") var rounds = 3
    @Option(help: "cameras in the fleet (1 to 64); the MJPEG viewers watch the first") var cameras = 2
    @Option(help: "MJPEG viewers of the first camera (0 to 500)") var viewers = 50
    @Option(help: "requests per second on /api/cameras (0 to 10000)") var rate = 200.0

    func validate() throws {
        guard seconds.isFinite, (1...3600).contains(seconds) else { throw ValidationError("--seconds must be 1 to 3600") }
        guard (1...1000).contains(rounds) else { throw ValidationError("--rounds must be 1 to 1000") }
        guard (1...64).contains(cameras) else { throw ValidationError("--cameras must be 1 to 64") }
        guard (0...500).contains(viewers) else { throw ValidationError("--viewers must be 0 to 500") }
        guard rate.isFinite, (0...10000).contains(rate) else { throw ValidationError("--rate must be 0 to 10000") }
    }

    @MainActor func measure() throws {
        HTTPLoadRow.measure(
            HTTPLoadRow.Settings(
                seconds: quick ? 5 : seconds, rounds: rounds, cameras: cameras, viewers: viewers, rate: rate))
    }
}
