import FrameFlow
import FrameFlowArguments

/// `frameflow run -p 'A ! B key=value ! C'`: a chain of calculators written as gst-launch
/// writes elements, turned into a graph from `input_video` to `output_video`. Each element is
/// a registered calculator's name and `key=value` options (the fields of its options in the
/// graph files' text format: `sigma=2`, `mode=ADD`, `lut_path="a b.cube"`); each node's first
/// image input (or first input) takes the previous node's first image output (or first output).
enum QuickPipeline {
    /// The graph text of `pipeline`, one node per line (errors of the graph parser then name
    /// the element by its line: line 3 is the first element).
    static func graphText(_ pipeline: String, registry: CalculatorRegistry) throws -> String {
        let elements = pipeline.split(separator: "!").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !elements.isEmpty, !elements.contains(where: \.isEmpty) else {
            throw ValidationError("-p: an empty element in '\(pipeline)' (elements are separated by !)")
        }
        var text = "input_stream: \"input_video\"\noutput_stream: \"output_video\"\n"
        for (k, element) in elements.enumerated() {
            let words = try Self.words(element)
            let name = words[0]
            guard let type = registry.calculator(named: name) else {
                let hint = nearestName(to: name, in: registry.names).map { " (did you mean \($0)?)" } ?? ""
                throw ValidationError("-p: element \(k + 1): unknown calculator '\(name)'\(hint); frameflow calculators lists them")
            }
            let contract = type.contract
            func port(_ specs: [PortSpec]) -> String {
                let chosen = specs.first { $0.type == .of(ImageFrame.self) } ?? specs.first
                guard let tag = chosen?.tag, !tag.isEmpty else { return "" }
                return tag + ":"
            }
            let input = k == 0 ? "input_video" : "s\(k)"
            let output = k == elements.count - 1 ? "output_video" : "s\(k + 1)"
            var node = "node { calculator: \"\(name)\" input_stream: \"\(port(contract.inputs))\(input)\""
            node += " output_stream: \"\(port(contract.outputs))\(output)\""
            let options = words.dropFirst()
            if !options.isEmpty {
                guard let typeName = type.optionsType.typeName else {
                    throw ValidationError("-p: element \(k + 1): \(name) takes no options")
                }
                var fields: [String] = []
                for o in options {
                    guard let eq = o.firstIndex(of: "="), eq != o.startIndex else {
                        throw ValidationError("-p: element \(k + 1) (\(name)): '\(o)' is not key=value")
                    }
                    fields.append("\(o[..<eq]): \(o[o.index(after: eq)...])")
                }
                node += " options { [\(typeName).ext] { \(fields.joined(separator: " ")) } }"
            }
            text += node + " }\n"
        }
        return text
    }

    /// `element` split at spaces outside double quotes.
    private static func words(_ element: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for c in element {
            if c == "\"" { quoted.toggle() }
            if c == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        guard !quoted else { throw ValidationError("-p: an unclosed quote in '\(element)'") }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
