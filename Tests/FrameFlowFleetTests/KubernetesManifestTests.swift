import Foundation
import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

/// What deploy/kubernetes/ holds beyond the schemas (scripts/ci/check-kubernetes.sh checks
/// those): the ConfigMap's fleet file and video list parse as the pods will read them, the
/// graphs they name are in the image, and the shard counts agree with the pod counts.
@Suite struct KubernetesManifestTests {
    static func manifest(_ name: String) throws -> String {
        try String(contentsOfFile: RepositoryFiles.path("deploy/kubernetes/" + name), encoding: .utf8)
    }

    /// The block scalar `key: |` of a YAML file, without its indentation.
    static func block(_ key: String, in yaml: String) throws -> String {
        let lines = yaml.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "\(key): |" }, "no \(key): | block")
        let keyIndent = lines[start].prefix { $0 == " " }.count
        var body: [String] = []
        for line in lines[(start + 1)...] {
            let indent = line.prefix { $0 == " " }.count
            if !line.trimmingCharacters(in: .whitespaces).isEmpty && indent <= keyIndent { break }
            body.append(line)
        }
        let indent = body.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
    }

    /// The numbers `pattern`'s first group captures, in order.
    static func numbers(_ pattern: String, in text: String) throws -> [Int] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).flatMap { Int(text[$0]) }
        }
    }

    /// A path in the image (`/opt/frameflow/…`, the Containerfile's WORKDIR) in this checkout.
    static func inRepository(_ imagePath: String) -> String {
        let prefix = "/opt/frameflow/"
        return imagePath.hasPrefix(prefix) ? RepositoryFiles.path(String(imagePath.dropFirst(prefix.count))) : imagePath
    }

    @Test func theFleetFileParsesAndSplitsOverTheStatefulSet() throws {
        let fleet = try FleetConfig(text: try Self.block("fleet.pbtxt", in: try Self.manifest("config.yaml")), file: "/config/fleet.pbtxt")
        #expect(fleet.cameras.count >= 2)
        for camera in fleet.cameras {
            #expect(FileManager.default.fileExists(atPath: Self.inRepository(camera.graph)), "\(camera.name): \(camera.graph) is not in the image")
        }
        #expect(fleet.mqtt?.host == "mosquitto" && fleet.mqtt?.clientID == "", "each pod needs a client id of its own")
        let statefulSet = try Self.manifest("fleet-statefulset.yaml")
        let replicas = try Self.numbers(#"^\s+replicas: (\d+)"#, in: statefulSet)
        let shards = try Self.numbers(#"^\s+- name: REPLICAS\n\s+value: "(\d+)""#, in: statefulSet)
        #expect(replicas.count == 1 && shards == replicas, "spec.replicas \(replicas) and REPLICAS \(shards) must agree")
        #expect(statefulSet.contains(#"args: ["fleet", "/config/fleet.pbtxt", "--shard", "$(POD_INDEX)/$(REPLICAS)", "--http", "0.0.0.0:8080"]"#))
        // Kubernetes probes the fleet's HTTP face.
        #expect(statefulSet.contains("httpGet: { path: /healthz, port: http }") && statefulSet.contains("httpGet: { path: /readyz, port: http }"))
        // Every camera runs in exactly one pod, and no pod is idle.
        let n = try #require(replicas.first)
        var seen: [String] = []
        for i in 0..<n {
            let part = try Shard(index: i, count: n).select(fleet.cameras.map(\.name))
            #expect(!part.isEmpty, "pod \(i) of \(n) would run no camera")
            seen += part
        }
        #expect(seen.sorted() == fleet.cameras.map(\.name).sorted())
    }

    @Test func theVideoListParsesAndTheJobsCountsAgree() throws {
        let list = try BatchList(
            data: Data(try Self.block("videos.txt", in: try Self.manifest("config.yaml")).utf8), file: "/config/videos.txt", baseDirectory: "/config")
        #expect(list.entries.allSatisfy { $0.path.hasPrefix("/data/") }, "the videos are on the volume mounted at /data")
        let job = try Self.manifest("batch-job.yaml")
        let completions = try Self.numbers(#"^\s+completions: (\d+)"#, in: job)
        let parallelism = try Self.numbers(#"^\s+parallelism: (\d+)"#, in: job)
        let shards = try Self.numbers(#"^\s+- \$\(JOB_COMPLETION_INDEX\)/(\d+)"#, in: job)
        #expect(completions.count == 1 && parallelism == completions && shards == completions, "\(completions) \(parallelism) \(shards)")
        #expect(job.contains("completionMode: Indexed"))
        let indexes = try #require(completions.first)
        #expect(list.entries.count >= indexes, "every index has a video")
        let graphArgument = try #require(job.components(separatedBy: "\n").drop { !$0.hasSuffix("- --graph") }.dropFirst().first)
        #expect(graphArgument.trimmingCharacters(in: .whitespaces) == "- /config/face_detection_batch.pbtxt")
    }

    /// The Job's graph, from the ConfigMap, run as the pods run it on a clip: every frame
    /// reaches the detector (no flow limiter skips any).
    @Test func theBatchGraphSeesEveryFrame() throws {
        let dir = try BatchCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let graph = dir.appendingPathComponent("face_detection_batch.pbtxt").path
        try Self.block("face_detection_batch.pbtxt", in: try Self.manifest("config.yaml")).write(toFile: graph, atomically: true, encoding: .utf8)
        let clip = dir.appendingPathComponent("clip.mp4").path
        let made = try BatchCommandTests.run(
            "ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-frames:v", "6", "-pix_fmt", "yuv420p", clip])
        #expect(made.status == 0, "\(made.err)")
        let list = dir.appendingPathComponent("videos.txt").path
        try "clip.mp4\n".write(toFile: list, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out").path
        let r = try BatchCommandTests.run(
            BatchCommandTests.binary, ["batch", list, "--graph", graph, "--shard", "0/1", "--output-dir", out, "--output-stream", "detections=jsonl"])
        #expect(r.status == 0, "\(r.err)")
        let frames = try BatchCommandTests.probeFrames(clip)
        let lines = try String(contentsOfFile: out + "/clip.detections.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == frames, "one detections line per frame: \(lines.count) of \(frames)")
    }

    @Test func theImageNameIsSetInOnePlace() throws {
        let kustomization = try Self.manifest("kustomization.yaml")
        for file in ["fleet-statefulset.yaml", "batch-job.yaml"] {
            #expect(try Self.manifest(file).contains("image: frameflow\n"), "\(file) names the image kustomization.yaml rewrites")
        }
        let listed = kustomization.components(separatedBy: "\n").filter { $0.hasPrefix("  - ") && $0.hasSuffix(".yaml") }.map {
            String($0.dropFirst(4))
        }
        let present = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("deploy/kubernetes"))
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }
        #expect(listed.sorted() == present.sorted(), "kustomization.yaml lists every manifest")
    }
}
