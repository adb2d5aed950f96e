import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowMedia
import FuzzSupport

// Option values: one node of a registered calculator with options drawn from its schema,
// built (validation may refuse it: that is the point) and, when it builds, run on small
// images. A trap, a hang or an allocation over the limit is a finding.
//
// The input is only a source of random choices: which calculator, which fields to set and to
// what (interesting values — 0, −0, ±1, 0.5, 1e-308, ±1e308, NaN, ±inf, Int.max, Int.min,
// 2147483647, 99999999999999999999 — or random ones), which optional ports to wire, the
// image format and its pixels.
//
// Not fuzzed (they need files, models or a network; their options are checked by their own
// tests): MQTTSinkCalculator (a broker), InferenceCalculator (a model file),
// TfLiteModelCalculator (a model blob), LocalFileContentsCalculator (reads files),
// HaarCascadeDetectorCalculator (a cascade file), HOGPeopleDetectorCalculator (a HOG model file),
// LUTCalculator (a .cube file).

/// The calculators `frameflow` registers, less the skipped ones.
let registry = CalculatorRegistry.standard.adding([DebugSnapshotCalculator.self] + CalculatorRegistry.mlCalculators)
let skipped: Set<String> = [
    "MQTTSinkCalculator", "InferenceCalculator", "TfLiteModelCalculator", "LocalFileContentsCalculator",
    "HaarCascadeDetectorCalculator", "HOGPeopleDetectorCalculator", "LUTCalculator",
]
/// FUZZ_OPTIONS_ONLY=Name fuzzes one calculator (to reproduce or to look at one closely).
let names = ProcessInfo.processInfo.environment["FUZZ_OPTIONS_ONLY"].map { [$0] } ?? registry.names.filter { !skipped.contains($0) }
/// Smaller budgets than the defaults, so that what they allow runs in well under a second; a
/// calculator that allocates past them (or takes a second within them) is a finding.
let environment: GraphEnvironment = {
    var l = ResourceLimits()
    l.maxImagePixels = 1 << 20
    l.maxTensorElements = 1 << 22
    return GraphEnvironment(limits: l)
}()
/// One pool for every graph: a pool per run (the default) left worker threads behind faster
/// than they exited (thousands after a minute, 2 GB of RSS; reported with issue 42).
let pool = WorkerPool(threads: 2)
let verbose = ProcessInfo.processInfo.environment["FUZZ_OPTIONS_VERBOSE"] != nil

/// Choices read from the fuzzer's bytes; zeros once they run out.
struct Choices {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(word() % UInt64(n)) }
    mutating func word() -> UInt64 { (0..<8).reduce(0) { v, _ in v << 8 | UInt64(byte()) } }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

let interestingReals = [
    "0", "-0", "1", "-1", "0.5", "1e-308", "1e308", "-1e308", "nan", "inf", "-inf", "9223372036854775807",
    "-9223372036854775808", "2147483647", "99999999999999999999", "2", "100", "255", "0.001",
]
let interestingInts = [
    "0", "-1", "1", "2", "3", "4", "8", "255", "256", "65536", "2147483647", "-2147483648", "9223372036854775807",
    "-9223372036854775808", "99999999999999999999", "1e308", "nan",
]

func real(_ c: inout Choices) -> String {
    switch c.below(4) {
    case 0: return "\(Double(c.below(2001) - 1000) / 8)"
    case 1:
        let d = Double(bitPattern: c.word())
        return d.isFinite ? "\(d)" : "\(Double(c.below(10)))"
    default: return interestingReals[c.below(interestingReals.count)]
    }
}

func integer(_ c: inout Choices) -> String {
    switch c.below(4) {
    case 0: return "\(c.below(40) - 4)"
    case 1: return "\(Int64(bitPattern: c.word()))"
    default: return interestingInts[c.below(interestingInts.count)]
    }
}

/// Enumeration names by field name, from the options' binary schema.
func enumNames(_ schema: ProtoSchema?, into map: inout [String: [String]], depth: Int = 0) {
    guard let schema, depth < 4 else { return }
    for f in schema.fields {
        switch f.kind {
        case .enumeration(let cases): map[f.name] = cases.sorted { $0.key < $1.key }.map(\.value)
        case .message(let m): enumNames(m, into: &map, depth: depth + 1)
        default: break
        }
    }
}

