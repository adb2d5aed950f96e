import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowMedia
import Testing

/// `frameflow validate` and the run agree: for every registered calculator, each numeric
/// option given a value no calculator can use (NaN for a float, the extremes of Int64 for an
/// integer) is refused when the graph is built — what `validate` does — with the graph file's
/// line and column and the field's name.
@Suite struct OptionRangesOverTheRegistryTests {
    static let registry = MLFixtures.registry.adding([DebugSnapshotCalculator.self])

    /// A numeric option: its name in graph text and whether it is floating point.
    struct Field {
        var name: String
        var isFloat: Bool
    }

    /// The numeric top-level fields of `T`'s options: from its protobuf schema, else from
    /// its stored properties (FrameFlow's own options spell them in snake case).
    static func fields<T: Calculator>(_: T.Type) -> [Field] {
        if let schema = T.Options.protoSchema {
            return schema.fields.compactMap { f in
                switch f.kind {
                case .float, .double: Field(name: f.name, isFloat: true)
                case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .fixed32, .fixed64, .sfixed32, .sfixed64:
                    Field(name: f.name, isFloat: false)
                default: nil
                }
            }
        }
        guard T.Options.self != NoOptions.self else { return [] }
        return Mirror(reflecting: T.Options()).children.compactMap { child in
            guard let label = child.label else { return nil }
            let name = label.reduce(into: "") { s, c in s += c.isUppercase ? "_" + c.lowercased() : String(c) }
            switch child.value {
            case is Double, is Float, is Double?, is Float?: return Field(name: name, isFloat: true)
            case is Int, is Int32, is Int64, is Int?, is Int32?, is Int64?: return Field(name: name, isFloat: false)
            default: return nil
            }
        }
    }

    static func typeName<T: Calculator>(_: T.Type) -> String { T.Options.typeName ?? "frameflow.\(T.name)Options" }

    /// Options that make the defaults valid where they are not (required fields), by
    /// calculator: the probed field replaces its own line.
    static let base: [String: [(String, String)]] = [
        "SsdAnchorsCalculator": [("num_layers", "1"), ("strides", "8"), ("input_size_width", "64"), ("input_size_height", "64")],
        "TensorsToDetectionsCalculator": [("num_classes", "1"), ("num_boxes", "1"), ("num_coords", "4")],
    ]

    /// The error building a one-node graph with `field: value` gives, as text; nil when it builds.
    static func error(_ name: String, _ type: String, _ field: String, _ value: String) -> String? {
        let others = (base[name] ?? []).filter { $0.0 != field }.map { "\($0.0): \($0.1)" }
        let text = """
            node {
              calculator: "\(name)"
              options { [\(type).ext] { \((others + ["\(field): \(value)"]).joined(separator: " ")) } }
            }
            """
        do {
            _ = try Graph(GraphConfig(parsing: text, file: "probe.pbtxt"), registry: registry)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func everyNumericOptionRefusesWhatNoCalculatorCanUse() throws {
        var checked = 0, misses: [String] = []
        for name in Self.registry.names {
            guard let type = Self.registry.calculator(named: name) else { continue }
            func probe<T: Calculator>(_ t: T.Type) {
                let typeName = Self.typeName(t)
                for f in Self.fields(t) {
                    let values = f.isFloat ? ["nan"] : ["9223372036854775807", "-9223372036854775808"]
                    let errors = values.compactMap { Self.error(name, typeName, f.name, $0) }
                    let named = errors.contains { $0.contains("probe.pbtxt:") && !$0.contains("probe.pbtxt:0:") && $0.contains(f.name) }
                    if !named { misses.append("\(name).\(f.name): \(errors.first.map { String($0.prefix(160)) } ?? "accepted")") }
                    checked += 1
                }
            }
            probe(type)
        }
        #expect(checked > 130, "checked \(checked) fields")
        #expect(misses.isEmpty, "\(misses.count) of \(checked) fields:\n\(misses.joined(separator: "\n"))")
    }
}
