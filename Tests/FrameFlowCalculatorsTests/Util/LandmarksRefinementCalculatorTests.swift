import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// LandmarksRefinementCalculator: a mesh refined by "lips" (z kept) and "irises" (z averaged)
/// against values worked out by hand, the order refinements apply in, options in text and
/// binary, and refused options, nodes and inputs.
@Suite struct LandmarksRefinementCalculatorTests {
    typealias C = LandmarksRefinementCalculator

    static let ext = "[mediapipe.LandmarksRefinementCalculatorOptions.ext]"

    /// Mesh 0…3 (z copied), lips onto 1 and 2 (z kept), irises onto 5 and 4 (z the mean of 0 and 3).
    let threeWay = """
        refinement { indexes_mapping: [0, 1, 2, 3] z_refinement { copy {} } }
        refinement { indexes_mapping: [1, 2] z_refinement { none {} } }
        refinement { indexes_mapping: [5, 4] z_refinement { assign_average { indexes_for_average: [0, 3] } } }
        """

    func runner(inputs: Int, options: String) throws -> CalculatorRunner {
        let ins = (0..<inputs).map { "input_stream: \"LANDMARKS:\($0):in\($0)\"" }.joined(separator: "\n")
        return try CalculatorRunner(
            node: """
                calculator: "LandmarksRefinementCalculator"
                name: "refine"
                \(ins)
                output_stream: "REFINED_LANDMARKS:refined"
                options { \(Self.ext) { \(options) } }
                """, registry: .standard)
    }

    func list(_ p: [(Double, Double, Double)], visibility: Double? = nil) -> NormalizedLandmarkList {
        NormalizedLandmarkList(p.map { NormalizedLandmark(x: $0.0, y: $0.1, z: $0.2, visibility: visibility, presence: visibility) })
    }

    let mesh = [(0.1, 0.2, 0.5), (0.3, 0.4, -0.25), (0.5, 0.6, 1.0), (0.7, 0.8, 0.125)]
    let lips = [(0.31, 0.41, 9.0), (0.51, 0.61, 9.0)]
    let irises = [(0.9, 0.95, 7.0), (0.85, 0.9, 7.0)]

    @Test func meshLipsAndIrises() throws {
        let r = try runner(inputs: 3, options: threeWay)
        r.add(list(mesh, visibility: 0.9), tag: "LANDMARKS", index: 0, at: 1)
        r.add(list(lips), tag: "LANDMARKS", index: 1, at: 1)
        r.add(list(irises), tag: "LANDMARKS", index: 2, at: 1)
        try r.run()
        let out = try values(r.outputs("REFINED_LANDMARKS"), as: NormalizedLandmarkList.self)
        #expect(out.map(\.0) == [1])
        let got = out.first?.1.landmark ?? []
        // Worked by hand: lips move 1 and 2 but keep the mesh's z; irises land on 5 and 4 with
        // z = (0.5 + 0.125) / 2.
        let expected = [(0.1, 0.2, 0.5), (0.31, 0.41, -0.25), (0.51, 0.61, 1.0), (0.7, 0.8, 0.125), (0.85, 0.9, 0.3125), (0.9, 0.95, 0.3125)]
        #expect(got.count == expected.count)
        for (p, e) in zip(got, expected) {
            #expect(abs(p.x - e.0) < 1e-6 && abs(p.y - e.1) < 1e-6 && abs(p.z - e.2) < 1e-6, "\(p) vs \(e)")
            #expect(p.visibility == nil && p.presence == nil, "visibility and presence are not refined")
        }
    }

    /// The average is of the output as it stands when the refinement applies; a landmark no
    /// refinement's z touches keeps z 0.
    @Test func refinementsApplyInOrder() throws {
        let r = try runner(
            inputs: 3,
            options: """
                refinement { indexes_mapping: [0, 1] z_refinement { copy {} } }
                refinement { indexes_mapping: [1] z_refinement { assign_average { indexes_for_average: [0, 1] } } }
                refinement { indexes_mapping: [2] z_refinement { none {} } }
                """)
        r.add(list([(0, 0, 1), (0, 0, 3)]), tag: "LANDMARKS", index: 0, at: 1)
        r.add(list([(0.5, 0.5, 100)]), tag: "LANDMARKS", index: 1, at: 1)
        r.add(list([(0.25, 0.75, 100)]), tag: "LANDMARKS", index: 2, at: 1)
        try r.run()
        let z = try r.outputs("REFINED_LANDMARKS").first?.get(NormalizedLandmarkList.self).landmark.map(\.z)
        #expect(z == [1, 2, 0])
    }

