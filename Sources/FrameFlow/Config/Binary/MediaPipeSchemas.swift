/// Protobuf schemas of MediaPipe options types that graphs carry but no FrameFlow calculator
/// declares: the options in MediaPipe's own `.binarypb` graphs (face detection, face mesh,
/// hands, pose, holistic, objectron, selfie segmentation) and the input stream handlers'
/// options. Field and extension numbers are those of MediaPipe's `.proto` files (named on
/// each). `ProtoSchemaRegistry.mediaPipe` holds all of them.
public enum MediaPipeSchemas {
    /// `mediapipe.GpuOrigin.Mode` (mediapipe/gpu/gpu_origin.proto).
    static let gpuOrigin: ProtoField.Kind = .enumeration([0: "DEFAULT", 1: "CONVENTIONAL", 2: "TOP_LEFT"])

    /// mediapipe/calculators/tensor/inference_calculator.proto: `InferenceCalculatorOptions.Delegate`.
    public static let inferenceDelegate = ProtoSchema(
        "mediapipe.InferenceCalculatorOptions.Delegate",
        fields: [
            .init(1, "tflite", .message(ProtoSchema("mediapipe.InferenceCalculatorOptions.Delegate.TfLite", fields: []))),
            .init(
                2, "gpu",
                .message(
                    ProtoSchema(
                        "mediapipe.InferenceCalculatorOptions.Delegate.Gpu",
                        fields: [
                            .init(1, "use_advanced_gpu_api", .bool),
                            .init(4, "api", .enumeration([0: "ANY", 1: "OPENGL", 2: "OPENCL"])),
                            .init(3, "allow_precision_loss", .bool), .init(2, "cached_kernel_path", .string),
                            .init(7, "serialized_model_dir", .string),
                            .init(10, "cache_writing_behavior", .enumeration([0: "NO_WRITE", 1: "TRY_WRITE", 2: "WRITE_OR_ERROR"])),
                            .init(8, "model_token", .string),
                            .init(5, "usage", .enumeration([0: "UNSPECIFIED", 1: "FAST_SINGLE_ANSWER", 2: "SUSTAINED_SPEED"])),
                        ]))),
            .init(
                3, "nnapi",
                .message(
                    ProtoSchema(
                        "mediapipe.InferenceCalculatorOptions.Delegate.Nnapi",
                        fields: [.init(1, "cache_dir", .string), .init(2, "model_token", .string), .init(3, "accelerator_name", .string)]))),
            .init(
                4, "xnnpack",
                .message(
                    ProtoSchema(
                        "mediapipe.InferenceCalculatorOptions.Delegate.Xnnpack",
                        fields: [.init(1, "num_threads", .int32), .init(7, "enable_zero_copy_tensor_io", .bool)]))),
        ])

    /// mediapipe/calculators/tensor/inference_calculator.proto.
    public static let inferenceCalculator: ProtoSchema = {
        let indices = ProtoSchema(
            "mediapipe.InferenceCalculatorOptions.InputOutputConfig.TensorIndicesMap",
            fields: [.repeated(1, "model_tensor_indices", .int32)])
        let names = ProtoSchema(
            "mediapipe.InferenceCalculatorOptions.InputOutputConfig.TensorNamesMap",
            fields: [.repeated(1, "tensor_names", .string)])
        let link = ProtoSchema(
            "mediapipe.InferenceCalculatorOptions.InputOutputConfig.FeedbackTensorLink",
            fields: [.init(1, "from_output_tensor_name", .string), .init(2, "to_input_tensor_name", .string)])
        let io = ProtoSchema(
            "mediapipe.InferenceCalculatorOptions.InputOutputConfig",
            fields: [
                .init(1, "input_tensor_indices_map", .message(indices)), .init(3, "input_tensor_names_map", .message(names)),
                .init(2, "output_tensor_indices_map", .message(indices)), .init(4, "output_tensor_names_map", .message(names)),
                .repeated(5, "feedback_tensor_links", .message(link)),
            ])
        return ProtoSchema(
            "mediapipe.InferenceCalculatorOptions", extension: 336783863,
            fields: [
                .init(1, "model_path", .string), .init(7, "try_mmap_model", .bool), .init(2, "use_gpu", .bool),
                .init(3, "use_nnapi", .bool), .init(4, "cpu_num_thread", .int32), .init(5, "delegate", .message(inferenceDelegate)),
                .init(8, "input_output_config", .message(io)),
            ])
    }()

