import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe registers `EndLoopCalculator<std::vector<int>>` only in its tests; the same here,
/// which also shows the generic type is usable from outside the module.
private final class EndLoopIntTestCalculator: EndLoopCalculator<Int> {}

/// The loop body: adds the `OFFSET` clone (0 without one) to each item; drops negative items.
private final class AddOffsetCalculator: Calculator {
    static let contract = CalculatorContract(
        inputs: [.init("", Int.self), .init("OFFSET", Int.self)], outputs: [.init("", Int.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let item = try cc.input(as: Int.self)
        let offset = cc.hasInput("OFFSET") ? try cc.input("OFFSET", as: Int.self) : 0
        if item >= 0 { try cc.emit(item + offset) }
    }
}

/// A default-policy node downstream of the loop: at each `CLOCK` timestamp, the loop's result
/// or "none" when the loop sent nothing there.
private final class JoinResultCalculator: Calculator {
    static let contract = CalculatorContract(
        inputs: [.init("CLOCK"), .init("RESULT", [Int].self)], outputs: [.init("", String.self)])
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let result = cc.hasInput("RESULT") ? "\(try cc.input("RESULT", as: [Int].self))" : "none"
        try cc.emit("\(cc.inputTimestamp.microseconds):\(result)")
    }
}

/// BeginLoop → per-item node → EndLoop, as MediaPipe's begin_end_loop graph tests: items in
/// order at the batch timestamp, empty batches advancing bounds only, clones per item.
@Suite struct BeginEndLoopCalculatorTests {
    let registry = CalculatorRegistry.standard.adding([
        EndLoopIntTestCalculator.self, AddOffsetCalculator.self, JoinResultCalculator.self,
    ])

