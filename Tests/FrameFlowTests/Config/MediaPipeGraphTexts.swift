// swift-format-ignore-file
// (Graph texts as MediaPipe writes them: the formatter would re-indent every line.)
/// The text form of four of MediaPipe's compiled graphs (mediapipe/modules/**/*.pbtxt, comments
/// left out), for `BinaryGraphTests` to compare the wheel's `.binarypb` files with.
enum MediaPipeGraphTexts {
    static let byName: [String: String] = [
        "face_detection_short_range_cpu": """
            type: "FaceDetectionShortRangeCpu"
            input_stream: "IMAGE:image"
            output_stream: "DETECTIONS:detections"
            graph_options: {
              [type.googleapis.com/mediapipe.FaceDetectionOptions] {}
            }
            node {
              calculator: "FaceDetectionShortRange"
              input_stream: "IMAGE:image"
              output_stream: "DETECTIONS:detections"
              node_options: {
                [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                  delegate { xnnpack {} }
                }
              }
              option_value: "OPTIONS:options"
            }
            """,
        "hand_landmark_tracking_cpu": """
            type: "HandLandmarkTrackingCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "NUM_HANDS:num_hands"
            input_side_packet: "MODEL_COMPLEXITY:model_complexity"
            input_side_packet: "USE_PREV_LANDMARKS:use_prev_landmarks"
            output_stream: "LANDMARKS:multi_hand_landmarks"
            output_stream: "WORLD_LANDMARKS:multi_hand_world_landmarks"
            output_stream: "HANDEDNESS:multi_handedness"
            output_stream: "PALM_DETECTIONS:palm_detections"
            output_stream: "HAND_ROIS_FROM_LANDMARKS:hand_rects_from_landmarks"
            output_stream: "HAND_ROIS_FROM_PALM_DETECTIONS:hand_rects_from_palm_detections"
            node {
              calculator: "GateCalculator"
              input_side_packet: "ALLOW:use_prev_landmarks"
              input_stream: "prev_hand_rects_from_landmarks"
              output_stream: "gated_prev_hand_rects_from_landmarks"
              options: {
                [mediapipe.GateCalculatorOptions.ext] {
                  allow: true
                }
              }
            }
            node {
              calculator: "NormalizedRectVectorHasMinSizeCalculator"
              input_stream: "ITERABLE:gated_prev_hand_rects_from_landmarks"
              input_side_packet: "num_hands"
              output_stream: "prev_has_enough_hands"
            }
            node {
              calculator: "GateCalculator"
              input_stream: "image"
              input_stream: "DISALLOW:prev_has_enough_hands"
              output_stream: "palm_detection_image"
              options: {
                [mediapipe.GateCalculatorOptions.ext] {
                  empty_packets_as_allow: true
                }
              }
            }
            node {
              calculator: "PalmDetectionCpu"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              input_stream: "IMAGE:palm_detection_image"
              output_stream: "DETECTIONS:all_palm_detections"
            }
            node {
              calculator: "ClipDetectionVectorSizeCalculator"
              input_stream: "all_palm_detections"
              output_stream: "palm_detections"
              input_side_packet: "num_hands"
            }
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE:palm_detection_image"
              output_stream: "SIZE:palm_detection_image_size"
            }
            node {
              calculator: "BeginLoopDetectionCalculator"
              input_stream: "ITERABLE:palm_detections"
              input_stream: "CLONE:palm_detection_image_size"
              output_stream: "ITEM:palm_detection"
              output_stream: "CLONE:image_size_for_palms"
              output_stream: "BATCH_END:palm_detections_timestamp"
            }
            node {
              calculator: "PalmDetectionDetectionToRoi"
              input_stream: "DETECTION:palm_detection"
              input_stream: "IMAGE_SIZE:image_size_for_palms"
              output_stream: "ROI:hand_rect_from_palm_detection"
            }
            node {
              calculator: "EndLoopNormalizedRectCalculator"
              input_stream: "ITEM:hand_rect_from_palm_detection"
              input_stream: "BATCH_END:palm_detections_timestamp"
              output_stream: "ITERABLE:hand_rects_from_palm_detections"
            }
            node {
              calculator: "AssociationNormRectCalculator"
              input_stream: "hand_rects_from_palm_detections"
              input_stream: "gated_prev_hand_rects_from_landmarks"
              output_stream: "hand_rects"
              options: {
                [mediapipe.AssociationCalculatorOptions.ext] {
                  min_similarity_threshold: 0.5
                }
              }
            }
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE_CPU:image"
              output_stream: "SIZE:image_size"
            }
            node {
              calculator: "BeginLoopNormalizedRectCalculator"
              input_stream: "ITERABLE:hand_rects"
              input_stream: "CLONE:0:image"
              input_stream: "CLONE:1:image_size"
              output_stream: "ITEM:single_hand_rect"
              output_stream: "CLONE:0:image_for_landmarks"
              output_stream: "CLONE:1:image_size_for_landmarks"
              output_stream: "BATCH_END:hand_rects_timestamp"
            }
            node {
              calculator: "HandLandmarkCpu"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              input_stream: "IMAGE:image_for_landmarks"
              input_stream: "ROI:single_hand_rect"
              output_stream: "LANDMARKS:single_hand_landmarks"
              output_stream: "WORLD_LANDMARKS:single_hand_world_landmarks"
              output_stream: "HANDEDNESS:single_handedness"
            }
            node {
              calculator: "EndLoopClassificationListCalculator"
              input_stream: "ITEM:single_handedness"
              input_stream: "BATCH_END:hand_rects_timestamp"
              output_stream: "ITERABLE:multi_handedness"
            }
            node {
              calculator: "HandLandmarkLandmarksToRoi"
              input_stream: "IMAGE_SIZE:image_size_for_landmarks"
              input_stream: "LANDMARKS:single_hand_landmarks"
              output_stream: "ROI:single_hand_rect_from_landmarks"
            }
            node {
              calculator: "EndLoopNormalizedLandmarkListVectorCalculator"
              input_stream: "ITEM:single_hand_landmarks"
              input_stream: "BATCH_END:hand_rects_timestamp"
              output_stream: "ITERABLE:multi_hand_landmarks"
            }
            node {
              calculator: "EndLoopLandmarkListVectorCalculator"
              input_stream: "ITEM:single_hand_world_landmarks"
              input_stream: "BATCH_END:hand_rects_timestamp"
              output_stream: "ITERABLE:multi_hand_world_landmarks"
            }
            node {
              calculator: "EndLoopNormalizedRectCalculator"
              input_stream: "ITEM:single_hand_rect_from_landmarks"
              input_stream: "BATCH_END:hand_rects_timestamp"
              output_stream: "ITERABLE:hand_rects_from_landmarks"
            }
            node {
              calculator: "PreviousLoopbackCalculator"
              input_stream: "MAIN:image"
              input_stream: "LOOP:hand_rects_from_landmarks"
              input_stream_info: {
                tag_index: "LOOP"
                back_edge: true
              }
              output_stream: "PREV_LOOP:prev_hand_rects_from_landmarks"
            }
            """,
        "selfie_segmentation_cpu": """
            type: "SelfieSegmentationCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "MODEL_SELECTION:model_selection"
            output_stream: "SEGMENTATION_MASK:segmentation_mask"
            node {
              calculator: "SwitchContainer"
              input_side_packet: "SELECT:model_selection"
              input_stream: "IMAGE:image"
              output_stream: "TENSORS:input_tensors"
              options: {
                [mediapipe.SwitchContainerOptions.ext] {
                  select: 0
                  contained_node: {
                    calculator: "ImageToTensorCalculator"
                    options: {
                      [mediapipe.ImageToTensorCalculatorOptions.ext] {
                        output_tensor_width: 256
                        output_tensor_height: 256
                        keep_aspect_ratio: false
                        output_tensor_float_range {
                          min: 0.0
                          max: 1.0
                        }
                        border_mode: BORDER_ZERO
                      }
                    }
                  }
                  contained_node: {
                    calculator: "ImageToTensorCalculator"
                    options: {
                      [mediapipe.ImageToTensorCalculatorOptions.ext] {
                        output_tensor_width: 256
                        output_tensor_height: 144
                        keep_aspect_ratio: false
                        output_tensor_float_range {
                          min: 0.0
                          max: 1.0
                        }
                        border_mode: BORDER_ZERO
                      }
                    }
                  }
                }
              }
            }
            node {
              calculator: "TfLiteCustomOpResolverCalculator"
              output_side_packet: "OP_RESOLVER:op_resolver"
            }
            node {
              calculator: "SelfieSegmentationModelLoader"
              input_side_packet: "MODEL_SELECTION:model_selection"
              output_side_packet: "MODEL:model"
            }
            node {
              calculator: "InferenceCalculator"
              input_stream: "TENSORS:input_tensors"
              output_stream: "TENSORS:output_tensors"
              input_side_packet: "MODEL:model"
              input_side_packet: "OP_RESOLVER:op_resolver"
              options: {
                [mediapipe.InferenceCalculatorOptions.ext] {
                  delegate {
                    xnnpack {}
                  }
                }
              }
            }
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE_CPU:image"
              output_stream: "SIZE:input_size"
            }
            node {
              calculator: "TensorsToSegmentationCalculator"
              input_stream: "TENSORS:output_tensors"
              input_stream: "OUTPUT_SIZE:input_size"
              output_stream: "MASK:mask_image"
              options: {
                [mediapipe.TensorsToSegmentationCalculatorOptions.ext] {
                  activation: NONE
                }
              }
            }
            node: {
              calculator: "FromImageCalculator"
              input_stream: "IMAGE:mask_image"
              output_stream: "IMAGE_CPU:segmentation_mask"
            }
            """,
        "pose_landmark_cpu": """
            type: "PoseLandmarkCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "SMOOTH_LANDMARKS:smooth_landmarks"
            input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
            input_side_packet: "SMOOTH_SEGMENTATION:smooth_segmentation"
            input_side_packet: "MODEL_COMPLEXITY:model_complexity"
            input_side_packet: "USE_PREV_LANDMARKS:use_prev_landmarks"
            output_stream: "LANDMARKS:pose_landmarks"
            output_stream: "WORLD_LANDMARKS:pose_world_landmarks"
            output_stream: "SEGMENTATION_MASK:segmentation_mask"
            output_stream: "DETECTION:pose_detection"
            output_stream: "ROI_FROM_LANDMARKS:pose_rect_from_landmarks"
            output_stream: "ROI_FROM_DETECTION:pose_rect_from_detection"
            node {
              calculator: "GateCalculator"
              input_side_packet: "ALLOW:use_prev_landmarks"
              input_stream: "prev_pose_rect_from_landmarks"
              output_stream: "gated_prev_pose_rect_from_landmarks"
              options: {
                [mediapipe.GateCalculatorOptions.ext] {
                  allow: true
                }
              }
            }
            node: {
              calculator: "PacketPresenceCalculator"
              input_stream: "PACKET:gated_prev_pose_rect_from_landmarks"
              output_stream: "PRESENCE:prev_pose_rect_from_landmarks_is_present"
            }
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE_CPU:image"
              output_stream: "SIZE:image_size"
            }
            node {
              calculator: "GateCalculator"
              input_stream: "image"
              input_stream: "image_size"
              input_stream: "DISALLOW:prev_pose_rect_from_landmarks_is_present"
              output_stream: "image_for_pose_detection"
              output_stream: "image_size_for_pose_detection"
              options: {
                [mediapipe.GateCalculatorOptions.ext] {
                  empty_packets_as_allow: true
                }
              }
            }
            node {
              calculator: "PoseDetectionCpu"
              input_stream: "IMAGE:image_for_pose_detection"
              output_stream: "DETECTIONS:pose_detections"
            }
            node {
              calculator: "SplitDetectionVectorCalculator"
              input_stream: "pose_detections"
              output_stream: "pose_detection"
              options: {
                [mediapipe.SplitVectorCalculatorOptions.ext] {
                  ranges: { begin: 0 end: 1 }
                  element_only: true
                }
              }
            }
            node {
              calculator: "PoseDetectionToRoi"
              input_stream: "DETECTION:pose_detection"
              input_stream: "IMAGE_SIZE:image_size_for_pose_detection"
              output_stream: "ROI:pose_rect_from_detection"
            }
            node {
              calculator: "MergeCalculator"
              input_stream: "pose_rect_from_detection"
              input_stream: "gated_prev_pose_rect_from_landmarks"
              output_stream: "pose_rect"
            }
            node {
              calculator: "PoseLandmarkByRoiCpu"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
              input_stream: "IMAGE:image"
              input_stream: "ROI:pose_rect"
              output_stream: "LANDMARKS:unfiltered_pose_landmarks"
              output_stream: "AUXILIARY_LANDMARKS:unfiltered_auxiliary_landmarks"
              output_stream: "WORLD_LANDMARKS:unfiltered_world_landmarks"
              output_stream: "SEGMENTATION_MASK:unfiltered_segmentation_mask"
            }
            node {
              calculator: "PoseLandmarkFiltering"
              input_side_packet: "ENABLE:smooth_landmarks"
              input_stream: "IMAGE_SIZE:image_size"
              input_stream: "NORM_LANDMARKS:unfiltered_pose_landmarks"
              input_stream: "AUX_NORM_LANDMARKS:unfiltered_auxiliary_landmarks"
              input_stream: "WORLD_LANDMARKS:unfiltered_world_landmarks"
              output_stream: "FILTERED_NORM_LANDMARKS:pose_landmarks"
              output_stream: "FILTERED_AUX_NORM_LANDMARKS:auxiliary_landmarks"
              output_stream: "FILTERED_WORLD_LANDMARKS:pose_world_landmarks"
            }
            node {
              calculator: "PoseLandmarksToRoi"
              input_stream: "LANDMARKS:auxiliary_landmarks"
              input_stream: "IMAGE_SIZE:image_size"
              output_stream: "ROI:pose_rect_from_landmarks"
            }
            node {
              calculator: "PreviousLoopbackCalculator"
              input_stream: "MAIN:image"
              input_stream: "LOOP:pose_rect_from_landmarks"
              input_stream_info: {
                tag_index: "LOOP"
                back_edge: true
              }
              output_stream: "PREV_LOOP:prev_pose_rect_from_landmarks"
            }
            node {
              calculator: "PoseSegmentationFiltering"
              input_side_packet: "ENABLE:smooth_segmentation"
              input_stream: "SEGMENTATION_MASK:unfiltered_segmentation_mask"
              output_stream: "FILTERED_SEGMENTATION_MASK:filtered_segmentation_mask"
            }
            node: {
              calculator: "FromImageCalculator"
              input_stream: "IMAGE:filtered_segmentation_mask"
              output_stream: "IMAGE_CPU:segmentation_mask"
            }
            """,
    ]
}
