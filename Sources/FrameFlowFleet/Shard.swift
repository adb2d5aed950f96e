import Foundation

/// One part of a list split over `count` processes: `--shard I/N`, the part numbered `index`
/// (0-based, as a StatefulSet ordinal and an Indexed Job's `JOB_COMPLETION_INDEX` are).
///
/// Item k of a list belongs to part k mod N, so the parts are disjoint, together hold every
/// item, differ in size by at most one, and appending to the list moves no item already
/// assigned.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// This part's number, in `0..<count`.
    public let index: Int
    /// How many parts the list is split into.
    public let count: Int

    /// The whole list (`0/1`).
    public static let all = Shard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Part `index` of `count`; throws unless `count` ≥ 1 and `0 ≤ index < count`.
    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw ShardError("the number of shards must be at least 1 (got \(count))") }
        guard (0..<count).contains(index) else {
            throw ShardError("shard \(index) is outside 0..<\(count) (shards are numbered from 0)")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    /// Parses `I/N`, as `--shard` takes it.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw ShardError("shard '\(text)': expected I/N, for example 0/4")
        }
        try self.init(index: i, count: n)
    }

    /// Whether item number `position` of a list belongs to this part.
    public func contains(position: Int) -> Bool { position % count == index }

    /// The items of `list` that belong to this part, in list order.
    public func select<T>(_ list: [T]) -> [T] {
        list.enumerated().filter { contains(position: $0.offset) }.map(\.element)
    }

    public var description: String { "\(index)/\(count)" }
}

/// A `--shard` value that is not `I/N` with `0 ≤ I < N`.
public struct ShardError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
