import FrameFlow
import Foundation

/// Writes metrics in Prometheus' text exposition format 0.0.4: each family's `# HELP` and
/// `# TYPE` lines, then its samples, label values escaped.
struct PrometheusText {
    private(set) var text = ""

    /// One metric family: `samples` are (labels, value) pairs.
    mutating func family(_ name: String, _ type: String, _ help: String, _ samples: [([(String, String)], Double)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (labels, value) in samples {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.format(value) + "\n"
        }
    }

    /// One histogram family: per series (labels, histogram) its cumulative `_bucket{le=…}`
    /// samples, `_sum` in seconds and `_count`.
    mutating func histogram(_ name: String, _ help: String, _ series: [([(String, String)], LatencyHistogram)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        let bounds = LatencyHistogram.upperBounds.map { Self.format($0) } + ["+Inf"]
        for (labels, h) in series {
            let own = labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }
            for (bound, n) in zip(bounds, h.cumulativeCounts) {
                text += "\(name)_bucket{" + (own + ["le=\"\(bound)\""]).joined(separator: ",") + "} \(n)\n"
            }
            let braces = own.isEmpty ? "" : "{" + own.joined(separator: ",") + "}"
            text += "\(name)_sum\(braces) \(Self.format(h.sumSeconds))\n\(name)_count\(braces) \(h.count)\n"
        }
    }

    /// A label value with backslash, double quote and line feed escaped.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Integers without a fraction, others as Swift prints them; NaN and infinities by name.
    static func format(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