    func loopGraph() throws -> Graph {
        try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "ints"
                    input_stream: "offset"
                    node {
                      calculator: "BeginLoopIntCalculator"
                      input_stream: "ITERABLE:ints"
                      input_stream: "CLONE:offset"
                      output_stream: "ITEM:item"
                      output_stream: "CLONE:loop_offset"
                      output_stream: "BATCH_END:batch_end"
                    }
                    node {
                      calculator: "AddOffsetCalculator"
                      input_stream: "item"
                      input_stream: "OFFSET:loop_offset"
                      output_stream: "shifted"
                    }
                    node {
                      calculator: "EndLoopIntTestCalculator"
                      input_stream: "ITEM:shifted"
                      input_stream: "BATCH_END:batch_end"
                      output_stream: "ITERABLE:results"
                    }
                    node {
                      calculator: "JoinResultCalculator"
                      input_stream: "CLOCK:offset"
                      input_stream: "RESULT:results"
                      output_stream: "joined"
                    }
                    """, file: "loop.pbtxt"), registry: registry)
    }

    @Test func itemsComeBackInOrderAtTheBatchTimestamp() throws {
        let g = try loopGraph()
        let results = try PacketCollector(g, "results")
        let joined = try PacketCollector(g, "joined")
        try g.start()
        let batches: [(Int64, [Int], Int)] = [(10, [1, 2, 3], 100), (20, [], 200), (30, [4, -1, 5], 300), (40, [6], 400)]
        for (t, ints, offset) in batches {
            try g.send(ints, to: "ints", at: Timestamp(t))
            try g.send(offset, to: "offset", at: Timestamp(t))
            // Each batch finishes on its own: nothing waits for the next input, also after an
            // empty batch (whose bound alone lets the join node go on).
            try g.waitUntilIdle()
            #expect(joined.timestamps.last == Timestamp(t), "the join at \(t) ran without further input")
        }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(results.timestamps == [10, 30, 40], "no packet for the empty batch")
        #expect(try results.packets.map { try $0.get([Int].self) } == [[101, 102, 103], [304, 305], [406]])
        #expect(try joined.packets.map { try $0.get(String.self) } == ["10:[101, 102, 103]", "20:none", "30:[304, 305]", "40:[406]"])
    }

    @Test func aTimestampWithoutIterableStillEndsItsBatch() throws {
        let g = try loopGraph()
        let joined = try PacketCollector(g, "joined")
        try g.start()
        try g.send([1], to: "ints", at: 10)
        try g.send(0, to: "offset", at: 10)
        // Timestamp 25 has a clock packet but no vector: the bound moves past it.
        try g.send(5, to: "offset", at: 25)
        try g.setTimestampBound(26, on: "ints")
        try g.waitUntilIdle()
        #expect(try joined.packets.map { try $0.get(String.self) } == ["10:[1]", "25:none"])
        try g.send([2, 3], to: "ints", at: 30)
        try g.send(10, to: "offset", at: 30)
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(try joined.packets.map { try $0.get(String.self) } == ["10:[1]", "25:none", "30:[12, 13]"])
    }

    @Test func aBatchWithoutItsCloneDoesNotWait() throws {
        let g = try loopGraph()
        let results = try PacketCollector(g, "results")
        try g.start()
        try g.send([1, 2], to: "ints", at: 10)
        try g.setTimestampBound(11, on: "offset")
        // The loop body has no OFFSET clone for these items: the clone's bound lets it go on.
        try g.waitUntilIdle()
        #expect(try results.packets.map { try $0.get([Int].self) } == [[1, 2]])
        #expect(results.timestamps == [10])
        try g.closeAllInputStreams()
        try g.waitUntilDone()
    }

    @Test func beginLoopStampsItemsWithItsOwnCounter() throws {
        let runner = try CalculatorRunner(
            BeginLoopIntCalculator.self, inputs: ["ITERABLE:ints", "CLONE:0:a", "CLONE:1:b"],
            outputs: ["ITEM:item", "CLONE:0:a_out", "CLONE:1:b_out", "BATCH_END:end"])
        runner.add([7, 8], tag: "ITERABLE", at: 5)
        runner.add("x", tag: "CLONE", index: 0, at: 5)
        runner.add(1.5, tag: "CLONE", index: 1, at: 5)
        runner.add([Int](), tag: "ITERABLE", at: 6)
        runner.add([9], tag: "ITERABLE", at: 7)
        runner.add("y", tag: "CLONE", index: 0, at: 7)
        try runner.run()
        let items = runner.outputs("ITEM")
        #expect(items.map(\.timestamp) == [0, 1, 3], "loop timestamp 2 went to the empty batch")
        #expect(try items.map { try $0.get(Int.self) } == [7, 8, 9])
        #expect(runner.outputs("CLONE", 0).map(\.timestamp) == [0, 1, 3])
        #expect(try runner.outputs("CLONE", 0).map { try $0.get(String.self) } == ["x", "x", "y"])
        #expect(runner.outputs("CLONE", 1).map(\.timestamp) == [0, 1], "no clone packet at 7, none sent")
        let ends = runner.outputs("BATCH_END")
        #expect(ends.map(\.timestamp) == [1, 2, 3], "at each batch's last loop timestamp")
        #expect(try ends.map { try $0.get(Timestamp.self) } == [5, 6, 7], "carrying the input timestamp")
    }

    @Test func aTickEndsABatchWithoutIterable() throws {
        let runner = try CalculatorRunner(
            BeginLoopIntCalculator.self, inputs: ["ITERABLE:ints", "TICK:tick"], outputs: ["ITEM:item", "BATCH_END:end"])
        runner.add([4], tag: "ITERABLE", at: 1)
        runner.add(true, tag: "TICK", at: 1)
        runner.add(true, tag: "TICK", at: 2)
        try runner.run()
        #expect(try runner.outputs("ITEM").map { try $0.get(Int.self) } == [4])
        #expect(try runner.outputs("BATCH_END").map { try $0.get(Timestamp.self) } == [1, 2])
        #expect(runner.outputs("BATCH_END").map(\.timestamp) == [0, 1])
    }

    @Test func wrongPayloadNamesTheStream() throws {
        let g = try loopGraph()
        try g.start()
        try g.send("not a vector", to: "ints", at: 1)
        try g.send(0, to: "offset", at: 1)
        try g.closeAllInputStreams()
        #expect { try g.waitUntilDone() } throws: { error in
            let text = "\(error)"
            return text.contains("BeginLoopIntCalculator") && text.contains("'ints'") && text.contains("String")
        }
    }

    @Test func clonePortsMustPairUp() throws {
        let g = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "ints"
                    input_stream: "a"
                    node {
                      calculator: "BeginLoopIntCalculator"
                      input_stream: "ITERABLE:ints"
                      input_stream: "CLONE:a"
                      output_stream: "ITEM:item"
                      output_stream: "BATCH_END:batch_end"
                    }
                    """), registry: registry)
        #expect { try g.start() } throws: { "\($0)".contains("CLONE") }
    }

    @Test func registeredUnderMediaPipesNames() {
        let r = CalculatorRegistry.standard
        let names = [
            "BeginLoopNormalizedRectCalculator", "BeginLoopDetectionCalculator",
            "BeginLoopNormalizedLandmarkListVectorCalculator", "BeginLoopIntCalculator", "BeginLoopImageFrameCalculator",
            "EndLoopNormalizedRectCalculator", "EndLoopDetectionCalculator", "EndLoopNormalizedLandmarkListVectorCalculator",
            "EndLoopLandmarkListVectorCalculator", "EndLoopClassificationListCalculator", "EndLoopRenderDataCalculator",
            "EndLoopBooleanCalculator", "EndLoopImageFrameCalculator",
            // The other vector calculators MediaPipe's modules use.
            "ClipDetectionVectorSizeCalculator", "ClipNormalizedRectVectorSizeCalculator",
            "ConcatenateDetectionVectorCalculator", "ConcatenateFloatVectorCalculator",
            "ConcatenateNormalizedLandmarkListCalculator", "ConcatenateNormalizedLandmarkListVectorCalculator",
            "ConcatenateRenderDataVectorCalculator", "SplitClassificationListVectorCalculator", "SplitDetectionVectorCalculator",
            "SplitLandmarkListCalculator", "SplitNormalizedLandmarkListCalculator", "SplitNormalizedLandmarkListVectorCalculator",
            "SplitNormalizedRectVectorCalculator", "ClassificationListVectorHasMinSizeCalculator",
            "NormalizedRectVectorHasMinSizeCalculator", "NormalizedLandmarkListVectorHasMinSizeCalculator",
        ]
        for name in names { #expect(r.calculator(named: name)?.name == name) }
        let renderData = r.calculator(named: "EndLoopRenderDataCalculator").map(ObjectIdentifier.init)
        #expect(renderData == ObjectIdentifier(EndLoopRenderDataCalculator.self))
    }

    @Test func detectionLoopTypesItsPorts() throws {
        // The item type is checked between nodes when the graph is built.
        #expect {
            try Graph(
                GraphConfig(
                    parsing: """
                        input_stream: "rects"
                        node {
                          calculator: "BeginLoopNormalizedRectCalculator"
                          input_stream: "ITERABLE:rects"
                          output_stream: "ITEM:rect"
                          output_stream: "BATCH_END:end"
                        }
                        node {
                          calculator: "EndLoopDetectionCalculator"
                          input_stream: "ITEM:rect"
                          input_stream: "BATCH_END:end"
                          output_stream: "ITERABLE:detections"
                        }
                        """), registry: registry)
        } throws: { "\($0)".contains("NormalizedRect") && "\($0)".contains("Detection") }
    }
}

/// MediaPipe's names for FrameFlow's image calculators in its expanded Tasks graphs.
@Suite struct ImageVectorNamesTests {
    @Test func mergeImagesToVectorKeepsInputOrder() throws {
        let r = try CalculatorRunner(
            node: #"node { calculator: "MergeImagesToVectorCalculator" input_stream: "a" input_stream: "b" output_stream: "v" }"#,
            registry: .standard)
        r.add(try ImageFrame(width: 1, height: 1, format: .gray8, value: { _, _, _ in 1 }), tag: "", index: 0, at: 1)
        r.add(try ImageFrame(width: 1, height: 1, format: .gray8, value: { _, _, _ in 2 }), tag: "", index: 1, at: 1)
        r.add(try ImageFrame(width: 1, height: 1, format: .gray8, value: { _, _, _ in 3 }), tag: "", index: 1, at: 2)
        try r.run()
        let got = try r.outputs().map { try $0.get([ImageFrame].self).map { $0.row(0)[0] } }
        #expect(got == [[1, 2], [3]])
    }

    @Test func endLoopImageIsEndLoopImageFrame() {
        #expect(CalculatorRegistry.standard.calculator(named: "EndLoopImageCalculator") == EndLoopImageFrameCalculator.self)
    }
}
