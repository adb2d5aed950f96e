import FrameFlow
import FrameFlowArguments

/// `frameflow calculators`: every registered calculator with its ports.
public struct CalculatorsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "calculators", abstract: "list the registered calculators with their ports and options",
            discussion: "PATTERN keeps the calculators whose name contains it (any case); each option shows its type and default.")
    }

    /// `PATTERN`: a part of the calculators' names.
    @Argument(valueName: "PATTERN", help: "show only calculators whose name contains this") public var pattern: String?

    public init() {}

    @MainActor public func run() throws {
        let registry = try CalculatorRegistry.commandLine()
        let names = Self.matching(pattern, in: registry.names)
        guard !names.isEmpty else {
            let hint = pattern.flatMap { nearestName(to: $0, in: registry.names) }.map { " (did you mean \($0)?)" } ?? ""
            throw ExitRequest.failure("frameflow calculators: no calculator matches '\(pattern ?? "")'\(hint)")
        }
        for name in names {
            guard let t = registry.calculator(named: name) else { continue }
            print(Self.describe(t, name: name))
        }
    }

    /// The names containing `pattern` (any case); all of them without one.
    static func matching(_ pattern: String?, in names: [String]) -> [String] {
        guard let p = pattern?.lowercased(), !p.isEmpty else { return names }
        return names.filter { $0.lowercased().contains(p) }
    }

    /// `name` and its input, output and side-packet ports, one kind a line.
    static func describe(_ t: any Calculator.Type, name: String) -> String {
        let c = t.contract
        func ports(_ specs: [PortSpec]) -> String {
            specs.map { p in
                var s = p.tag.isEmpty ? "(untagged)" : p.tag
                if p.isRepeated { s += "[]" }
                s += ": \(p.type)"
                if p.isOptional { s += "?" }
                return s
            }.joined(separator: ", ")
        }
        var lines = [name]
        if c.acceptsAnyPorts {
            lines.append("  inputs: any   outputs: any (matched by position)")
        } else {
            lines.append("  inputs: \(c.inputs.isEmpty ? "none" : ports(c.inputs))")
            lines.append("  outputs: \(c.outputs.isEmpty ? "none" : ports(c.outputs))")
        }
        if !c.inputSidePackets.isEmpty { lines.append("  input side packets: \(ports(c.inputSidePackets))") }
        if !c.outputSidePackets.isEmpty { lines.append("  output side packets: \(ports(c.outputSidePackets))") }
        let options = t.optionsType
        let fields = OptionField.fields(of: options)
        if !fields.isEmpty {
            lines.append("  options\(options.typeName.map { " (\($0))" } ?? ""):")
            lines += fields.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
