import Foundation
import FrameFlow

/// A sparse constant tensor's layout (the schema's `SparsityParameters`), as `DENSIFY` reads
/// it: the tensor's dimensions, optionally split into blocks, visited in `traversalOrder`;
/// each visited dimension is either dense (every index, `DimensionMetadata.dense_size` of
/// them) or compressed (`SPARSE_CSR`: for each position of the dimension before it, the
/// indices `arrayIndices[arraySegments[p] ..< arraySegments[p + 1]]`). The buffer holds the
/// values of the non-zero entries in that order. Every number from the file is checked, so a
/// corrupt layout is a `ModelError`, never a read outside an array.
struct TFLiteSparsity {
    /// One visited dimension: dense with `size` indices, or compressed.
    enum Level {
        case dense(size: Int)
        case sparse(segments: [Int], indices: [Int])
    }

    /// The visiting order of the dimensions: first the tensor's own (block counts where
    /// blocked), then the blocks' inner dimensions (rank + k is block k).
    var traversalOrder: [Int]
    /// Which tensor dimension each block splits.
    var blockMap: [Int]
    /// One per entry of `traversalOrder`.
    var levels: [Level]

    /// Reads the `SparsityParameters` table (`traversal_order` 0, `block_map` 1, `dim_metadata`
    /// 2; `DimensionMetadata`: `format` 0, `dense_size` 1, `array_segments` 3 and
    /// `array_indices` 5, unions of Int32Vector / Uint16Vector / Uint8Vector with their types
    /// in 2 and 4).
    init(_ table: FlatBuffer.Table, context: String) throws {
        traversalOrder = try table.ints(0).map { Int($0) }
        blockMap = try table.ints(1).map { Int($0) }
        levels = try table.tables(2).enumerated().map { k, d in
            switch try d.byte(0) {
            case 0: return .dense(size: Int(try d.int(1)))
            case 1:
                return .sparse(
                    segments: try Self.indexVector(d, typeField: 2, valueField: 3, "\(context): dim_metadata[\(k)].array_segments"),
                    indices: try Self.indexVector(d, typeField: 4, valueField: 5, "\(context): dim_metadata[\(k)].array_indices"))
            case let f: throw ModelError("\(context): dim_metadata[\(k)] has format \(f) (0 DENSE and 1 SPARSE_CSR exist)")
            }
        }
    }

    /// A `SparseIndexVector` union's values.
    private static func indexVector(_ d: FlatBuffer.Table, typeField: Int, valueField: Int, _ what: String) throws -> [Int] {
        let type = try d.byte(typeField)
        guard let v = try d.table(valueField), (1...3).contains(type) else { throw ModelError("\(what) is missing (type \(type))") }
        guard let (start, n) = try v.vector(0) else { return [] }
        let width = [1: 4, 2: 2, 3: 1][Int(type)]!
        guard start + width * n <= v.fb.bytes.count else { throw v.fb.fail("\(what): \(n) values run past the end") }
        switch type {
        case 1: return try (0..<n).map { Int(try v.fb.i32(start + 4 * $0)) }
        case 2: return try (0..<n).map { Int(try v.fb.u16(start + 2 * $0)) }
        default: return try (0..<n).map { Int(try v.fb.u8(start + $0)) }
        }
    }

    /// The dense tensor of `shape` whose non-zero entries are `values`, in traversal order
    /// (TFLite's `FormatConverter::SparseToDense`). Errors name `context` and the part of the
    /// layout that does not fit.
    func densify(_ values: [Float], shape: [Int], context: String) throws -> [Float] {
        func fail(_ m: String) -> ModelError { ModelError("\(context): \(m)") }
        let rank = shape.count, total = traversalOrder.count
        guard total == rank + blockMap.count, levels.count == total, total <= 16 else {
            throw fail("traversal_order has \(total) entries, block_map \(blockMap.count), dim_metadata \(levels.count), for rank \(rank)")
        }
        // The tensor's dimensions come first, the blocks' after (as TFLite's converter assumes).
        guard Set(traversalOrder.prefix(rank)) == Set(0..<rank), Set(traversalOrder.dropFirst(rank)) == Set(rank..<total) else {
            throw fail("traversal_order \(traversalOrder) is not the tensor's dimensions followed by its blocks'")
        }
        var blocked = shape, blockSizes: [Int] = []
        guard Set(blockMap).count == blockMap.count else { throw fail("block_map \(blockMap) splits a dimension twice") }
        for (k, dim) in blockMap.enumerated() {
            guard dim >= 0, dim < rank, case .dense(let size) = levels[traversalOrder.firstIndex(of: rank + k)!], size > 0,
                blocked[dim] % size == 0
            else { throw fail("block \(k) over dimension \(dim) does not divide shape \(shape)") }
            blocked[dim] /= size
            blockSizes.append(size)
        }
        let count = try Checked.elements(shape, "the densified tensor")
        // Each level's index moves the flat position by `step`: a blocked dimension's outer
        // index by whole blocks, its inner index by the dimension's stride.
        var stride = [Int](repeating: 1, count: rank)
        for d in stride.indices.reversed().dropFirst() { stride[d] = stride[d + 1] * shape[d + 1] }
        let extent = traversalOrder.map { $0 < rank ? blocked[$0] : blockSizes[$0 - rank] }
        let step = traversalOrder.map { t in
            t < rank ? stride[t] * (blockMap.firstIndex(of: t).map { blockSizes[$0] } ?? 1) : stride[blockMap[t - rank]]
        }
        var out = [Float](repeating: 0, count: count)
        var used = 0
        // Visits level `level` below position `parent` of the level above; `offset` is where
        // the levels above put the entry.
        func visit(_ level: Int, _ parent: Int, _ offset: Int) throws {
            if level == total {
                guard used < values.count else { throw fail("the layout lists more entries than the \(values.count) values in the buffer") }
                out[offset] = values[used]
                used += 1
                return
            }
            switch levels[level] {
            case .dense(let size):
                guard size == extent[level] else {
                    throw fail("dim_metadata[\(level)].dense_size \(size) is not the dimension's size \(extent[level])")
                }
                for i in 0..<size { try visit(level + 1, parent * size + i, offset + i * step[level]) }
            case .sparse(let segments, let indices):
                guard parent + 1 < segments.count else {
                    throw fail("dim_metadata[\(level)].array_segments has \(segments.count) entries; position \(parent) needs \(parent + 2)")
                }
                let (from, to) = (segments[parent], segments[parent + 1])
                guard from >= 0, from <= to, to <= indices.count else {
                    throw fail("dim_metadata[\(level)].array_segments[\(parent)...] = \(from) ..< \(to) is outside array_indices (\(indices.count))")
                }
                for i in from..<to {
                    guard indices[i] >= 0, indices[i] < extent[level] else {
                        throw fail("dim_metadata[\(level)].array_indices[\(i)] = \(indices[i]) is outside the dimension's size \(extent[level])")
                    }
                    try visit(level + 1, i, offset + indices[i] * step[level])
                }
            }
        }
        try visit(0, 0, 0)
        guard used == values.count else { throw fail("the layout lists \(used) entries for \(values.count) values in the buffer") }
        return out
    }
}
