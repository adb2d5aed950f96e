import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// A field as comparable text: number, name, `repeated`, kind (enums with their values,
/// messages by name).
private func shape(_ f: ProtoField) -> String {
    "\(f.number) \(f.name)\(f.isRepeated ? " repeated" : "") \(shape(f.kind))"
}

private func shape(_ k: ProtoField.Kind) -> String {
    switch k {
    case .enumeration(let values): "enum(" + values.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + ")"
    case .message(let s): "message(\(s.name))"
    default: "\(k)"
    }
}

private func field(_ schema: ProtoSchema, _ name: String) -> String? {
    schema.fields.first { $0.name == name }.map(shape)
}

/// The generated schemas against MediaPipe's `.proto` files. Line numbers are those of
/// google/mediapipe at 9d88077 (July 2024); the numbers are the same in 0.10.21's descriptors.
@Suite struct MediaPipeOptionSchemasTests {
    @Test func tensorsToDetectionsHasMediaPipesNumbers() {
        let s = MediaPipeOptionSchemas.tensorsToDetectionsCalculatorOptions
        // mediapipe/calculators/tensor/tensors_to_detections_calculator.proto:25 (ext), :29, :31, :62,
        // :66, :87, :105, :134 (and the BoxFormat enum at :124-:132).
        #expect(s.name == "mediapipe.TensorsToDetectionsCalculatorOptions")
        #expect(s.extensionNumber == 335_742_639)
        #expect(field(s, "num_classes") == "1 num_classes int32")
        #expect(field(s, "num_boxes") == "2 num_boxes int32")
        #expect(field(s, "ignore_classes") == "8 ignore_classes repeated int32")
        #expect(field(s, "allow_classes") == "21 allow_classes repeated int32")
        #expect(field(s, "max_results") == "20 max_results int32")
        #expect(field(s, "tensor_mapping") == "22 tensor_mapping message(mediapipe.TensorsToDetectionsCalculatorOptions.TensorMapping)")
        #expect(field(s, "box_format") == "24 box_format enum(0:UNSPECIFIED,1:YXHW,2:XYWH,3:XYXY)")
        // :99-:103: TensorMapping's five indices, numbered 1…5 in declaration order.
        let mapping = MediaPipeOptionSchemas.tensorsToDetectionsCalculatorOptionsTensorMapping
        #expect(
            mapping.fields.map(shape) == [
                "1 detections_tensor_index int32", "2 classes_tensor_index int32", "3 scores_tensor_index int32",
                "4 num_detections_tensor_index int32", "5 anchors_tensor_index int32",
            ])
    }

    @Test func inferenceDelegateHasMediaPipesNumbers() {
        // mediapipe/calculators/tensor/inference_calculator.proto:41 (ext), :163-:166 (the delegates),
        // :54, :63, :86 (Gpu), :151 (Xnnpack), :204 (delegate), :317 (input_output_config).
        let s = MediaPipeOptionSchemas.inferenceCalculatorOptions
        #expect(s.extensionNumber == 336_783_863)
        #expect(field(s, "delegate") == "5 delegate message(mediapipe.InferenceCalculatorOptions.Delegate)")
        #expect(field(s, "input_output_config") == "8 input_output_config message(mediapipe.InferenceCalculatorOptions.InputOutputConfig)")
        let delegate = MediaPipeOptionSchemas.inferenceCalculatorOptionsDelegate
        #expect(delegate.fields.map(\.number) == [1, 2, 3, 4])
        #expect(delegate.fields.map(\.name) == ["tflite", "gpu", "nnapi", "xnnpack"])
        let gpu = MediaPipeOptionSchemas.inferenceCalculatorOptionsDelegateGpu
        #expect(field(gpu, "use_advanced_gpu_api") == "1 use_advanced_gpu_api bool")
        #expect(field(gpu, "api") == "4 api enum(0:ANY,1:OPENGL,2:OPENCL)")
        #expect(field(gpu, "cached_kernel_path") == "2 cached_kernel_path string")
        #expect(field(MediaPipeOptionSchemas.inferenceCalculatorOptionsDelegateXnnpack, "num_threads") == "1 num_threads int32")
    }

    @Test func smallOptionsHaveMediaPipesNumbers() {
        // mediapipe/calculators/core/flow_limiter_calculator.proto:26 (ext), :31, :35, :39.
        let flow = MediaPipeOptionSchemas.flowLimiterCalculatorOptions
        #expect(flow.extensionNumber == 326_963_320)
        #expect(flow.fields.map(shape) == ["1 max_in_flight int32", "2 max_in_queue int32", "3 in_flight_timeout int64"])
        // mediapipe/calculators/core/gate_calculator.proto:23 (ext), :35-:39 (GateState).
        let gate = MediaPipeOptionSchemas.gateCalculatorOptions
        #expect(gate.extensionNumber == 261_754_847)
        #expect(field(gate, "initial_gate_state") == "3 initial_gate_state enum(0:UNSPECIFIED,1:GATE_UNINITIALIZED,2:GATE_ALLOW,3:GATE_DISALLOW)")
        // mediapipe/calculators/core/constant_side_packet_calculator.proto:27 (ext), :42, :46, :50.
        let constant = MediaPipeOptionSchemas.constantSidePacketCalculatorOptions
        #expect(constant.extensionNumber == 291_214_597)
        #expect(field(constant, "packet") == "1 packet repeated message(mediapipe.ConstantSidePacketCalculatorOptions.ConstantSidePacket)")
        let packet = MediaPipeOptionSchemas.constantSidePacketCalculatorOptionsConstantSidePacket
        #expect(field(packet, "classification_list_value") == "6 classification_list_value message(mediapipe.ClassificationList)")
        #expect(field(packet, "string_vector_value") == "13 string_vector_value message(mediapipe.ConstantSidePacketCalculatorOptions.StringVector)")
        // mediapipe/calculators/util/non_max_suppression_calculator.proto:25 (ext), :50-:54 (OverlapType), :56, :59.
        let nms = MediaPipeOptionSchemas.nonMaxSuppressionCalculatorOptions
        #expect(nms.extensionNumber == 55_383_100)
        #expect(field(nms, "return_empty_detections") == "5 return_empty_detections bool")
        #expect(
            field(nms, "overlap_type") == "4 overlap_type enum(0:UNSPECIFIED_OVERLAP_TYPE,1:JACCARD,2:MODIFIED_JACCARD,3:INTERSECTION_OVER_UNION)")
        // mediapipe/framework/tool/switch_container.proto: contained nodes are whole graph nodes.
        #expect(
            field(MediaPipeOptionSchemas.switchContainerOptions, "contained_node")
                == "2 contained_node repeated message(mediapipe.CalculatorGraphConfig.Node)")
    }

    @Test func rootsAreWellFormedAndDistinct() {
        let roots = MediaPipeOptionSchemas.roots
        #expect(roots.count >= 45)
        #expect(Set(roots.map(\.name)).count == roots.count)
        #expect(roots.map(\.name) == roots.map(\.name).sorted())
        let extensions = roots.compactMap(\.extensionNumber)
        #expect(Set(extensions).count == extensions.count)
        // mediapipe.Color and RenderAnnotation.Text extend nothing; ResourceProviderCalculatorOptions
        // (proto3) travels in node_options only.
        #expect(extensions.count == roots.count - 3)
        for s in roots { expectWellFormed(s) }
        for s in MediaPipeSchemas.all { #expect(roots.contains { $0.name == s.name }, "\(s.name)") }
    }

    /// Every calculator whose options are a MediaPipe message decodes them with the generated
    /// schema, field for field.
    @Test func calculatorsUseTheGeneratedSchemas() {
        let registry = CalculatorRegistry.standard.schemas
        var checked = 0
        for generated in MediaPipeOptionSchemas.roots {
            guard let registered = registry.schema(named: generated.name) else { continue }
            #expect(registered.extensionNumber == generated.extensionNumber, "\(generated.name)")
            #expect(registered.fields.map(shape) == generated.fields.map(shape), "\(generated.name)")
            checked += 1
        }
        #expect(checked >= 25)
    }
}
