import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `mosquitto` on a free loopback port, configured in a temporary folder; stopped (and
/// the folder removed) by `stop()` or when released. `restart()` brings it back on the same
/// port with the same persistence file.
public final class MosquittoBroker: @unchecked Sendable {  // used by one test at a time
    /// The loopback port it listens on.
    public private(set) var port = 0
    /// Its configuration, persistence and log folder.
    public let folder: String
    private var pid: pid_t?

    /// Where mosquitto is installed, if it is.
    public static let executable: String? = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts a broker; `persistent` keeps sessions and queued messages across `restart()`.
    /// `users` (name: password) turns anonymous access off and writes a password file.
    public init(persistent: Bool = false, start: Bool = true, users: [String: String]? = nil) throws {
        folder = NSTemporaryDirectory() + "frameflow-mqtt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let users { try Self.writePasswords(users, to: folder + "/passwords") }
        var lastError = ""
        for _ in 0..<5 {
            let p = try LoopbackPort.free()
            let config = """
                listener \(p) 127.0.0.1
                allow_anonymous \(users == nil)
                \(users == nil ? "" : "password_file \(folder)/passwords")
                user root
                max_queued_messages 100000
                persistence \(persistent ? "true" : "false")
                persistence_location \(folder)/
                log_dest file \(folder)/mosquitto.log

                """
            try config.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
            if !start {
                port = p
                return
            }
            do {
                port = p
                try launch()
                return
            } catch {
                lastError = "\(error)"  // the port was taken meanwhile: another one
            }
        }
        throw BrokerError(message: "mosquitto did not start: \(lastError)")
    }

    deinit { stop(removing: true) }

    /// Why the broker could not be started.
    public struct BrokerError: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// `mosquitto_passwd -b` for each user: the broker's own hashing.
    public static func writePasswords(_ users: [String: String], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BrokerError(message: "cannot write \(path)") }
        for (user, password) in users {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
            p.arguments = ["-b", path, user, password]
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw BrokerError(message: "mosquitto_passwd failed for \(user)") }
        }
    }

    /// Starts mosquitto and waits until it accepts connections (at most 5 s).
    ///
    /// Spawned with `posix_spawn` and an empty signal mask and default handlers: a test
    /// runner's blocked or ignored signals would otherwise pass to it, and `SIGTERM` (which
    /// makes it save its persistence file) would not stop it.
    public func launch() throws {
        guard let exe = Self.executable else {
            throw BrokerError(message: "mosquitto is not installed (scripts/setup.sh test installs it)")
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args: [String] = [exe, "-c", folder + "/mosquitto.conf"]
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, exe, &actions, &attr, argv, environ)
        guard rc == 0 else { throw BrokerError(message: "cannot start \(exe): \(String(cString: strerror(rc)))") }
        pid = child
        let end = Date(timeIntervalSinceNow: 5)
        while Date() < end {
            if exited(wait: false) { break }
            if LoopbackPort.accepts(port) { return }
            usleep(10_000)
        }
        stop(removing: false)
        let log = (try? String(contentsOfFile: folder + "/mosquitto.log", encoding: .utf8)) ?? ""
        throw BrokerError(message: "mosquitto on port \(port) did not come up: \(log.suffix(400))")
    }

    /// Whether the child has exited (reaped); `wait` blocks until it has.
    private func exited(wait: Bool) -> Bool {
        guard let p = pid else { return true }
        var status: Int32 = 0
        let r = waitpid(p, &status, wait ? 0 : WNOHANG)
        if r == p || (r < 0 && errno == ECHILD) {
            pid = nil
            return true
        }
        return false
    }

    /// Stops the broker (SIGTERM: it saves its persistence file) and waits for it to exit.
    public func stop(removing: Bool = false) {
        if let p = pid {
            kill(p, SIGTERM)
            let end = Date(timeIntervalSinceNow: 5)
            while !exited(wait: false) && Date() < end { usleep(2_000) }
            if pid != nil {
                kill(p, SIGKILL)
                _ = exited(wait: true)
            }
        }
        if removing { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Stops and starts it again on the same port.
    public func restart() throws {
        stop()
        try launch()
    }
}

/// Values appended from a client's thread and read by the test.
public final class Received<T: Sendable>: @unchecked Sendable {  // every access takes the lock
    private let lock = NSLock()
    private var items: [T] = []
    /// Nothing received yet.
    public init() {}
    /// Adds one value.
    public func append(_ x: T) {
        lock.lock()
        items.append(x)
        lock.unlock()
    }
    /// Everything received so far.
    public var all: [T] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
    /// Waits until `condition` holds for the items, at most `timeout` seconds.
    @discardableResult
    public func wait(timeout: Double, until condition: ([T]) -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: timeout)
        while Date() < end {
            if condition(all) { return true }
            usleep(5_000)
        }
        return condition(all)
    }
}
