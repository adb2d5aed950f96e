import Foundation

/// One `MQTTClient` per (host, port, client id) in a process, shared by the nodes and sinks
/// that name the same broker and identity: a broker allows one connection per client id, so
/// two clients with the same id would keep disconnecting each other.
///
/// `acquire` returns the open client or makes one (with the first caller's options); each
/// `acquire` is matched by one `release`, and the last `release` closes the client.
///
/// ```swift
/// let a = try MQTTSharedClients.acquire(options: .init(host: "127.0.0.1", port: 1883, clientID: "cams"))
/// let b = try MQTTSharedClients.acquire(options: .init(host: "127.0.0.1", port: 1883, clientID: "cams"))
/// print(a === b)
/// // Prints true
/// ```
public enum MQTTSharedClients {
    private struct Key: Hashable {
        var host: String
        var port: Int
        var clientID: String
    }

    private final class Entry {
        let client: MQTTClient
        var users = 1
        init(_ client: MQTTClient) { self.client = client }
    }

    /// `@unchecked Sendable`: `entries` is only touched with `lock` held.
    private final class Table: @unchecked Sendable {
        let lock = NSLock()
        var entries: [Key: Entry] = [:]
    }

    private static let table = Table()

    /// The shared client for `options`' host, port and client id, made if there is none.
    /// - Throws: what `MQTTClient.init(options:)` throws.
    public static func acquire(options: MQTTClient.Options) throws -> MQTTClient {
        let key = Key(host: options.host, port: options.port, clientID: options.clientID)
        table.lock.lock()
        defer { table.lock.unlock() }
        if let e = table.entries[key] {
            e.users += 1
            return e.client
        }
        let client = try MQTTClient(options: options)
        table.entries[key] = Entry(client)
        return client
    }

    /// Gives back one `acquire`; the last one closes the client, flushing for at most
    /// `timeout` seconds.
    /// - Returns: the client's final counts when this call closed it, else `nil`.
    @discardableResult
    public static func release(_ client: MQTTClient, timeout: Double = 2) -> MQTTClient.Statistics? {
        let key = Key(host: client.options.host, port: client.options.port, clientID: client.options.clientID)
        table.lock.lock()
        guard let e = table.entries[key], e.client === client else {
            table.lock.unlock()
            return nil
        }
        e.users -= 1
        let last = e.users == 0
        if last { table.entries[key] = nil }
        table.lock.unlock()
        return last ? client.close(timeout: timeout) : nil
    }
}
