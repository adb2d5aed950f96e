/// MediaPipe's Hands subgraphs under MediaPipe's names, ports and side packets, so that
/// MediaPipe's compiled `hand_landmark_tracking_cpu.binarypb` (and graphs written for
/// MediaPipe) find the subgraphs they name.
///
/// `HandLandmarkTrackingCpu` tracks up to `NUM_HANDS` hands: on a frame where the previous
/// frame's landmarks (`USE_PREV_LANDMARKS`) do not already give enough hands, palm detection
/// runs and each palm becomes a rotated square ROI around the whole hand; ROIs of palms and of
/// the previous landmarks are merged, and `HandLandmarkCpu` crops each ROI, runs the landmark
/// model (`MODEL_COMPLEXITY` 0: lite, 1: full) and gives 21 landmarks, 21 world landmarks (in
/// metres, about the hand's centre) and the handedness. Each hand's landmarks give next
/// frame's ROI.
enum HandLandmarkSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("HandLandmarkTrackingCpu", tracking),
        ("HandLandmarkCpu", landmarkCpu),
        ("HandLandmarkModelLoader", loader("HandLandmarkModelLoader", "hand_landmark/hand_landmark")),
        ("HandLandmarkLandmarksToRoi", landmarksToRoi),
        ("PalmDetectionCpu", palmDetection),
        ("PalmDetectionModelLoader", loader("PalmDetectionModelLoader", "palm_detection/palm_detection")),
        ("PalmDetectionDetectionToRoi", palmToRoi),
    ]

    /// Detection or tracking, then landmarks and handedness, for each hand.
    static let tracking = LandmarkTrackingLoop.text(
        interface: """
            type: "HandLandmarkTrackingCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "NUM_HANDS:num_hands"
            input_side_packet: "MODEL_COMPLEXITY:model_complexity"
            input_side_packet: "USE_PREV_LANDMARKS:use_prev_landmarks"
            output_stream: "LANDMARKS:multi_hand_landmarks"
            output_stream: "WORLD_LANDMARKS:multi_hand_world_landmarks"
            output_stream: "HANDEDNESS:multi_handedness"
            output_stream: "PALM_DETECTIONS:detections"
            output_stream: "HAND_ROIS_FROM_LANDMARKS:rois_from_landmarks"
            output_stream: "HAND_ROIS_FROM_PALM_DETECTIONS:rois_from_detections"
            """,
        count: "num_hands",
        detector: """
            node {
              calculator: "PalmDetectionCpu"
              input_stream: "IMAGE:detection_image"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              output_stream: "DETECTIONS:every_detection"
            }
            """,
        detectionToRoi: "PalmDetectionDetectionToRoi", landmarksToRoi: "HandLandmarkLandmarksToRoi", imageTag: "IMAGE_CPU",
        landmarks: """
            node {
              calculator: "HandLandmarkCpu"
              input_stream: "IMAGE:one_roi_image"
              input_stream: "ROI:one_roi"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              output_stream: "LANDMARKS:one_landmarks"
              output_stream: "WORLD_LANDMARKS:one_world_landmarks"
              output_stream: "HANDEDNESS:one_handedness"
            }
            """,
        collected: [
            ("EndLoopClassificationListCalculator", "one_handedness", "multi_handedness"),
            ("EndLoopNormalizedLandmarkListVectorCalculator", "one_landmarks", "multi_hand_landmarks"),
            ("EndLoopLandmarkListVectorCalculator", "one_world_landmarks", "multi_hand_world_landmarks"),
        ])

    /// One hand in one ROI: landmarks, world landmarks and handedness, or nothing when the
    /// model's hand score is under 0.5.
    static let landmarkCpu = """
        type: "HandLandmarkCpu"
        input_stream: "IMAGE:image"
        input_stream: "ROI:hand_rect"
        input_side_packet: "MODEL_COMPLEXITY:model_complexity"
        output_stream: "LANDMARKS:hand_landmarks"
        output_stream: "WORLD_LANDMARKS:hand_world_landmarks"
        output_stream: "HANDEDNESS:handedness"

        # The rotated ROI letterboxed into the model's 224×224 input, values in [0, 1].
        node {
          calculator: "ImageToTensorCalculator"
          input_stream: "IMAGE:image"
          input_stream: "NORM_RECT:hand_rect"
          output_stream: "TENSORS:crop"
          output_stream: "LETTERBOX_PADDING:padding"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
            output_tensor_width: 224
            output_tensor_height: 224
            keep_aspect_ratio: true
            output_tensor_float_range { min: 0.0 max: 1.0 }
          } }
        }
        node {
          calculator: "HandLandmarkModelLoader"
          input_side_packet: "MODEL_COMPLEXITY:model_complexity"
          output_side_packet: "MODEL:model"
        }
        node {
          calculator: "InferenceCalculator"
          input_stream: "TENSORS:crop"
          input_side_packet: "MODEL:model"
          output_stream: "TENSORS:model_outputs"
          options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack {} } } }
        }

        # The model gives landmarks, the hand score, the handedness score, world landmarks.
        node {
          calculator: "SplitTensorVectorCalculator"
          input_stream: "model_outputs"
          output_stream: "landmark_tensor"
          output_stream: "score_tensor"
          output_stream: "handedness_tensor"
          output_stream: "world_tensor"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            ranges { begin: 0 end: 1 }
            ranges { begin: 1 end: 2 }
            ranges { begin: 2 end: 3 }
            ranges { begin: 3 end: 4 }
          } }
        }
        node {
          calculator: "TensorsToFloatsCalculator"
          input_stream: "TENSORS:score_tensor"
          output_stream: "FLOAT:hand_score"
        }
        node {
          calculator: "ThresholdingCalculator"
          input_stream: "FLOAT:hand_score"
          output_stream: "FLAG:hand_present"
          options { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
        }

        # Handedness: one score for the labels file's two classes ("Left", "Right"); the likelier
        # one is kept.
        node {
          calculator: "GateCalculator"
          input_stream: "handedness_tensor"
          input_stream: "ALLOW:hand_present"
          output_stream: "present_handedness_tensor"
        }
        node {
          calculator: "TensorsToClassificationCalculator"
          input_stream: "TENSORS:present_handedness_tensor"
          output_stream: "CLASSIFICATIONS:handedness"
          options { [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
            top_k: 1
            label_map_path: "mediapipe/modules/hand_landmark/handedness.txt"
            binary_classification: true
          } }
        }

        # 21 points in 224×224 tensor pixels (z scaled by 0.4), out of the letterbox, onto
        # the image.
        node {
          calculator: "GateCalculator"
          input_stream: "landmark_tensor"
          input_stream: "ALLOW:hand_present"
          output_stream: "present_landmark_tensor"
        }
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:present_landmark_tensor"
          output_stream: "NORM_LANDMARKS:tensor_landmarks"
          options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
            num_landmarks: 21 input_image_width: 224 input_image_height: 224 normalize_z: 0.4
          } }
        }
        node {
          calculator: "LandmarkLetterboxRemovalCalculator"
          input_stream: "LANDMARKS:tensor_landmarks"
          input_stream: "LETTERBOX_PADDING:padding"
          output_stream: "LANDMARKS:roi_landmarks"
        }
        node {
          calculator: "LandmarkProjectionCalculator"
          input_stream: "NORM_LANDMARKS:roi_landmarks"
          input_stream: "NORM_RECT:hand_rect"
          output_stream: "NORM_LANDMARKS:hand_landmarks"
        }

        # World landmarks: metres about the hand, turned by the ROI's rotation.
        node {
          calculator: "GateCalculator"
          input_stream: "world_tensor"
          input_stream: "ALLOW:hand_present"
          output_stream: "present_world_tensor"
        }
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:present_world_tensor"
          output_stream: "LANDMARKS:world_in_roi"
          options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] { num_landmarks: 21 } }
        }
        node {
          calculator: "WorldLandmarkProjectionCalculator"
          input_stream: "LANDMARKS:world_in_roi"
          input_stream: "NORM_RECT:hand_rect"
          output_stream: "LANDMARKS:hand_world_landmarks"
        }
        """

    /// The next ROI from a hand's landmarks: turned so the wrist → middle finger points up,
    /// doubled, moved a little towards the fingers, made square.
    static let landmarksToRoi = """
        type: "HandLandmarkLandmarksToRoi"
        input_stream: "LANDMARKS:landmarks"
        input_stream: "IMAGE_SIZE:image_size"
        output_stream: "ROI:roi"
        node {
          calculator: "HandLandmarksToRectCalculator"
          input_stream: "NORM_LANDMARKS:landmarks"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "NORM_RECT:hand_box"
        }
        node {
          calculator: "RectTransformationCalculator"
          input_stream: "NORM_RECT:hand_box"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "roi"
          options { [mediapipe.RectTransformationCalculatorOptions.ext] {
            scale_x: 2.0 scale_y: 2.0 shift_y: -0.1 square_long: true
          } }
        }
        """

    /// Palms on the whole image, letterboxed into 192×192: 2016 anchors, seven keypoints each.
    static let palmDetection = LandmarkTrackingLoop.detector(
        interface: """
            type: "PalmDetectionCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "MODEL_COMPLEXITY:model_complexity"
            output_stream: "DETECTIONS:detections"
            """,
        toTensor: """
            output_tensor_width: 192
            output_tensor_height: 192
            keep_aspect_ratio: true
            output_tensor_float_range { min: 0.0 max: 1.0 }
            border_mode: BORDER_ZERO
            """,
        model: """
            node {
              calculator: "TfLiteCustomOpResolverCalculator"
              output_side_packet: "OP_RESOLVER:op_resolver"
            }
            node {
              calculator: "PalmDetectionModelLoader"
              input_side_packet: "MODEL_COMPLEXITY:model_complexity"
              output_side_packet: "MODEL:model"
            }
            node {
              calculator: "InferenceCalculator"
              input_stream: "TENSORS:input_tensor"
              input_side_packet: "MODEL:model"
              input_side_packet: "OP_RESOLVER:op_resolver"
              output_stream: "TENSORS:model_outputs"
              options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack {} } } }
            }
            """,
        anchors: """
            num_layers: 4
            min_scale: 0.1484375
            max_scale: 0.75
            input_size_width: 192
            input_size_height: 192
            anchor_offset_x: 0.5
            anchor_offset_y: 0.5
            strides: [8, 16, 16, 16]
            aspect_ratios: 1.0
            fixed_anchor_size: true
            """,
        // 18 values per anchor: box centre and size, then the wrist, finger bases and thumb.
        decode: """
            num_classes: 1
            num_boxes: 2016
            num_coords: 18
            box_coord_offset: 0
            keypoint_coord_offset: 4
            num_keypoints: 7
            num_values_per_keypoint: 2
            sigmoid_score: true
            score_clipping_thresh: 100.0
            reverse_output_order: true
            x_scale: 192.0 y_scale: 192.0 w_scale: 192.0 h_scale: 192.0
            min_score_thresh: 0.5
            """)

    /// A palm's ROI around the whole hand: turned so wrist → middle-finger base points up,
    /// enlarged 2.6×, moved towards the fingers, made square.
    static let palmToRoi = """
        type: "PalmDetectionDetectionToRoi"
        input_stream: "DETECTION:detection"
        input_stream: "IMAGE_SIZE:image_size"
        output_stream: "ROI:roi"
        node {
          calculator: "DetectionsToRectsCalculator"
          input_stream: "DETECTION:detection"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "NORM_RECT:palm_box"
          options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
            rotation_vector_start_keypoint_index: 0
            rotation_vector_end_keypoint_index: 2
            rotation_vector_target_angle_degrees: 90
          } }
        }
        node {
          calculator: "RectTransformationCalculator"
          input_stream: "NORM_RECT:palm_box"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "roi"
          options { [mediapipe.RectTransformationCalculatorOptions.ext] {
            scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true
          } }
        }
        """

    /// A model file chosen by `MODEL_COMPLEXITY`: 0 the lite model, 1 (the default) the full
    /// (and, for Pose, 2 the heavy one): `<stem>_<variant>.tflite`.
    static func loader(_ type: String, _ stem: String, variants: [String] = ["lite", "full"]) -> String {
        fileLoader(
            type, sidePacket: "MODEL_COMPLEXITY:model_complexity", choice: "SELECT:model_complexity", defaultChoice: "select: 1",
            paths: variants.map { "mediapipe/modules/\(stem)_\($0).tflite" })
    }

    /// A model loader subgraph: a `SwitchContainer` driven by the side packet `choice` picks one
    /// of `paths`, whose file is read and parsed into the `MODEL` side packet.
    static func fileLoader(_ type: String, sidePacket: String, choice: String, defaultChoice: String, paths: [String]) -> String {
        let files = paths.map { path in
            """
                contained_node {
                  calculator: "ConstantSidePacketCalculator"
                  options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] { packet { string_value: "\(path)" } } }
                }
            """
        }.joined(separator: "\n")
        return """
            type: "\(type)"
            input_side_packet: "\(sidePacket)"
            output_side_packet: "MODEL:model"
            node {
              calculator: "SwitchContainer"
              input_side_packet: "\(choice)"
              output_side_packet: "PACKET:model_path"
              options { [mediapipe.SwitchContainerOptions.ext] {
                \(defaultChoice)
            \(files)
              } }
            }
            node {
              calculator: "LocalFileContentsCalculator"
              input_side_packet: "FILE_PATH:model_path"
              output_side_packet: "CONTENTS:model_bytes"
            }
            node {
              calculator: "TfLiteModelCalculator"
              input_side_packet: "MODEL_BLOB:model_bytes"
              output_side_packet: "MODEL:model"
            }
            """
    }
}
