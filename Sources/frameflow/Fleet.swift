import FrameFlow
import FrameFlowFleet
import FrameFlowMedia
import Foundation

/// `frameflow fleet FLEET_FILE [--shard I/N] [--health-interval S] [--duration S]`: runs every
/// camera of the fleet file (or shard I of N of them) in this process, each with its own graph,
/// reconnecting cameras that fail; prints each camera's health as a JSON line every S seconds
/// and on every state change. Ctrl-C or SIGTERM stops every camera and finishes the outputs.
/// Exit status: 0 stopped (signal or --duration) with no camera failed, 1 a camera failed
/// (a bad graph file; named in its health's last_error), 2 bad arguments or fleet file.
/// With `mqtt { … }` in the file, outputs `to: "mqtt"` and the health reports (retained) are
/// published too (`FleetMQTT`).
@MainActor func runFleetCommand() throws {
    StopSignals.runWillStart()
    let usage = "usage: frameflow fleet FLEET_FILE [--shard I/N] [--health-interval SECONDS] [--duration SECONDS]"
    try registerSubgraphOptions()
    var options = FleetRunner.Options()
    options.environment = environment
    if let s = option("--shard") {
        do { options.shard = try Shard(parsing: s) } catch { fail("\(error)", code: ExitCode.usage) }
    }
    if let s = option("--health-interval") {
        guard let v = Double(s), v.isFinite, v > 0 else {
            fail("--health-interval needs a number of seconds above 0, not '\(s)'", code: ExitCode.usage)
        }
        options.healthInterval = v
    }
    if let s = option("--duration") {
        guard let v = Double(s), v.isFinite, v > 0 else { fail("--duration needs a number of seconds above 0, not '\(s)'", code: ExitCode.usage) }
        options.duration = v
    }
    guard args.count == 1, !args[0].hasPrefix("--") else { fail(usage, code: ExitCode.usage) }
    let config: FleetConfig
    do { config = try FleetConfig(contentsOfFile: args[0]) } catch { fail("\(error)", code: ExitCode.usage) }
    // One broker connection for every camera: outputs `to: "mqtt"`, and health, retained.
    let mqtt = try config.mqtt.map { try FleetMQTT(settings: $0) }
    options.makeMQTTSink = mqtt?.sink
    let fleet = FleetRunner(config: config, registry: registry, options: options) { report in
        var health = report
        health.mqtt = mqtt?.link
        FileHandle.standardOutput.write(Data((health.jsonLine + "\n").utf8))
        mqtt?.publish(health)
    }
    // The first Ctrl-C or SIGTERM stops the fleet (StopSignals, told a run is starting, only
    // notes it); a second one exits at once.
    let signalSources = [SIGINT, SIGTERM].map { sig in
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            FileHandle.standardError.write(Data("\nstopping the fleet: finishing the outputs…\n".utf8))
            fleet.stop()
        }
        source.resume()
        return source
    }
    defer { signalSources.forEach { $0.cancel() } }
    if fleet.cameras.isEmpty { FileHandle.standardError.write(Data("warning: no camera in \(args[0]) for shard \(options.shard)\n".utf8)) }
    let final = fleet.run()
    if let mqtt, let warning = FleetMQTT.closingWarning(mqtt.close(timeout: 5), broker: mqtt.client.broker) {
        FileHandle.standardError.write(Data((warning + "\n").utf8))
    }
    let failed = final.filter { $0.state == .failed }
    for h in failed { FileHandle.standardError.write(Data("camera '\(h.camera)' failed: \(h.lastError ?? "")\n".utf8)) }
    if !failed.isEmpty { exit(ExitCode.failed) }
}