protocol OptionalType { static var wrapped: Any.Type { get } }
extension Optional: OptionalType { static var wrapped: Any.Type { Wrapped.self } }
protocol ArrayType { static var element: Any.Type { get } }
extension Array: ArrayType { static var element: Any.Type { Element.self } }

/// A default value of a nested options type, decoded from `{}` (nil when it has required fields).
func blank(_ type: Any.Type) -> Any? {
    guard let t = type as? any Decodable.Type else { return nil }
    return try? JSONDecoder().decode(t, from: Data("{}".utf8))
}

/// `camelCase` as graph files write it.
func snake(_ s: String) -> String {
    var out = ""
    for ch in s {
        if ch.isUppercase {
            if !out.isEmpty { out += "_" }
            out += ch.lowercased()
        } else {
            out.append(ch)
        }
    }
    return out
}

/// The text-format value(s) of field `name` drawn for a value shaped like `value` (its type
/// `type`), or nil to leave the field out.
func fieldText(_ name: String, _ value: Any?, _ type: Any.Type, _ enums: [String: [String]], _ c: inout Choices, depth: Int) -> [String]? {
    if let o = type as? OptionalType.Type {
        let inner = value.flatMap { v -> Any? in
            let m = Mirror(reflecting: v)
            return m.displayStyle == .optional ? m.children.first?.value : v
        }
        return fieldText(name, inner ?? blank(o.wrapped), o.wrapped, enums, &c, depth: depth)
    }
    if type == Double.self || type == Float.self { return ["\(name): \(real(&c))"] }
    if type == Int.self || type == Int32.self || type == Int64.self || type == UInt8.self || type == UInt32.self || type == UInt64.self {
        return ["\(name): \(integer(&c))"]
    }
    if type == Bool.self { return ["\(name): \(c.chance(50))"] }
    if type == String.self { return nil }  // paths, folders, names: not fuzzed
    if let cases = enums[name], !cases.isEmpty { return ["\(name): \(cases[c.below(cases.count)])"] }
    if let a = type as? ArrayType.Type {
        let count = c.below(5)
        var lines: [String] = []
        let first = value.flatMap { Mirror(reflecting: $0).children.first?.value }
        for _ in 0..<count {
            guard let l = fieldText(name, first ?? blank(a.element), a.element, enums, &c, depth: depth) else { return nil }
            lines += l
        }
        return lines
    }
    guard let value else { return nil }
    let m = Mirror(reflecting: value)
    if m.displayStyle == .enum {
        // An enum outside the schema: its own value, or a name no calculator knows.
        guard let raw = (value as? any RawRepresentable)?.rawValue as? String else { return nil }
        return ["\(name): \(c.chance(80) ? raw : "FUZZ_UNKNOWN")"]
    }
    guard m.displayStyle == .struct, depth < 3 else { return nil }
    return ["\(name) { \(messageText(value, enums, &c, depth: depth + 1)) }"]
}

/// The fields of a message shaped like `value`, each set with some chance.
func messageText(_ value: Any, _ enums: [String: [String]], _ c: inout Choices, depth: Int) -> String {
    var parts: [String] = []
    for child in Mirror(reflecting: value).children {
        guard var label = child.label else { continue }
        if label.hasPrefix("_") { label.removeFirst() }
        guard c.chance(45) else { continue }
        if let l = fieldText(snake(label), child.value, type(of: child.value), enums, &c, depth: depth) { parts += l }
    }
    return parts.joined(separator: " ")
}

/// The options text for calculator type `T`: `[TypeName.ext] { … }`, or nil without options.
func optionsText<T: Calculator>(_ type: T.Type, _ c: inout Choices) -> String? {
    guard T.Options.self != NoOptions.self else { return nil }
    var enums: [String: [String]] = [:]
    enumNames(T.Options.protoSchema, into: &enums)
    let body = messageText(T.Options(), enums, &c, depth: 0)
    let name = T.Options.typeName ?? "frameflow.\(T.name)Options"
    return "options { [\(name).ext] { \(body) } }"
}

