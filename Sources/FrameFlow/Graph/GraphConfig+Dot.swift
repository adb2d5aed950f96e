import Foundation

extension GraphConfig {
    /// The graph in Graphviz DOT: graph inputs and outputs as ellipses, nodes as boxes,
    /// one edge per stream and consumer, labelled with the stream's name; back edges
    /// dashed.
    ///
    /// ```sh
    /// frameflow graph Graphs/edge_detection_mobile_gpu.pbtxt --dot | dot -Tpng -o graph.png
    /// ```
    public func dot(name: String = "frameflow") -> String {
        func q(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        var lines = ["digraph \(q(name)) {", "  rankdir=TB;", "  node [fontname=\"Helvetica\"];"]
        var producer: [String: String] = [:]
        for s in inputStreams {
            lines.append("  \(q("in:" + s.name)) [label=\(q(s.name)), shape=ellipse, style=filled, fillcolor=\"#dff0d8\"];")
            producer[s.name] = "in:" + s.name
        }
        var names: [String] = []
        var used: [String: Int] = [:]
        for n in nodes {
            var id = n.displayName
            let k = used[id, default: 0]
            used[id] = k + 1
            if k > 0 { id += "_\(k + 1)" }
            names.append(id)
            let label = n.name.map { "\($0)\\n(\(n.calculator))" } ?? n.calculator
            lines.append("  \(q("node:" + id)) [label=\(q(label)), shape=box, style=rounded];")
            for o in n.outputStreams { producer[o.name] = "node:" + id }
        }
        for s in outputStreams {
            lines.append("  \(q("out:" + s.name)) [label=\(q(s.name)), shape=ellipse, style=filled, fillcolor=\"#d9edf7\"];")
        }
        for (i, n) in nodes.enumerated() {
            var renumbered = n
            renumbered.numberUntaggedPorts()
            for ref in renumbered.inputStreams {
                guard let from = producer[ref.name] else { continue }
                let back = renumbered.inputStreamInfo.contains {
                    $0.backEdge
                        && GraphValidator.inputPosition($0.tagIndex, in: renumbered.inputStreams).map { renumbered.inputStreams[$0] == ref } == true
                }
                let label = ref.tag.isEmpty ? ref.name : "\(ref.tag):\(ref.name)"
                lines.append("  \(q(from)) -> \(q("node:" + names[i])) [label=\(q(label))\(back ? ", style=dashed, constraint=false" : "")];")
            }
        }
        for s in outputStreams {
            if let from = producer[s.name] { lines.append("  \(q(from)) -> \(q("out:" + s.name)) [label=\(q(s.name))];") }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
