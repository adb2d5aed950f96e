import FrameFlowArguments
import FrameFlow
import FrameFlowCalculators
import Foundation

/// `frameflow-bench overhead`: per-packet, per-node overhead: source → 10 × PassThrough → sink.
struct OverheadBench: BenchSection {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "overhead", abstract: "graph overhead per packet per node against GStreamer")
    }

    @Flag(help: "fewer iterations, shorter clips and one round (a quick look, not a measurement)") var quick = false

    @MainActor func measure() throws {
        let small = quick ? 20_000 : 50_000
        let large = quick ? 120_000 : 400_000
        let elements = 12.0  // source + 10 pass-through + sink, as fakesrc + 10 identity + fakesink

        func ffChain(_ n: Int, threads: Int) throws -> Double {
            var o = CounterSource.Options()
            o.count = n
            let graph = try Graph {
                Settings(numThreads: threads)
                Output("out")
                Node(CounterSource.self, in: [], out: ["s0"], options: o)
                for k in 0..<10 { Node(PassThroughCalculator.self, name: "p\(k)", in: "s\(k)", out: k == 9 ? "out" : "s\(k + 1)") }
            }
            let t = monotonicNanoseconds()
            try graph.start()
            try graph.waitUntilDone()
            return Double(monotonicNanoseconds() - t) / 1e9
        }
        func ffSend(_ n: Int) throws -> Double {
            let graph = try Graph {
                Input("in")
                Output("out")
                for k in 0..<10 { Node(PassThroughCalculator.self, name: "p\(k)", in: k == 0 ? "in" : "s\(k)", out: k == 9 ? "out" : "s\(k + 1)") }
            }
            let t = monotonicNanoseconds()
            try graph.start()
            for i in 0..<n { try graph.send(i, to: "in", at: Timestamp(Int64(i))) }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return Double(monotonicNanoseconds() - t) / 1e9
        }
        func gst(_ n: Int) -> Double? {
            let t = monotonicNanoseconds()
            var a = ["-q", "fakesrc", "num-buffers=\(n)"]
            for _ in 0..<10 { a += ["!", "identity"] }
            a += ["!", "fakesink", "sync=false"]
            guard runTool("gst-launch-1.0", a) != nil else { return nil }
            return Double(monotonicNanoseconds() - t) / 1e9
        }
        func perElement(_ f: (Int) throws -> Double?) rethrows -> Double? {
            // Median of three (large − small) differences removes start-up cost.
            var v: [Double] = []
            for _ in 0..<3 {
                guard let a = try f(small), let b = try f(large) else { return nil }
                v.append((b - a) / Double(large - small) / elements * 1e9)
            }
            return v.sorted()[1]
        }
        let g = perElement(gst)
        let one = try perElement { try ffChain($0, threads: 1) }!
        let two = try perElement { try ffChain($0, threads: 2) }!
        let sent = try perElement { try ffSend($0) }!
        print("\n(b) Graph overhead per packet per node, chain of 10 pass-through nodes")
        row("source node → 10 × PassThrough, 1 worker", one, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
        row("source node → 10 × PassThrough, 2 workers", two, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
        row("Graph.send from the app → 10 × PassThrough", sent, g, unit: "ns", refName: "gst-launch fakesrc ! identity ×10 ! fakesink")
        if g == nil { print("  (GStreamer reference unavailable: apt-get install gstreamer1.0-tools)") }
    }
}
