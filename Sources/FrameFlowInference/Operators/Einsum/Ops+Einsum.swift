import Foundation

/// Einsum: a sum of products over labelled axes ("bij,bjk->bik", "...ii->...i", "i,i"),
/// with ellipses broadcast from the right and implicit outputs (the labels used once, in
/// alphabetical order, after the ellipsis). One loop over every combination of labels:
/// as many multiply-adds as the equation names, no blocking — attention-sized contractions
/// belong in MatMul.
extension Ops {
    static let einsumKernels: [String: OpKernel] = ["Einsum": { n, ins, _ in [try einsum(n, ins)] }]

    static func einsum(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let inputs = ins.compactMap { $0 }
        let equation = n.string("equation", "").filter { !$0.isWhitespace }
        let sides = equation.components(separatedBy: "->")
        let terms = sides[0].components(separatedBy: ",")
        guard sides.count <= 2, terms.count == inputs.count, !inputs.isEmpty else {
            throw ModelError("Einsum equation '\(equation)' does not fit \(inputs.count) inputs")
        }
        // Ellipsis axes get labels "0", "1", … counted from the right, shared by all inputs.
        var ellipsis = 0
        var labelled: [[Character]] = []
        for (term, x) in zip(terms, inputs) {
            let letters = term.replacingOccurrences(of: "...", with: "")
            guard letters.allSatisfy({ $0.isLetter }), term.components(separatedBy: "...").count <= 2 else {
                throw ModelError("Einsum term '\(term)' is not letters with at most one ellipsis")
            }
            let extra = x.shape.count - letters.count
            guard extra >= 0, extra == 0 || term.contains("...") else { throw ModelError("Einsum term '\(term)' does not fit shape \(x.shape)") }
            ellipsis = max(ellipsis, extra)
            let dots = (0..<extra).map { Character(String(extra - 1 - $0)) }
            let parts = term.components(separatedBy: "...")
            labelled.append(parts.count == 2 ? Array(parts[0]) + dots + Array(parts[1]) : Array(letters))
        }
        let dotLabels = (0..<ellipsis).map { Character(String(ellipsis - 1 - $0)) }
        let output: [Character]
        if sides.count == 2 {
            let parts = sides[1].components(separatedBy: "...")
            guard parts.count <= 2, sides[1].replacingOccurrences(of: "...", with: "").allSatisfy({ $0.isLetter }) else {
                throw ModelError("Einsum output '\(sides[1])' is not letters with at most one ellipsis")
            }
            output = parts.count == 2 ? Array(parts[0]) + dotLabels + Array(parts[1]) : Array(parts[0])
        } else {
            let counts = Dictionary(labelled.joined().filter(\.isLetter).map { ($0, 1) }, uniquingKeysWith: +)
            output = dotLabels + counts.filter { $0.value == 1 }.keys.sorted()
        }
        // Each label's size; a size-1 ellipsis axis broadcasts.
        var size: [Character: Int] = [:]
        for (labels, x) in zip(labelled, inputs) {
            for (label, d) in zip(labels, x.shape) {
                if let s = size[label], s != d {
                    guard label.isNumber, s == 1 || d == 1 else { throw ModelError("Einsum label '\(label)' has sizes \(s) and \(d)") }
                    size[label] = max(s, d)
                } else {
                    size[label] = d
                }
            }
        }
        guard output.allSatisfy({ size[$0] != nil }), Set(output).count == output.count else {
            throw ModelError("Einsum output '\(String(output))' names a label no input has, or one twice")
        }
        let summed = size.keys.filter { !output.contains($0) }.sorted()
        let loop = output + summed
        let extents = loop.map { size[$0]! }
        guard let outCount = ONNXModel.elementCount(output.map { size[$0]! }), ONNXModel.elementCount(extents) != nil else {
            throw ModelError("Einsum over \(extents) is too large")
        }
        // Per input, the stride of each loop label (repeated labels add up: a diagonal; a
        // broadcast axis of size 1 has stride 0).
        let strides: [[Int]] = zip(labelled, inputs).map { labels, x in
            let s = x.strides
            return loop.map { label in labels.indices.filter { labels[$0] == label && x.shape[$0] > 1 }.reduce(0) { $0 + s[$1] } }
        }
        let vals = inputs.map(values)
        let inner = summed.reduce(1) { $0 * size[$1]! }
        var out = [Double](repeating: 0, count: outCount)
        var c = [Int](repeating: 0, count: loop.count)
        for k in 0..<(outCount * inner) {
            var p = 1.0
            for j in inputs.indices {
                var o = 0
                for d in loop.indices { o += c[d] * strides[j][d] }
                p *= vals[j][o]
            }
            out[k / max(inner, 1)] += p
            Ops.advance(&c, within: extents)
        }
        return tensor(output.map { size[$0]! }, out, type: inputs[0].type)
    }
}