    /// mediapipe/modules/face_detection/face_detection.proto.
    public static let faceDetection = ProtoSchema(
        "mediapipe.FaceDetectionOptions", extension: 374290926,
        fields: [
            .init(1, "model_path", .string), .init(11, "gpu_origin", gpuOrigin), .init(21, "tensor_width", .int32),
            .init(22, "tensor_height", .int32), .init(23, "num_layers", .int32), .repeated(24, "strides", .int32),
            .init(25, "interpolated_scale_aspect_ratio", .float), .init(31, "num_boxes", .int32),
            .init(32, "x_scale", .float), .init(33, "y_scale", .float), .init(34, "w_scale", .float),
            .init(35, "h_scale", .float), .init(36, "min_score_thresh", .float),
            .init(6, "delegate", .message(inferenceDelegate)),
        ])

    /// mediapipe/calculators/core/split_vector_calculator.proto.
    public static let splitVectorCalculator = ProtoSchema(
        "mediapipe.SplitVectorCalculatorOptions", extension: 259438222,
        fields: [
            .repeated(1, "ranges", .message(ProtoSchema("mediapipe.Range", fields: [.init(1, "begin", .int32), .init(2, "end", .int32)]))),
            .init(2, "element_only", .bool), .init(3, "combine_outputs", .bool),
        ])

    /// mediapipe/calculators/core/gate_calculator.proto.
    public static let gateCalculator = ProtoSchema(
        "mediapipe.GateCalculatorOptions", extension: 261754847,
        fields: [
            .init(1, "empty_packets_as_allow", .bool), .init(2, "allow", .bool),
            .init(3, "initial_gate_state", .enumeration([0: "UNSPECIFIED", 1: "GATE_UNINITIALIZED", 2: "GATE_ALLOW", 3: "GATE_DISALLOW"])),
        ])

    /// mediapipe/calculators/util/detections_to_rects_calculator.proto.
    public static let detectionsToRectsCalculator = ProtoSchema(
        "mediapipe.DetectionsToRectsCalculatorOptions", extension: 262691807,
        fields: [
            .init(1, "rotation_vector_start_keypoint_index", .int32), .init(2, "rotation_vector_end_keypoint_index", .int32),
            .init(3, "rotation_vector_target_angle", .float), .init(4, "rotation_vector_target_angle_degrees", .float),
            .init(5, "output_zero_rect_for_empty_detections", .bool),
            .init(6, "conversion_mode", .enumeration([0: "DEFAULT", 1: "USE_BOUNDING_BOX", 2: "USE_KEYPOINTS"])),
        ])

    /// mediapipe/calculators/util/association_calculator.proto.
    public static let associationCalculator = ProtoSchema(
        "mediapipe.AssociationCalculatorOptions", extension: 275124847,
        fields: [.init(1, "min_similarity_threshold", .float)])

    /// mediapipe/modules/objectron/calculators/lift_2d_frame_annotation_to_3d_calculator.proto
    /// (with belief_decoder_config.proto).
    public static let lift2DFrameAnnotationTo3DCalculator = ProtoSchema(
        "mediapipe.Lift2DFrameAnnotationTo3DCalculatorOptions", extension: 290166284,
        fields: [
            .init(
                1, "decoder_config",
                .message(
                    ProtoSchema(
                        "mediapipe.BeliefDecoderConfig",
                        fields: [
                            .init(1, "heatmap_threshold", .float), .init(2, "local_max_distance", .float),
                            .init(3, "offset_scale_coef", .float), .init(4, "voting_radius", .int32),
                            .init(5, "voting_allowance", .int32), .init(6, "voting_threshold", .float),
                        ]))),
            .init(2, "normalized_focal_x", .float), .init(3, "normalized_focal_y", .float),
            .init(4, "normalized_principal_point_x", .float), .init(5, "normalized_principal_point_y", .float),
        ])

