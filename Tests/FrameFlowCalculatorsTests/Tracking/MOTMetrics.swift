import FrameFlowCalculators

/// CLEAR MOT and ID scores with py-motmetrics 1.4's definitions (its `MOTAccumulator.update`
/// and `id_global_assignment`), IoU distance with pairs beyond 0.5 forbidden, so FrameFlow's
/// tracks are scored as the reference's are.
struct MOTMetrics: CustomStringConvertible {
    /// One object in one frame: its id and box (x, y, w, h).
    struct Object {
        var id: Int
        var box: [Double]
    }

    var objects = 0, predictions = 0, misses = 0, falsePositives = 0, switches = 0, idtp = 0
    /// 1 − (misses + false positives + switches) / objects.
    var mota: Double { 1 - Double(misses + falsePositives + switches) / Double(objects) }
    /// 2 IDTP / (objects + predictions).
    var idf1: Double { 2 * Double(idtp) / Double(objects + predictions) }

    var description: String {
        "MOTA \(mota), IDF1 \(idf1), id switches \(switches) (objects \(objects), predictions \(predictions), "
            + "misses \(misses), false positives \(falsePositives), IDTP \(idtp))"
    }

    /// motmetrics' `iou_matrix` entry: 1 − IoU, nil (NaN) beyond `limit`.
    static func distance(_ a: [Double], _ b: [Double], limit: Double = 0.5) -> Double? {
        let w = max(min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]), 0)
        let h = max(min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]), 0)
        let inter = w * h
        let iou = inter == 0 ? 0 : inter / (a[2] * a[3] + b[2] * b[3] - inter)
        let d = 1 - iou
        return d > limit ? nil : d
    }

    /// The scores of `hypotheses` against `truth`, frame by frame.
    init(truth: [[Object]], hypotheses: [[Object]]) {
        var matched: [Int: Int] = [:]  // object → its latest hypothesis (motmetrics' `m`)
        var together: [Int: [Int: Int]] = [:]  // object → hypothesis → frames within the limit
        for (objs, hyps) in zip(truth, hypotheses) {
            objects += objs.count
            predictions += hyps.count
            var d = objs.map { o in hyps.map { h in Self.distance(o.box, h.box) } }
            for (i, row) in d.enumerated() {
                for (j, v) in row.enumerated() where v != nil { together[objs[i].id, default: [:]][hyps[j].id, default: 0] += 1 }
            }
            var usedO = [Bool](repeating: false, count: objs.count), usedH = [Bool](repeating: false, count: hyps.count)
            // Pairs of the previous frame that are still within the limit are kept.
            if !objs.isEmpty && !hyps.isEmpty {
                for (i, o) in objs.enumerated() {
                    guard let previous = matched[o.id], let j = hyps.indices.first(where: { !usedH[$0] && hyps[$0].id == previous }),
                        d[i][j] != nil
                    else { continue }
                    (usedO[i], usedH[j]) = (true, true)
                }
                for i in objs.indices where usedO[i] { for j in hyps.indices { d[i][j] = nil } }
                for j in hyps.indices where usedH[j] { for i in objs.indices { d[i][j] = nil } }
                // The rest: the least total distance, forbidden pairs priced out (add_expensive_edges).
                let finite = d.flatMap { $0 }.compactMap { $0 }
                if !finite.isEmpty {
                    let biggest: Double = finite.map { abs($0) }.max() ?? 0
                    let pairsAtMost = Double(min(objs.count, hyps.count))
                    let large: Double = 2 * pairsAtMost * (biggest + 1) + 1
                    let cost = d.flatMap { $0.map { $0 ?? large } }
                    for (i, j) in LinearAssignment.solve(cost, rows: objs.count, columns: hyps.count) ?? [] where d[i][j] != nil {
                        if let previous = matched[objs[i].id], previous != hyps[j].id { switches += 1 }
                        matched[objs[i].id] = hyps[j].id
                        (usedO[i], usedH[j]) = (true, true)
                    }
                }
            }
            misses += usedO.filter { !$0 }.count
            falsePositives += usedH.filter { !$0 }.count
        }
        // IDTP: the one-to-one object/hypothesis pairing with the most frames together.
        let oids = together.keys.sorted()
        let hids = Set(together.values.flatMap { $0.keys }).sorted()
        if !oids.isEmpty && !hids.isEmpty {
            let cost = oids.flatMap { o in hids.map { h in -Double(together[o]?[h] ?? 0) } }
            let pairs = LinearAssignment.solve(cost, rows: oids.count, columns: hids.count) ?? []
            idtp = pairs.reduce(0) { $0 + (together[oids[$1.row]]?[hids[$1.column]] ?? 0) }
        }
    }
}
