import Foundation

/// Runs ONNX's backend node tests (`model.onnx` + `test_data_set_*/input_*.pb`, `output_*.pb`,
/// as Debian's `libonnx-testdata` installs them) and reports each case.
public enum ONNXConformance {
    public enum Outcome: Sendable, Equatable {
        case passed
        case failed(String)
        /// The model uses an op (or type) FrameFlow does not implement.
        case unsupported(String)
    }

    public struct CaseResult: Sendable {
        public var name: String
        public var ops: [String]
        public var outcome: Outcome
    }

    /// The default location of the test data.
    public static let defaultDirectory = "/usr/share/libonnx-testdata/data/node"

    /// Runs every case under `directory` whose name passes `filter`.
    public static func run(directory: String = defaultDirectory, filter: (String) -> Bool = { _ in true }) -> [CaseResult] {
        let cases = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().filter(filter)
        return cases.map { name in runCase((directory as NSString).appendingPathComponent(name), name: name) }
    }

    static func runCase(_ dir: String, name: String) -> CaseResult {
        let modelPath = (dir as NSString).appendingPathComponent("model.onnx")
        let model: Model
        do {
            model = try Model(contentsOf: URL(fileURLWithPath: modelPath))
        } catch {
            let ops = (try? rawOps(modelPath)) ?? []
            return CaseResult(name: name, ops: ops, outcome: .unsupported("\(error)"))
        }
        let ops = model.opTypes.sorted()
        let sets = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix("test_data_set") }.sorted()
        for set in sets {
            let sdir = (dir as NSString).appendingPathComponent(set)
            do {
                var feeds: [String: Tensor] = [:]
                for (i, input) in model.inputs.enumerated() {
                    let p = (sdir as NSString).appendingPathComponent("input_\(i).pb")
                    guard FileManager.default.fileExists(atPath: p) else { continue }
                    feeds[input.name] = try loadTensorProto(contentsOfFile: p).tensor
                }
                let outs = try model.run(feeds)
                for (i, output) in model.outputs.enumerated() {
                    let expected = try loadTensorProto(contentsOfFile: (sdir as NSString).appendingPathComponent("output_\(i).pb")).tensor
                    guard let got = outs[output.name] else { return CaseResult(name: name, ops: ops, outcome: .failed("no output \(output.name)")) }
                    if let why = compare(got, expected) { return CaseResult(name: name, ops: ops, outcome: .failed("\(set) output \(i): \(why)")) }
                }
            } catch {
                return CaseResult(name: name, ops: ops, outcome: .failed("\(set): \(error)"))
            }
        }
        return CaseResult(name: name, ops: ops, outcome: .passed)
    }

    /// nil when equal within |got − expected| ≤ 1e-4 + 1e-4·|expected| (NaN matches NaN).
    static func compare(_ got: Tensor, _ want: Tensor) -> String? {
        guard got.shape == want.shape else { return "shape \(got.shape), expected \(want.shape)" }
        if want.isFloat {
            let g = got.asFloats, w = want.floats
            for i in 0..<w.count {
                if w[i].isNaN && g[i].isNaN { continue }
                if w[i].isInfinite && g[i] == w[i] { continue }
                if !(abs(g[i] - w[i]) <= 1e-4 + 1e-4 * abs(w[i])) { return "value \(i): \(g[i]), expected \(w[i])" }
            }
        } else {
            let g = got.asInts, w = want.ints
            if g != w { return "values \(g.prefix(8)), expected \(w.prefix(8))" }
        }
        return nil
    }

    /// Op types of a model that could not be loaded (for the report).
    static func rawOps(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var ops: Set<String> = []
        let g = try? ONNXModel(data: data, file: path, directory: nil)
        g?.nodes.forEach { ops.insert($0.opType) }
        return ops.sorted()
    }

    /// A per-op table: op, cases passed, failed, unsupported.
    public static func table(_ results: [CaseResult]) -> String {
        var byOp: [String: (Int, Int, Int)] = [:]
        for r in results {
            for op in r.ops {
                var e = byOp[op, default: (0, 0, 0)]
                switch r.outcome {
                case .passed: e.0 += 1
                case .failed: e.1 += 1
                case .unsupported: e.2 += 1
                }
                byOp[op] = e
            }
        }
        var lines = ["op                       passed  failed  unsupported"]
        for (op, e) in byOp.sorted(by: { $0.key < $1.key }) {
            lines.append(op.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: "%7d %7d %12d", e.0, e.1, e.2))
        }
        return lines.joined(separator: "\n")
    }
}
