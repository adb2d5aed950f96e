import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowFleet
import FrameFlowML
import FrameFlowTestSupport
import Testing

@testable import FrameFlowHTTP

/// `/metrics`' inference histogram and process metrics on a fleet camera that runs a real
/// model (Graphs/digit_classifier.pbtxt with the committed Models/digit_classifier.onnx),
/// read by prometheus-client's parser.
@Suite struct FleetAPIMetricsTests {
    static let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)

    @Test func inferenceHistogramCountsEveryModelRun() throws {
        let root = RepositoryFiles.root.path
        let f = try ServedFleet(
            """
            defaults { reconnect { initial_seconds: 0.1 max_seconds: 0.2 } }
            camera { name: "digits" source: "\(handClip)" graph: "\(root)/Graphs/digit_classifier.pbtxt" resource_root: "\(root)" }

            """, registry: Self.registry)
        defer { f.stop() }
        // Node counters exist while a run is in progress; one scrape reads them all at once.
        var parsed: [String: Any] = [:]
        func series(_ name: String) -> [([String: String], Double)] {
            (parsed["samples"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == name }
                .map { ($0["labels"] as? [String: String] ?? [:], $0["value"] as? Double ?? .nan) }
        }
        #expect(
            try eventually(within: 60) {
                parsed = try FleetAPITests().prometheus(try TestClient.json(port: f.port, "/metrics").body)
                return series("frameflow_camera_inference_seconds_count").first.map { $0.1 >= 5 } ?? false
            })
        let families = parsed["families"] as? [String: String] ?? [:]
        #expect(families["frameflow_camera_inference_seconds"] == "histogram")
        #expect(families["frameflow_worker_cpu_seconds"] == "counter")
        // One model node: its histogram's count is the node's call count, its buckets grow to it.
        let counts = series("frameflow_camera_inference_seconds_count")
        try #require(counts.count == 1, "\(counts)")
        let (labels, count) = counts[0]
        #expect(labels["camera"] == "digits")
        let node = try #require(labels["node"])
        let calls = try #require(series("frameflow_node_calls_total").first { $0.0 == ["camera": "digits", "node": node] }?.1)
        #expect(count == calls)
        #expect(calls > 0)
        let buckets = series("frameflow_camera_inference_seconds_bucket")
            .filter { $0.0["node"] == node }
            .map { (Double($0.0["le"] ?? "") ?? .nan, $0.1) }
            .sorted { $0.0 < $1.0 }
        #expect(buckets.map(\.0) == LatencyHistogram.upperBounds + [.infinity])
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.1 <= $1.1 }, "cumulative: \(buckets)")
        #expect(buckets.last?.1 == count)
        // Every call is timed: the sum is the node's busy time (which adds its close step).
        let sum = try #require(series("frameflow_camera_inference_seconds_sum").first?.1)
        let busy = try #require(series("frameflow_node_busy_seconds_total").first { $0.0["node"] == node }?.1)
        #expect(sum > 0 && sum <= busy + 1e-9, "sum \(sum) busy \(busy)")
        // The workers' CPU time: some, and no more than the whole process used.
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let process = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let workers = try #require(series("frameflow_worker_cpu_seconds_total").first?.1)
        #expect(workers > 0 && workers <= process + 0.02, "workers \(workers) process \(process)")
    }

    /// Cumulative buckets against a count made here of which bound each duration is under.
    @Test func histogramBucketsAreCumulative() {
        let durations: [UInt64] = [0, 1_000_000, 1_000_001, 7_000_000, 30_000_000, 2_500_000_000, 9_000_000_000, 400_000]
        var h = LatencyHistogram()
        for d in durations { h.record(nanoseconds: d) }
        let expected = (LatencyHistogram.upperBounds + [.infinity]).map { bound in
            UInt64(durations.filter { Double($0) / 1e9 <= bound }.count)
        }
        #expect(h.cumulativeCounts == expected)
        #expect(h.count == UInt64(durations.count))
        #expect(h.sumNanoseconds == durations.reduce(0, +))
        var p = PrometheusText()
        p.histogram("t_seconds", "help", [([("camera", "a\"b")], h)])
        #expect(p.text.contains("t_seconds_bucket{camera=\"a\\\"b\",le=\"0.001\"} 3\n"))
        #expect(p.text.contains("t_seconds_bucket{camera=\"a\\\"b\",le=\"+Inf\"} 8\n"))
        #expect(p.text.contains("t_seconds_count{camera=\"a\\\"b\"} 8\n"))
    }
}

/// `--shard I/N` and cameras added over HTTP: a camera of the file that another shard runs is
/// refused (409), and so is saving one where another shard would run it (421); one not
/// saved runs on the shard that took it.
@Suite struct FleetAPIShardTests {
    static let file = """
        defaults { graph: "pass.pbtxt" realtime: false reconnect { initial_seconds: 1000 max_seconds: 1000 } }
        camera { name: "a" source: "\(handClip)" }
        camera { name: "b" source: "\(handClip)" }
        camera { name: "c" source: "\(handClip)" }

        """

    static func block(_ name: String) -> Data { Data("camera { name: \"\(name)\" source: \"\(handClip)\" }".utf8) }

    @Test func addedCamerasRespectTheShard() throws {
        let first = try ServedFleet(Self.file, shard: try Shard(index: 0, count: 2))
        defer { first.stop() }
        #expect(first.fleet.cameras.map(\.name) == ["a", "c"])
        let other = try TestClient.request(port: first.port, "POST", "/api/cameras", headers: first.auth, body: Self.block("b"))
        #expect(other.status == 409)
        #expect((other.object["error"] as? String ?? "").contains("shard 1/2 runs it"), "\(other.text)")
        // Saved, "d" would be the file's 4th camera (position 3): shard 1's.
        let misplaced = try TestClient.request(port: first.port, "POST", "/api/cameras?save=true", headers: first.auth, body: Self.block("d"))
        #expect(misplaced.status == 421)
        #expect((misplaced.object["error"] as? String ?? "").contains("which shard 1/2 runs"), "\(misplaced.text)")
        #expect(try FleetConfig(contentsOfFile: first.file).cameras.map(\.name) == ["a", "b", "c"])
        let here = try TestClient.request(port: first.port, "POST", "/api/cameras", headers: first.auth, body: Self.block("d"))
        #expect(here.status == 201, "\(here.text)")
        #expect(first.fleet.cameras.map(\.name) == ["a", "c", "d"])

        let second = try ServedFleet(Self.file, shard: try Shard(index: 1, count: 2))
        defer { second.stop() }
        let saved = try TestClient.request(port: second.port, "POST", "/api/cameras?save=true", headers: second.auth, body: Self.block("e"))
        #expect(saved.status == 201, "\(saved.text)")
        #expect(try FleetConfig(contentsOfFile: second.file).cameras.map(\.name) == ["a", "b", "c", "e"])
        #expect(second.fleet.cameras.map(\.name) == ["b", "e"])
        // The file now has 4 cameras: the next saved one (position 4) is shard 0's.
        let next = try TestClient.request(port: second.port, "POST", "/api/cameras?save=true", headers: second.auth, body: Self.block("f"))
        #expect(next.status == 421)
    }
}
