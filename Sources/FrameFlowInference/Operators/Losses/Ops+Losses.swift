import Foundation

/// The classification losses ONNX exports of training graphs carry: NegativeLogLikelihoodLoss
/// and SoftmaxCrossEntropyLoss (with its log-probabilities), class weights, `ignore_index`,
/// and the three reductions.
extension Ops {
    /// Losses by op type.
    static let lossKernels = kernels(["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"]) { n, ins, _ in try runLoss(n, ins) }

    static func runLoss(_ n: ONNXNode, _ ins: [Tensor?]) throws -> [Tensor] {
        let scores = try Ops.need(ins, 0), target = try Ops.need(ins, 1), weight = ins.count > 2 ? ins[2] : nil
        guard scores.shape.count >= 2, target.shape == [scores.shape[0]] + scores.shape[2...] else {
            throw ModelError("\(n.opType): scores \(scores.shape) and targets \(target.shape) do not fit")
        }
        let (N, C) = (scores.shape[0], scores.shape[1]), inner = scores.shape[2...].reduce(1, *)
        guard weight.map({ $0.count == C }) ?? true else { throw ModelError("\(n.opType): \(weight!.count) class weights for \(C) classes") }
        var logProb = values(scores)
        if n.opType == "SoftmaxCrossEntropyLoss" {
            // Log-softmax over the class axis, shifted by the maximum.
            for b in 0..<N {
                for i in 0..<inner {
                    let at = (0..<C).map { (b * C + $0) * inner + i }
                    let m = at.map { logProb[$0] }.max() ?? 0
                    let lse = m + log(at.reduce(0.0) { $0 + Foundation.exp(logProb[$1] - m) })
                    for k in at { logProb[k] -= lse }
                }
            }
        }
        let ignore = n.attributes["ignore_index"] == nil ? nil : n.int("ignore_index", 0)
        let w = weight.map(values), t = target.asInts
        var loss = [Double](repeating: 0, count: N * inner), weights = loss
        for b in 0..<N {
            for i in 0..<inner {
                let j = b * inner + i, cls = t[j]
                if cls == ignore { continue }
                guard cls >= 0, cls < Int64(C) else { throw ModelError("\(n.opType): target \(cls) outside \(C) classes") }
                weights[j] = w?[Int(cls)] ?? 1
                loss[j] = -logProb[(b * C + Int(cls)) * inner + i] * weights[j]
            }
        }
        let out: Tensor
        switch n.string("reduction", "mean") {
        case "none": out = tensor(target.shape, loss, type: scores.type)
        case "sum": out = tensor([], [loss.reduce(0, +)], type: scores.type)
        case "mean":
            let total = weights.reduce(0, +)
            out = tensor([], [total == 0 ? 0 : loss.reduce(0, +) / total], type: scores.type)
        default: throw ModelError("\(n.opType): reduction '\(n.string("reduction", ""))' is not known")
        }
        return n.opType == "SoftmaxCrossEntropyLoss" ? [out, tensor(scores.shape, logProb, type: scores.type)] : [out]
    }
}
