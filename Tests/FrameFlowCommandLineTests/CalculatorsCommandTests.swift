import FrameFlow
import FrameFlowArguments
import FrameFlowCalculators
import Testing

@testable import FrameFlowCommandLine

/// `frameflow calculators [PATTERN]`: every registered calculator, with its ports and every
/// option's type and default (compared with the registry and the options' own defaults).
@Suite struct CalculatorsCommandTests {
    @MainActor @Test func everyRegisteredCalculatorIsListedWithEveryOption() throws {
        let registry = try CalculatorRegistry.commandLine()
        #expect(CalculatorsCommand.matching(nil, in: registry.names) == registry.names)
        var optionsSeen = 0
        for name in registry.names {
            let t = try #require(registry.calculator(named: name))
            let text = CalculatorsCommand.describe(t, name: name)
            #expect(text.hasPrefix(name + "\n"), "\(text)")
            for field in OptionField.fields(of: t.optionsType) {
                optionsSeen += 1
                #expect(!field.type.isEmpty && !field.defaultValue.isEmpty, "\(name).\(field.name)")
                #expect(text.contains("\n    \(field.name): \(field.type) = \(field.defaultValue)"), "\(name): \(field.name) in\n\(text)")
            }
        }
        #expect(optionsSeen > 200, "\(optionsSeen) option fields")
    }

    @Test func optionsShowTheirFileNamesTypesAndDefaults() throws {
        let flow = OptionField.fields(of: FlowLimiterCalculator.optionsType)
        #expect(flow.contains(OptionField(name: "max_in_flight", type: "int", defaultValue: "1")), "\(flow)")
        let blur = OptionField.fields(of: GaussianBlurCalculator.optionsType).map(\.name)
        #expect(!blur.isEmpty && blur.allSatisfy { $0 == $0.lowercased() }, "\(blur)")
    }

    @Test func aPatternKeepsTheNamesContainingIt() {
        let names = ["GateCalculator", "LandmarksSmoothingCalculator", "SobelEdgesCalculator"]
        #expect(CalculatorsCommand.matching("landmark", in: names) == ["LandmarksSmoothingCalculator"])
        #expect(CalculatorsCommand.matching("CALCULATOR", in: names) == names)
        #expect(CalculatorsCommand.matching("nothing", in: names).isEmpty)
    }
}
