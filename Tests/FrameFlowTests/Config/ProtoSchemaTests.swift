import FrameFlow
import FrameFlowCalculators
import Testing

@Suite struct ProtoSchemaTests {
    @Test func fieldsByNumber() {
        let s = ProtoSchema("x.Y", extension: 20001, fields: [.init(1, "a", .int32), .repeated(7, "b", .string)])
        #expect(s.field(number: 7)?.name == "b")
        #expect(s.field(number: 7)?.isRepeated == true)
        #expect(s.field(number: 1)?.isRepeated == false)
        #expect(s.field(number: 2) == nil)
        var t = s
        t.fields.append(.init(2, "c", .bool))
        #expect(t.field(number: 2)?.name == "c")
    }

    @Test func registryFindsByNameAndExtension() {
        let r = ProtoSchemaRegistry()
        #expect(r.schema(named: "mediapipe.FlowLimiterCalculatorOptions") == nil)
        r.register(optionsOf: FlowLimiterCalculator.self)
        #expect(r.schema(named: "mediapipe.FlowLimiterCalculatorOptions")?.extensionNumber == 326963320)
        #expect(r.schema(extension: 326963320)?.name == "mediapipe.FlowLimiterCalculatorOptions")
        // A calculator without a schema adds nothing.
        r.register(optionsOf: HaarCascadeDetectorCalculator.self)
        #expect(r.names == ["mediapipe.FlowLimiterCalculatorOptions"])
    }

    @Test func copiesLeaveTheOriginalAlone() {
        let original = ProtoSchemaRegistry.mediaPipe
        let copy = ProtoSchemaRegistry(copying: original)
        copy.register(ProtoSchema("test.OnlyInTheCopy", extension: 424_242, fields: []))
        #expect(copy.schema(named: "mediapipe.FaceDetectionOptions") != nil)
        #expect(copy.schema(named: "test.OnlyInTheCopy") != nil)
        #expect(original.schema(named: "test.OnlyInTheCopy") == nil)
        original.register(ProtoSchema("test.OnlyInTheOriginal", extension: 424_243, fields: []))
        #expect(ProtoSchemaRegistry.mediaPipe.schema(named: "test.OnlyInTheOriginal") == nil, "each mediaPipe registry is new")
    }

    /// A calculator registry's schemas are its own: registering into one leaves the others.
    @Test func registeringACalculatorRegistersItsSchemaInThatRegistryOnly() {
        let with = CalculatorRegistry([ImageCroppingCalculator.self])
        #expect(with.schemas.schema(named: "mediapipe.ImageCroppingCalculatorOptions")?.extensionNumber == 262_466_399)
        #expect(with.schemas.schema(named: "mediapipe.FaceDetectionOptions") != nil, "MediaPipe's graph-only types too")
        #expect(CalculatorRegistry().schemas.schema(named: "mediapipe.ImageCroppingCalculatorOptions") == nil)
        #expect(ProtoSchemaRegistry.mediaPipe.schema(named: "mediapipe.ImageCroppingCalculatorOptions") == nil)
        #expect(with.adding([]).schemas.schema(extension: 262_466_399) != nil, "adding keeps the schemas")
    }

    /// Every standard calculator whose options are a MediaPipe type declares MediaPipe's
    /// schema under that name, with field numbers and names each used once.
    @Test func everyMediaPipeOptionsTypeHasASchema() throws {
        var checked = 0
        for name in CalculatorRegistry.standard.names {
            let type = try #require(CalculatorRegistry.standard.calculator(named: name))
            func options<C: Calculator>(_: C.Type) -> (String?, ProtoSchema?) { (C.Options.typeName, C.Options.protoSchema) }
            let (typeName, schema) = options(type)
            guard let typeName, typeName.hasPrefix("mediapipe.") else { continue }
            let s = try #require(schema, "\(name)'s options (\(typeName)) declare no protoSchema")
            #expect(s.name == typeName)
            // proto3 options (ResourceProviderCalculatorOptions) travel in node_options only.
            let nodeOptionsOnly = ["mediapipe.ResourceProviderCalculatorOptions"]
            #expect(s.extensionNumber.map { $0 >= 20000 } ?? nodeOptionsOnly.contains(typeName), "\(typeName)")
            expectWellFormed(s)
            checked += 1
        }
        #expect(checked >= 3)
    }
}

/// Field numbers and names used once in `schema` and every message inside it.
func expectWellFormed(_ schema: ProtoSchema, depth: Int = 0) {
    #expect(Set(schema.fields.map(\.number)).count == schema.fields.count, "\(schema.name): a field number twice")
    #expect(Set(schema.fields.map(\.name)).count == schema.fields.count, "\(schema.name): a field name twice")
    #expect(schema.fields.allSatisfy { $0.number > 0 }, "\(schema.name)")
    guard depth < 4 else { return }
    for f in schema.fields {
        if case .message(let inner) = f.kind { expectWellFormed(inner, depth: depth + 1) }
    }
}
