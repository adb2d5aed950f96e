/// The optimal rectangular linear assignment (minimum total cost, every row or every column
/// assigned), by the shortest augmenting path method of Crouse (IEEE TAES 52(4), 2016) — the
/// method SciPy's `linear_sum_assignment` implements, taken step by step in the same order so
/// that ties are broken the same way (ByteTrack's matching depends on it).
public enum LinearAssignment {
    /// The assignment of a `rows` × `columns` cost matrix (`cost[r * columns + c]`) as
    /// (row, column) pairs sorted by row: `min(rows, columns)` pairs with the least total cost.
    /// Costs must be finite or `+infinity` (never assigned unless nothing else fits); returns
    /// nil when NaN or `-infinity` appear or no complete assignment has a finite cost.
    public static func solve(_ cost: [Double], rows: Int, columns: Int) -> [(row: Int, column: Int)]? {
        precondition(rows >= 0 && columns >= 0 && cost.count == rows * columns, "cost is not rows × columns")
        if rows == 0 || columns == 0 { return [] }
        if cost.contains(where: { $0.isNaN || $0 == -.infinity }) { return nil }
        // The method needs at most as many rows as columns: a tall matrix is solved transposed.
        let transposed = columns < rows
        let (nr, nc) = transposed ? (columns, rows) : (rows, columns)
        var c = cost
        if transposed {
            for r in 0..<rows { for k in 0..<columns { c[k * rows + r] = cost[r * columns + k] } }
        }
        var u = [Double](repeating: 0, count: nr), v = [Double](repeating: 0, count: nc)
        var shortest = [Double](repeating: .infinity, count: nc)
        var path = [Int](repeating: -1, count: nc)
        var col4row = [Int](repeating: -1, count: nr), row4col = [Int](repeating: -1, count: nc)
        var sr = [Bool](repeating: false, count: nr), sc = [Bool](repeating: false, count: nc)
        var remaining = [Int](repeating: 0, count: nc)
        for current in 0..<nr {
            // Dijkstra-like search from `current` for the nearest free column (the sink).
            var minVal = 0.0
            var count = nc
            for k in 0..<nc { remaining[k] = nc - k - 1 }  // reversed: a constant matrix gives the identity
            for k in 0..<nr { sr[k] = false }
            for k in 0..<nc { (sc[k], shortest[k]) = (false, .infinity) }
            var i = current, sink = -1
            while sink == -1 {
                var index = -1
                var lowest = Double.infinity
                sr[i] = true
                for k in 0..<count {
                    let j = remaining[k]
                    let r = minVal + c[i * nc + j] - u[i] - v[j]
                    if r < shortest[j] { (path[j], shortest[j]) = (i, r) }
                    // Among equal costs, prefer a column that ends the path.
                    if shortest[j] < lowest || (shortest[j] == lowest && row4col[j] == -1) { (lowest, index) = (shortest[j], k) }
                }
                minVal = lowest
                if minVal == .infinity { return nil }
                let j = remaining[index]
                if row4col[j] == -1 { sink = j } else { i = row4col[j] }
                sc[j] = true
                count -= 1
                remaining[index] = remaining[count]
            }
            // Dual update, then flip the path's assignments.
            u[current] += minVal
            for k in 0..<nr where sr[k] && k != current { u[k] += minVal - shortest[col4row[k]] }
            for k in 0..<nc where sc[k] { v[k] -= minVal - shortest[k] }
            var j = sink
            while true {
                let r = path[j]
                row4col[j] = r
                swap(&col4row[r], &j)
                if r == current { break }
            }
        }
        if transposed {
            // col4row maps an original column to its original row: report by original row.
            return (0..<nr).map { (row: col4row[$0], column: $0) }.sorted { $0.row < $1.row }
        }
        return (0..<nr).map { (row: $0, column: col4row[$0]) }
    }
}
