import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// DetectionLabelIdToTextCalculator against MediaPipe's rule: known ids get their names
/// appended and are cleared unless keep_label_id; unknown ids are skipped.
@Suite struct DetectionLabelIdToTextCalculatorTests {
    static func detection(_ ids: [Int]) -> Detection {
        Detection(labelIDs: ids, scores: ids.map { _ in 0.9 }, locationData: LocationData(format: .global))
    }

    func run(_ options: String, _ detections: [Detection], environment: GraphEnvironment = GraphEnvironment()) throws -> [Detection] {
        let runner = try CalculatorRunner(
            node: """
                calculator: "DetectionLabelIdToTextCalculator" input_stream: "in" output_stream: "out"
                options { [mediapipe.DetectionLabelIdToTextCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
        runner.environment = environment
        runner.add(detections, at: 0)
        try runner.run()
        return try runner.outputs().first?.get([Detection].self) ?? []
    }

    @Test func labelsByID() throws {
        let out = try run("label: \"Palm\" label: \"Fist\"", [Self.detection([0]), Self.detection([1, 5]), Self.detection([7])])
        #expect(out.map(\.labels) == [["Palm"], ["Fist"], []])
        #expect(out.map(\.labelIDs) == [[], [], [7]], "ids cleared where a name was found")
        let kept = try run("label: \"Palm\" keep_label_id: true", [Self.detection([0])])
        #expect(kept[0].labels == ["Palm"] && kept[0].labelIDs == [0])
        let items = try run("label_items { key: 3 value { name: \"three\" } }", [Self.detection([3]), Self.detection([0])])
        #expect(items.map(\.labels) == [["three"], []])
        #expect(try run("label: \"Palm\"", []).isEmpty)
    }

    @Test func labelMapFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dlitt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "zero\none\n".write(to: dir.appendingPathComponent("labels.txt"), atomically: true, encoding: .utf8)
        let env = GraphEnvironment(resourceRoots: [dir.path])
        #expect(try run("label_map_path: \"labels.txt\"", [Self.detection([1])], environment: env).map(\.labels) == [["one"]])
        let missing = thrownDescription { _ = try run("label_map_path: \"nope.txt\"", [Self.detection([1])], environment: env) }
        #expect(missing?.contains("nope.txt") == true)
    }

    @Test func twoLabelSourcesAreRefused() {
        let e = nodeOptionError(
            """
            calculator: "DetectionLabelIdToTextCalculator" input_stream: "in" output_stream: "out"
            options { [mediapipe.DetectionLabelIdToTextCalculatorOptions.ext] { label: "a" label_items { key: 0 value { name: "b" } } } }
            """)
        expectInvalidOption(e, naming: "label_items", "label and label_items")
    }
}