/// The node's port lines and the graph's input streams; image inputs come from `image`.
func ports(_ contract: CalculatorContract, _ c: inout Choices) -> (node: [String], graphInputs: [String]) {
    if contract.acceptsAnyPorts { return (["input_stream: \"image\"", "output_stream: \"out0\""], ["image"]) }
    var node: [String] = [], inputs: [String] = []
    func ref(_ p: PortSpec, _ stream: String) -> String {
        p.tag.isEmpty ? stream : p.isRepeated ? "\(p.tag):0:\(stream)" : "\(p.tag):\(stream)"
    }
    for (i, p) in contract.inputs.enumerated() where !p.isOptional || c.chance(50) {
        let stream = p.type == .of(ImageFrame.self) ? "image" : "in\(i)"
        node.append("input_stream: \"\(ref(p, stream))\"")
        if !inputs.contains(stream) { inputs.append(stream) }
    }
    for (i, p) in contract.outputs.enumerated() where !p.isOptional || c.chance(50) {
        node.append("output_stream: \"\(ref(p, "out\(i)"))\"")
    }
    for (i, p) in contract.inputSidePackets.enumerated() where !p.isOptional {
        node.append("input_side_packet: \"\(ref(p, "side\(i)"))\"")
    }
    for (i, p) in contract.outputSidePackets.enumerated() where !p.isOptional || c.chance(50) {
        node.append("output_side_packet: \"\(ref(p, "made\(i)"))\"")
    }
    return (node, inputs)
}

let formats: [PixelFormat] = [.rgba8, .rgb8, .gray8, .bgra8, .rgba8, .rgb8, .grayFloat32, .rgbaFloat32, .nv12(.video), .i420(.full)]

/// A small image of a drawn format with drawn pixels.
func image(_ c: inout Choices) throws -> ImageFrame {
    let format = formats[c.below(formats.count)]
    let (w, h) = c.chance(75) ? (8, 6) : (1 + c.below(16), 1 + c.below(16))
    if verbose { FileHandle.standardError.write(Data("image: \(w)×\(h) \(format)\n".utf8)) }
    var m = try ImagePool.shared.makeImage(width: w, height: h, format: format)
    let seed = c.byte()
    for plane in 0..<m.planes.count {
        let (_, ph) = format.planeSize(plane, width: w, height: h)
        for y in 0..<ph {
            m.withMutableRow(y, plane: plane) { row in
                for i in row.indices { row[i] = seed &+ UInt8(truncatingIfNeeded: i &* 37 &+ y &* 11) }
            }
        }
    }
    return m.freeze()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var c = Choices(bytes: UnsafeBufferPointer(start: data, count: size))
    let name = names[c.below(names.count)]
    guard let type = registry.calculator(named: name) else { return 0 }
    let options = optionsText(type, &c)
    let (node, inputs) = ports(type.contract, &c)
    let text =
        (inputs.map { "input_stream: \"\($0)\"" } + ["node {", "  calculator: \"\(name)\""] + node.map { "  " + $0 }
        + (options.map { ["  " + $0] } ?? []) + ["}"]).joined(separator: "\n")
    if verbose { FileHandle.standardError.write(Data("---\n\(text)\n".utf8)) }
    guard let config = try? GraphConfig(parsing: text, file: "fuzz.pbtxt"), let graph = try? Graph(config, registry: registry, environment: environment) else {
        return 0
    }
    guard (try? graph.start(sidePackets: [:], on: pool)) != nil else { return 0 }
    let frames = 1 + c.below(3)
    for t in 0..<frames {
        guard inputs.contains("image"), let frame = try? image(&c) else { break }
        guard (try? graph.send(frame, to: "image", at: Timestamp(Int64(t)))) == true else { break }
    }
    try? graph.closeAllInputStreams()
    let source = !type.contract.acceptsAnyPorts && type.contract.inputs.isEmpty
    let done = (try? graph.waitUntilDone(timeout: source ? 0.3 : 0.8)) ?? true
    if !done {
        graph.cancel()
        if !source {
            // Inputs closed, yet the graph is still running: a hang.
            FileHandle.standardError.write(Data("fuzz-options: the graph did not finish in 0.8 s:\n\(text)\n".utf8))
            abort()
        }
        _ = try? graph.waitUntilDone(timeout: 0.3)
    }
    if verbose, let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
        FileHandle.standardError.write(Data("done: \(done), \(status.split(separator: "\n").filter { $0.hasPrefix("Threads") }[0])\n".utf8))
    }
    return 0
}

@_cdecl("fuzz_options_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
