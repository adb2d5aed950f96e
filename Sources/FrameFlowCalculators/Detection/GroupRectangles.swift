/// OpenCV's `groupRectangles`: clusters similar rectangles, keeps clusters with more than
/// `threshold` members (averaged), then drops clusters nested inside a stronger one.
public enum GroupRectangles {
    public struct Group: Sendable, Equatable {
        public var x: Int, y: Int, width: Int, height: Int
        /// Members of the cluster.
        public var neighbors: Int
    }

    /// Rectangles are `(x, y, width, height)`. With `threshold ≤ 0` they come back
    /// unchanged (one neighbour each), as in OpenCV.
    public static func group(_ rects: [(Int, Int, Int, Int)], threshold: Int, eps: Double) -> [Group] {
        if threshold <= 0 || rects.isEmpty {
            return rects.map { Group(x: $0.0, y: $0.1, width: $0.2, height: $0.3, neighbors: 1) }
        }
        let (labels, n) = partition(rects, eps: eps)
        var sums = Array(repeating: (0, 0, 0, 0), count: n)
        var counts = Array(repeating: 0, count: n)
        for (i, l) in labels.enumerated() {
            sums[l].0 += rects[i].0; sums[l].1 += rects[i].1; sums[l].2 += rects[i].2; sums[l].3 += rects[i].3
            counts[l] += 1
        }
        func avg(_ v: Int, _ c: Int) -> Int { Int(saturating: (Float(v) * (1 / Float(c))).rounded(.toNearestOrEven)) }
        let avgRects = (0..<n).map {
            (avg(sums[$0].0, counts[$0]), avg(sums[$0].1, counts[$0]), avg(sums[$0].2, counts[$0]), avg(sums[$0].3, counts[$0]))
        }
        var out: [Group] = []
        for i in 0..<n {
            let r1 = avgRects[i], n1 = counts[i]
            if n1 <= threshold { continue }
            var nested = false
            for j in 0..<n where j != i && counts[j] > threshold {
                let r2 = avgRects[j], n2 = counts[j]
                let dx = Int(saturating: (Double(r2.2) * eps).rounded(.toNearestOrEven))
                let dy = Int(saturating: (Double(r2.3) * eps).rounded(.toNearestOrEven))
                if r1.0 >= r2.0 - dx && r1.1 >= r2.1 - dy && r1.0 + r1.2 <= r2.0 + r2.2 + dx && r1.1 + r1.3 <= r2.1 + r2.3 + dy
                    && (n2 > max(3, n1) || n1 < 3)
                {
                    nested = true
                    break
                }
            }
            if !nested { out.append(Group(x: r1.0, y: r1.1, width: r1.2, height: r1.3, neighbors: n1)) }
        }
        return out
    }

    /// OpenCV's `cv::partition` with `SimilarRects(eps)`: each rectangle's class (numbered by
    /// first member) and the number of classes. Two rectangles are similar when every edge is
    /// within `eps` × the mean of their smaller width and smaller height.
    static func partition(_ rects: [(Int, Int, Int, Int)], eps: Double) -> (labels: [Int], classes: Int) {
        func similar(_ a: (Int, Int, Int, Int), _ b: (Int, Int, Int, Int)) -> Bool {
            let delta = eps * Double(min(a.2, b.2) + min(a.3, b.3)) * 0.5
            return Double(abs(a.0 - b.0)) <= delta && Double(abs(a.1 - b.1)) <= delta
                && Double(abs(a.0 + a.2 - b.0 - b.2)) <= delta && Double(abs(a.1 + a.3 - b.1 - b.3)) <= delta
        }
        var parent = Array(0..<rects.count)
        func find(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var j = i
            while parent[j] != r { let n = parent[j]; parent[j] = r; j = n }
            return r
        }
        for i in 0..<rects.count {
            for j in 0..<i where similar(rects[i], rects[j]) {
                let a = find(i), b = find(j)
                if a != b { parent[a] = b }
            }
        }
        var classOf: [Int: Int] = [:]
        var labels: [Int] = []
        for i in 0..<rects.count {
            let r = find(i)
            if classOf[r] == nil { classOf[r] = classOf.count }
            labels.append(classOf[r]!)
        }
        return (labels, classOf.count)
    }
}
