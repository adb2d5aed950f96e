import FrameFlow
import FrameFlowArguments

/// `frameflow calculators`: every registered calculator with its ports.
public struct CalculatorsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "calculators", abstract: "list the registered calculators with their ports")
    }

    public init() {}

    @MainActor public func run() throws {
        let registry = try CalculatorRegistry.commandLine()
        for name in registry.names {
            guard let t = registry.calculator(named: name) else { continue }
            print(Self.describe(t, name: name))
        }
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
        return lines.joined(separator: "\n")
    }
}
