import Testing

@testable import FrameFlowFleet

@Suite struct ShardTests {
    @Test(arguments: [1, 2, 3, 5, 8])
    func partsAreDisjointCompleteAndBalanced(count: Int) throws {
        let list = Array(0..<23)
        var seen: [Int] = []
        var sizes: [Int] = []
        for i in 0..<count {
            let part = try Shard(parsing: "\(i)/\(count)").select(list)
            for item in part { #expect(item % count == i) }
            seen += part
            sizes.append(part.count)
        }
        #expect(seen.sorted() == list)
        #expect(sizes.max()! - sizes.min()! <= 1)
    }

    @Test func appendingMovesNoAssignedItem() throws {
        let shard = try Shard(index: 1, count: 3)
        let before = shard.select(Array(0..<10))
        let after = shard.select(Array(0..<14))
        #expect(Array(after.prefix(before.count)) == before)
    }

    @Test(arguments: ["", "3", "1/", "/2", "a/b", "2/2", "-1/2", "0/0", "1/2/3"])
    func malformedValuesAreRefused(text: String) {
        #expect(throws: ShardError.self) { try Shard(parsing: text) }
    }
}