    /// mediapipe/framework/tool/switch_container.proto: its `contained_node`s are whole nodes.
    public static let switchContainer = ProtoSchema(
        "mediapipe.SwitchContainerOptions", extension: 345967970,
        fields: [
            .repeated(2, "contained_node", .message(BinaryGraph.nodeSchema)), .init(3, "select", .int32),
            .init(4, "enable", .bool), .init(5, "synchronize_io", .bool), .init(6, "async_selection", .bool),
            .repeated(7, "tick_input_stream", .string),
        ])

    /// mediapipe/calculators/tensor/tensors_to_segmentation_calculator.proto.
    public static let tensorsToSegmentationCalculator = ProtoSchema(
        "mediapipe.TensorsToSegmentationCalculatorOptions", extension: 374311106,
        fields: [
            .init(1, "gpu_origin", gpuOrigin), .init(2, "activation", .enumeration([0: "NONE", 1: "SIGMOID", 2: "SOFTMAX"])),
            .init(3, "output_layer_index", .int32),
        ])

    /// mediapipe/calculators/tensor/image_to_tensor_calculator.proto.
    public static let imageToTensorCalculator = ProtoSchema(
        "mediapipe.ImageToTensorCalculatorOptions", extension: 334361939,
        fields: [
            .init(1, "output_tensor_width", .int32), .init(2, "output_tensor_height", .int32),
            .init(3, "keep_aspect_ratio", .bool),
            .init(
                4, "output_tensor_float_range",
                .message(
                    ProtoSchema(
                        "mediapipe.ImageToTensorCalculatorOptions.FloatRange", fields: [.init(1, "min", .float), .init(2, "max", .float)]))),
            .init(
                7, "output_tensor_int_range",
                .message(
                    ProtoSchema(
                        "mediapipe.ImageToTensorCalculatorOptions.IntRange", fields: [.init(1, "min", .int64), .init(2, "max", .int64)]))),
            .init(
                8, "output_tensor_uint_range",
                .message(
                    ProtoSchema(
                        "mediapipe.ImageToTensorCalculatorOptions.UIntRange", fields: [.init(1, "min", .uint64), .init(2, "max", .uint64)]))),
            .init(5, "gpu_origin", gpuOrigin),
            .init(6, "border_mode", .enumeration([0: "BORDER_UNSPECIFIED", 1: "BORDER_ZERO", 2: "BORDER_REPLICATE"])),
        ])

    /// mediapipe/framework/stream_handler/sync_set_input_stream_handler.proto.
    public static let syncSetInputStreamHandler = ProtoSchema(
        "mediapipe.SyncSetInputStreamHandlerOptions", extension: 155816273,
        fields: [
            .repeated(
                1, "sync_set",
                .message(
                    ProtoSchema(
                        "mediapipe.SyncSetInputStreamHandlerOptions.SyncSet", fields: [.repeated(1, "tag_index", .string)])))
        ])

    /// mediapipe/framework/stream_handler/fixed_size_input_stream_handler.proto.
    public static let fixedSizeInputStreamHandler = ProtoSchema(
        "mediapipe.FixedSizeInputStreamHandlerOptions", extension: 125744319,
        fields: [.init(1, "trigger_queue_size", .int32), .init(2, "target_queue_size", .int32), .init(3, "fixed_min_size", .bool)])

    /// Every schema above.
    public static let all: [ProtoSchema] = [
        inferenceCalculator, faceDetection, splitVectorCalculator, gateCalculator, detectionsToRectsCalculator,
        associationCalculator, lift2DFrameAnnotationTo3DCalculator, switchContainer, tensorsToSegmentationCalculator,
        imageToTensorCalculator, syncSetInputStreamHandler, fixedSizeInputStreamHandler,
    ]
}
