import Foundation
import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

@testable import FrameFlowML

/// TensorsToClassificationCalculator against MediaPipe's semantics written out by hand.
@Suite struct TensorsToClassificationCalculatorTests {
    typealias Options = TensorsToClassificationCalculator.Options

    @Test func orderThresholdAndTopK() throws {
        var o = Options()
        let scores: [Float] = [0.1, 0.7, 0.3, 0.7]
        // No top_k: every class, index order.
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [0, 1, 2, 3])
        o.sortByDescendingScore = true
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [1, 3, 2, 0])
        o.sortByDescendingScore = false
        o.topK = 2
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [1, 3])
        // Negative top_k (MediaPipe's Tasks graphs write -1) keeps every class, as 0 does.
        o.topK = -1
        #expect(throws: Never.self) { try o.validate() }
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [0, 1, 2, 3])
        // The lowest float (MediaPipe's "no threshold") keeps every class too.
        o.minScoreThreshold = -Double(Float.greatestFiniteMagnitude)
        #expect(throws: Never.self) { try o.validate() }
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [0, 1, 2, 3])
        o.topK = 0
        o.minScoreThreshold = 0.3
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [1, 2, 3])
        o.ignoreClasses = [1]
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [2, 3])
        o.ignoreClasses = []
        o.allowClasses = [0, 2]
        #expect(try TensorsToClassificationCalculator.classify(scores, options: o, labels: nil).map(\.index) == [2])
    }

    @Test func binaryClassificationAndLabelMaps() throws {
        var o = Options()
        o.binaryClassification = true
        o.labelMap = .init(entries: [.init(id: 1, label: "no"), .init(id: 0, label: "yes")])
        let labels = try TensorsToClassificationCalculator.labels(o)
        let out = try TensorsToClassificationCalculator.classify([0.8], options: o, labels: labels)
        #expect(out.map(\.index) == [0, 1] && out.map(\.label) == ["yes", "no"])
        #expect(abs(out[0].score - Double(Float(0.8))) < 1e-12 && abs(out[1].score - (1 - Double(Float(0.8)))) < 1e-12)
        #expect(throws: GraphError.self) { try TensorsToClassificationCalculator.classify([0.8, 0.1], options: o, labels: labels) }
        var items = Options()
        items.labelItems = [.init(key: 1, value: .init(name: "cat", displayName: "Cat")), .init(key: 0, value: .init(name: "dog"))]
        let named = try TensorsToClassificationCalculator.classify(
            [0.2, 0.9], options: items, labels: try TensorsToClassificationCalculator.labels(items))
        #expect(named[1].label == "cat" && named[1].displayName == "Cat" && named[0].label == "dog")
        #expect {
            try TensorsToClassificationCalculator.classify(
                [0.2, 0.9, 0.1], options: items, labels: try TensorsToClassificationCalculator.labels(items))
        } throws: {
            "\($0)".contains("2 entries for 3 classes")
        }
        var dup = Options()
        dup.labelMap = .init(entries: [.init(id: 1, label: "a"), .init(id: 1, label: "b")])
        #expect { try TensorsToClassificationCalculator(options: dup) } throws: { "\($0)".contains("duplicate") }
        var f = Options()
        f.labelMapPath = "/nonexistent/labels.txt"
        #expect { try TensorsToClassificationCalculator(options: f) } throws: { "\($0)".contains("/nonexistent/labels.txt") }
    }

    /// The handedness node of mediapipe/modules/hand_landmark/hand_landmark_cpu.pbtxt, its label
    /// map as the wheel ships it ("Left\nRight\n") under the same relative path: one sigmoid
    /// score s gives Left with s and Right with 1 − s (MediaPipe's binary semantics), top_k 1
    /// keeps the better one, and the output is a `ClassificationList` as MediaPipe's.
    @Test func handednessAsInHandLandmarkCpu() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("frameflow-handedness-\(getpid())")
        let dir = root.appendingPathComponent("mediapipe/modules/hand_landmark")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("Left\nRight\n".utf8).write(to: dir.appendingPathComponent("handedness.txt"))
        let node = """
            calculator: "TensorsToClassificationCalculator"
            input_stream: "TENSORS:handedness_tensor"
            output_stream: "CLASSIFICATIONS:handedness"
            options: { [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
              top_k: 1 label_map_path: "mediapipe/modules/hand_landmark/handedness.txt" binary_classification: true } }
            """
        let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)
        let scores: [Float] = [0.875, 0.25, 0.5]
        let runner = try CalculatorRunner(node: node, registry: registry)
        runner.environment = GraphEnvironment(resourceRoots: [root.path])
        for (t, s) in scores.enumerated() {
            runner.add([Tensor(shape: [1, 1], floats: [s])], tag: "TENSORS", at: Timestamp(Int64(t)))
        }
        try runner.run()
        let lists = try runner.outputs("CLASSIFICATIONS").map { try $0.get(ClassificationList.self) }
        let best = lists.map { $0.classification }
        #expect(best.map { $0.map(\.label) } == [["Left"], ["Right"], ["Left"]], "a tie keeps the first class")
        #expect(best.map { $0.map(\.index) } == [[0], [1], [0]])
        #expect(best.map { $0.map(\.score) } == [[0.875], [0.75], [0.5]])
        // Two scores for a binary classifier: an error naming the node and the stream.
        let two = try CalculatorRunner(node: node, registry: registry)
        two.environment = GraphEnvironment(resourceRoots: [root.path])
        two.add([Tensor(shape: [1, 2], floats: [0.5, 0.5])], tag: "TENSORS", at: 0)
        var bad = ""
        do { try two.run() } catch { bad = "\(error)" }
        #expect(bad.contains("node 'TensorsToClassificationCalculator'") && bad.contains("handedness_tensor"), "\(bad)")
    }

    /// The same options from a binary graph: MediaPipe's field numbers.
    @Test func handednessOptionsFromBinary() throws {
        let bytes = ProtobufWire.graph(
            calculator: "TensorsToClassificationCalculator", inputs: ["TENSORS:t"], outputs: ["CLASSIFICATIONS:c"], ext: 335742638
        ) { w in
            w.int(2, 1)
            w.string(3, "mediapipe/modules/hand_landmark/handedness.txt")
            w.int(4, 1)
        }
        let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)
        let graph = try Graph(GraphConfig(binary: bytes, file: "g.binarypb", registry: registry), registry: registry)
        let o = try #require(graph.options(ofNode: "node") as? Options)
        #expect(o.topK == 1 && o.binaryClassification && o.labelMapPath == "mediapipe/modules/hand_landmark/handedness.txt")
    }

    /// FrameFlow's apply_softmax runs first; labels inline.
    @Test func softmaxAndInlineLabels() throws {
        var o = Options()
        o.applySoftmax = true; o.topK = 2; o.labels = ["a", "b", "c"]
        let out = try TensorsToClassificationCalculator.classify(
            [1, 3, 2], options: o, labels: try TensorsToClassificationCalculator.labels(o))
        let e = [exp(1.0), exp(3.0), exp(2.0)], total = e.reduce(0, +)
        #expect(out.map(\.index) == [1, 2] && out.map(\.label) == ["b", "c"])
        #expect(abs(out[0].score - e[1] / total) < 1e-6 && abs(out[1].score - e[2] / total) < 1e-6)
    }

    @Test func badOptions() throws {
        for (bad, field) in [
            ({ (x: inout Options) in x.topK = Int(Int32.min) - 1 }, "top_k"),
            (
                {
                    $0.allowClasses = [1]; $0.ignoreClasses = [2]
                }, "allow_classes"
            ),
            (
                {
                    $0.binaryClassification = true; $0.ignoreClasses = [0]
                }, "binary_classification"
            ),
        ] {
            var o = Options()
            bad(&o)
            #expect { try o.validate() } throws: { "\($0)".contains(field) }
        }
    }
}

extension TensorsToClassificationCalculatorTests {
    @Test func optionsOutsideTheirRangesAreRefusedNamingTheField() {
        let type = "mediapipe.TensorsToClassificationCalculatorOptions"
        let ports = "input_stream: \"TENSORS:scores\"\noutput_stream: \"CLASSIFICATIONS:classes\""
        expectRefused("TensorsToClassificationCalculator", type, "min_score_threshold: -1e300", field: "min_score_threshold", ports: ports)
        expectRefused("TensorsToClassificationCalculator", type, "top_k: 9223372036854775807", field: "top_k", ports: ports)
        expectRefused("TensorsToClassificationCalculator", type, "top_k: -9223372036854775807", field: "top_k", ports: ports)
    }
}