    /// A timestamp where any input lacks a packet gives nothing.
    @Test func missingInputGivesNothing() throws {
        let r = try runner(inputs: 3, options: threeWay)
        r.add(list(mesh), tag: "LANDMARKS", index: 0, at: 1)
        r.add(list(lips), tag: "LANDMARKS", index: 1, at: 1)
        r.add(list(mesh), tag: "LANDMARKS", index: 0, at: 2)
        r.add(list(lips), tag: "LANDMARKS", index: 1, at: 2)
        r.add(list(irises), tag: "LANDMARKS", index: 2, at: 2)
        try r.run()
        #expect(r.outputs("REFINED_LANDMARKS").map(\.timestamp) == [2])
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "LandmarksRefinementCalculator", ports: (["LANDMARKS:0:a", "LANDMARKS:1:b", "LANDMARKS:2:c"], ["REFINED_LANDMARKS:r"]),
            ext: 381914658, as: C.Options.self
        ) { w in
            w.message(1) { r in
                var packed = ProtobufWire()
                for v in [0, 1, 2, 3] as [UInt64] { packed.varint(v) }
                r.data(1, packed.bytes)
                r.message(2) { z in z.message(2) { _ in } }  // copy {}
            }
            w.message(1) { r in
                r.int(1, 1)
                r.int(1, 2)
                r.message(2) { z in z.message(1) { _ in } }  // none {}
            }
            w.message(1) { r in
                r.int(1, 5)
                r.int(1, 4)
                r.message(2) { z in
                    z.message(3) { a in
                        a.int(1, 0)
                        a.int(1, 3)
                    }
                }
            }
        }
        let expected = C.Options(refinement: [
            .init(indexesMapping: [0, 1, 2, 3], zRefinement: .copyZ), .init(indexesMapping: [1, 2], zRefinement: .keep),
            .init(indexesMapping: [5, 4], zRefinement: .average(of: [0, 3])),
        ])
        #expect(o == expected)
        // And the same as the text form.
        let text = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "a"
                    input_stream: "b"
                    input_stream: "c"
                    node {
                      calculator: "LandmarksRefinementCalculator"
                      name: "node"
                      input_stream: "LANDMARKS:0:a"
                      input_stream: "LANDMARKS:1:b"
                      input_stream: "LANDMARKS:2:c"
                      output_stream: "REFINED_LANDMARKS:r"
                      options { \(Self.ext) { \(threeWay) } }
                    }
                    """), registry: .standard)
        #expect(text.options(ofNode: "node") as? C.Options == expected)
    }

    @Test(arguments: [
        ("refinement { z_refinement { copy {} } }", "indexes_mapping is empty"),
        ("refinement { indexes_mapping: [0] }", "no z_refinement"),
        ("refinement { indexes_mapping: [0] z_refinement { } }", "exactly one"),
        ("refinement { indexes_mapping: [0] z_refinement { none {} copy {} } }", "none"),
        ("refinement { indexes_mapping: [0, 2] z_refinement { copy {} } }", "without gaps"),
        ("refinement { indexes_mapping: [1, 2] z_refinement { copy {} } }", "without gaps"),
        ("refinement { indexes_mapping: [0, -1] z_refinement { copy {} } }", "-1"),
        ("refinement { indexes_mapping: [0, 9223372036854775807] z_refinement { copy {} } }", "out of range for its protobuf type int32"),
        ("refinement { indexes_mapping: [0, 2147483647] z_refinement { copy {} } }", "not an index from 0 to 1000000"),
        ("refinement { indexes_mapping: [0] z_refinement { assign_average {} } }", "indexes_for_average is empty"),
        ("refinement { indexes_mapping: [0, 1] z_refinement { assign_average { indexes_for_average: [2] } } }", "indexes_for_average has 2"),
        ("", "at least one"),
    ])
    func badOptionsNameTheNode(options: String, needle: String) throws {
        let text = thrownDescription { try runner(inputs: 1, options: options).run() }
        #expect(text?.contains("refine") == true && text?.contains(needle) == true, "\(text ?? "")")
    }

    @Test func inputCountAndLengthMismatches() throws {
        let count = thrownDescription { try runner(inputs: 2, options: threeWay).run() }
        #expect(count?.contains("refine") == true && count?.contains("3 refinements but 2 LANDMARKS inputs") == true, "\(count ?? "")")
        let r = try runner(inputs: 3, options: threeWay)
        r.add(list(mesh), tag: "LANDMARKS", index: 0, at: 1)
        r.add(list(lips + lips), tag: "LANDMARKS", index: 1, at: 1)
        r.add(list(irises), tag: "LANDMARKS", index: 2, at: 1)
        let length = thrownDescription { try r.run() }
        #expect(length?.contains("refine") == true && length?.contains("refinement[1].indexes_mapping has 2") == true, "\(length ?? "")")
    }
}
