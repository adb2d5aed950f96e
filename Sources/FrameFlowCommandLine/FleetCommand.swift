import FrameFlow
import FrameFlowArguments
import FrameFlowFleet
import FrameFlowHTTP
import FrameFlowMedia
import Foundation

/// `frameflow fleet FLEET_FILE`: runs every camera of the fleet file (or shard I of N of them)
/// in this process, each with its own graph, reconnecting cameras that fail; prints each
/// camera's health as a JSON line every S seconds and on every state change. Ctrl-C or SIGTERM
/// stops every camera and finishes the outputs. With `mqtt { … }` in the file, outputs
/// `to: "mqtt"` and the health reports (retained) are published too (`FleetMQTT`).
public struct FleetCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fleet", abstract: "run every camera of a fleet file, one graph each, with health as JSON lines",
            discussion: """
                Cameras that fail are reconnected; health is printed every S seconds and on state changes.

                exit status: 0 stopped (Ctrl-C, SIGTERM, --duration) with no camera failed, 1 a camera failed
                (a bad graph; named in its health's last_error), 2 bad arguments or fleet file
                """)
    }

    /// The fleet file.
    @Argument(valueName: "FLEET_FILE", help: "the cameras, their graphs and outputs") public var fleetFile: String
    /// `--shard I/N`.
    @Option(valueName: "I/N", help: "run part I of N of the cameras (0-based)") public var shard: String?
    /// `--health-interval SECONDS`.
    @Option(
        valueName: "SECONDS", help: "seconds between health reports (default: 5)", expecting: "needs a number of seconds above 0",
        valid: { $0 > 0 })
    public var healthInterval: Double?
    /// `--duration SECONDS`.
    @Option(
        valueName: "SECONDS", help: "stop after this long (default: until Ctrl-C or SIGTERM)",
        expecting: "needs a number of seconds above 0", valid: { $0 > 0 })
    public var duration: Double?
    /// `--http HOST:PORT`.
    @Option(valueName: "HOST:PORT", help: "serve the HTTP API here (port 0: a free one; overrides the file's http { listen })")
    public var http: String?
    /// `--http-token-file PATH`.
    @Option(valueName: "PATH", help: "the bearer token for changes over HTTP (else env FRAMEFLOW_HTTP_TOKEN; none: changes refused)")
    public var httpTokenFile: String?
    /// Subgraphs, resource root, image limit.
    @OptionGroup public var subgraphs: SubgraphOptions

    public init() {}

    @MainActor public func run() throws {
        StopSignals.runWillStart()
        let registry = try CalculatorRegistry.commandLine()
        var options = FleetRunner.Options()
        options.environment = try subgraphs.apply(to: registry)
        if let s = shard {
            do { options.shard = try Shard(parsing: s) } catch { throw ExitRequest.usage("\(error)") }
        }
        if let healthInterval { options.healthInterval = healthInterval }
        if let duration { options.duration = duration }
        let config: FleetConfig
        do { config = try FleetConfig(contentsOfFile: fleetFile) } catch { throw ExitRequest.usage("\(error)") }
        // The HTTP API: its address and token are checked before any camera starts.
        var httpOptions: HTTPServer.Options?
        if let listen = http ?? config.http?.listen {
            var o = HTTPServer.Options()
            do { o.address = try HTTPAddress(parsing: listen) } catch {
                let origin = http != nil ? "--http" : "\(config.http?.location.map { "\($0): " } ?? "")http { listen }"
                throw ExitRequest.usage("\(origin): \(error)")
            }
            httpOptions = o
            options.keepRunning = true
        }
        let token = try httpToken()
        let events = EventLog()
        if httpOptions != nil { options.onEvents = { _, list in events.append(list) } }
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
        var server: HTTPServer?
        if let httpOptions {
            let s = HTTPServer(options: httpOptions)
            let link: (@Sendable () -> MQTTLinkHealth?)? = mqtt.map { m in { @Sendable in m.link } }
            FleetAPI(fleet: fleet, config: config, token: token, events: events, mqtt: link).install(on: s)
            do { try s.start() } catch { throw ExitRequest.usage("\(error)") }
            FileHandle.standardError.write(Data("http: listening on http://\(httpOptions.address.host):\(s.port)\n".utf8))
            server = s
        }
        defer { server?.stop() }
        if fleet.cameras.isEmpty {
            FileHandle.standardError.write(Data("warning: no camera in \(fleetFile) for shard \(options.shard)\n".utf8))
        }
        let final = fleet.run()
        if let mqtt, let warning = FleetMQTT.closingWarning(mqtt.close(timeout: 5), broker: mqtt.client.broker) {
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
        let failed = final.filter { $0.state == .failed }
        for h in failed { FileHandle.standardError.write(Data("camera '\(h.camera)' failed: \(h.lastError ?? "")\n".utf8)) }
        if !failed.isEmpty { throw ExitRequest(status: ExitCode.failed, message: "") }
    }

    /// The HTTP token: the file's first line (`--http-token-file`), else FRAMEFLOW_HTTP_TOKEN;
    /// nil when neither is given. Never read from the fleet file.
    private func httpToken() throws -> String? {
        if let httpTokenFile {
            guard let data = FileManager.default.contents(atPath: httpTokenFile),
                let text = String(validating: [UInt8](data), as: UTF8.self)
            else { throw ExitRequest.usage("--http-token-file: cannot read \(httpTokenFile)") }
            let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !token.isEmpty else { throw ExitRequest.usage("--http-token-file: \(httpTokenFile) has no token on its first line") }
            return token
        }
        let env = ProcessInfo.processInfo.environment["FRAMEFLOW_HTTP_TOKEN"] ?? ""
        return env.isEmpty ? nil : env
    }
}
