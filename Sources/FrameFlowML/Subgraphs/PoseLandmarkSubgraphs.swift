/// MediaPipe's Pose subgraphs under MediaPipe's names, ports and side packets, so that
/// MediaPipe's compiled `pose_landmark_cpu.binarypb` (and graphs written for MediaPipe) find
/// the subgraphs they name.
///
/// `PoseLandmarkCpu` follows one person: on a frame with no ROI from the previous frame's
/// landmarks (or with `USE_PREV_LANDMARKS` false), `PoseDetectionCpu` finds people and the
/// first becomes a rotated square ROI (hips centre → shoulders centre pointing up);
/// `PoseLandmarkByRoiCpu` crops the ROI, runs the landmark model (`MODEL_COMPLEXITY` 0 lite,
/// 1 full, 2 heavy) and gives 33 landmarks with visibility, 33 world landmarks (metres about
/// the hips), two auxiliary landmarks that give next frame's ROI, and a person mask
/// (`ENABLE_SEGMENTATION`). Landmarks are smoothed across frames with one-euro filters
/// (`SMOOTH_LANDMARKS`), the mask by blending with the previous one (`SMOOTH_SEGMENTATION`).
enum PoseLandmarkSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("PoseLandmarkCpu", landmarkCpu),
        ("PoseLandmarkByRoiCpu", byRoi),
        (
            "PoseLandmarkModelLoader",
            HandLandmarkSubgraphs.loader("PoseLandmarkModelLoader", "pose_landmark/pose_landmark", variants: ["lite", "full", "heavy"])
        ),
        ("TensorsToPoseLandmarksAndSegmentation", tensorsToLandmarks),
        ("PoseLandmarksAndSegmentationInverseProjection", inverseProjection),
        ("PoseLandmarkFiltering", landmarkFiltering),
        ("PoseSegmentationFiltering", segmentationFiltering),
        ("PoseDetectionCpu", detection),
        ("PoseDetectionToRoi", roi("PoseDetectionToRoi", input: "DETECTION:detection", fromLandmarks: false)),
        ("PoseLandmarksToRoi", roi("PoseLandmarksToRoi", input: "LANDMARKS:landmarks", fromLandmarks: true)),
        ("PoseRendererCpu", renderer),
        ("PoseLandmarksToRenderData", landmarksToRenderData),
    ]

    /// Two values follow what MediaPipe's Python solution computes rather than MediaPipe's
    /// graph files: `solutions.pose` (mediapipe 0.10.21) runs the validated graph config after
    /// a round trip through Python's protobuf, which drops the options of the extensions it
    /// has no descriptor for, so RefineLandmarksFromHeatmapCalculator runs with its default
    /// kernel (9, the file says 7) and SegmentationSmoothingCalculator with its default ratio
    /// (0, no smoothing; the file says 0.7). Measured against `solutions.pose`: with the
    /// file's values the photos' landmarks are 0.03–0.2 % of the width off and the carphone
    /// clip's 96 of 120 frames within 1 %; with these, under 0.02 % and 120 of 120.
    static let pythonHeatmapKernel = 9
    static let pythonMaskBlend = 0.0

    /// Detection or tracking, landmarks, filtering, and the next frame's ROI.
    static let landmarkCpu = """
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

        # Last frame's ROI, unless tracking is off; the detector runs only without one.
        node {
          calculator: "GateCalculator"
          input_stream: "last_roi"
          input_side_packet: "ALLOW:use_prev_landmarks"
          output_stream: "tracked_roi"
          options { [mediapipe.GateCalculatorOptions.ext] { allow: true } }
        }
        node {
          calculator: "PacketPresenceCalculator"
          input_stream: "PACKET:tracked_roi"
          output_stream: "PRESENCE:is_tracking"
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
          input_stream: "DISALLOW:is_tracking"
          output_stream: "detection_image"
          output_stream: "detection_image_size"
          options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: true } }
        }
        node {
          calculator: "PoseDetectionCpu"
          input_stream: "IMAGE:detection_image"
          output_stream: "DETECTIONS:pose_detections"
        }

        # Only the first (highest-scoring) person is followed.
        node {
          calculator: "SplitDetectionVectorCalculator"
          input_stream: "pose_detections"
          output_stream: "pose_detection"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            ranges { begin: 0 end: 1 }
            element_only: true
          } }
        }
        node {
          calculator: "PoseDetectionToRoi"
          input_stream: "DETECTION:pose_detection"
          input_stream: "IMAGE_SIZE:detection_image_size"
          output_stream: "ROI:pose_rect_from_detection"
        }
        node {
          calculator: "MergeCalculator"
          input_stream: "pose_rect_from_detection"
          input_stream: "tracked_roi"
          output_stream: "pose_rect"
        }

        node {
          calculator: "PoseLandmarkByRoiCpu"
          input_stream: "IMAGE:image"
          input_stream: "ROI:pose_rect"
          input_side_packet: "MODEL_COMPLEXITY:model_complexity"
          input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
          output_stream: "LANDMARKS:raw_landmarks"
          output_stream: "AUXILIARY_LANDMARKS:raw_auxiliary_landmarks"
          output_stream: "WORLD_LANDMARKS:raw_world_landmarks"
          output_stream: "SEGMENTATION_MASK:raw_segmentation_mask"
        }
        node {
          calculator: "PoseLandmarkFiltering"
          input_side_packet: "ENABLE:smooth_landmarks"
          input_stream: "IMAGE_SIZE:image_size"
          input_stream: "NORM_LANDMARKS:raw_landmarks"
          input_stream: "AUX_NORM_LANDMARKS:raw_auxiliary_landmarks"
          input_stream: "WORLD_LANDMARKS:raw_world_landmarks"
          output_stream: "FILTERED_NORM_LANDMARKS:pose_landmarks"
          output_stream: "FILTERED_AUX_NORM_LANDMARKS:auxiliary_landmarks"
          output_stream: "FILTERED_WORLD_LANDMARKS:pose_world_landmarks"
        }

        # The (always smoothed) auxiliary landmarks give next frame's ROI.
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
          input_stream_info { tag_index: "LOOP" back_edge: true }
          output_stream: "PREV_LOOP:last_roi"
        }

        node {
          calculator: "PoseSegmentationFiltering"
          input_side_packet: "ENABLE:smooth_segmentation"
          input_stream: "SEGMENTATION_MASK:raw_segmentation_mask"
          output_stream: "FILTERED_SEGMENTATION_MASK:smoothed_segmentation_mask"
        }
        node {
          calculator: "FromImageCalculator"
          input_stream: "IMAGE:smoothed_segmentation_mask"
          output_stream: "IMAGE_CPU:segmentation_mask"
        }
        """

    /// One person in one ROI: the crop letterboxed into the model's 256×256 input, the model,
    /// and its outputs mapped back onto the image.
    static let byRoi = """
        type: "PoseLandmarkByRoiCpu"
        input_stream: "IMAGE:image"
        input_stream: "ROI:roi"
        input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
        input_side_packet: "MODEL_COMPLEXITY:model_complexity"
        output_stream: "LANDMARKS:landmarks"
        output_stream: "AUXILIARY_LANDMARKS:auxiliary_landmarks"
        output_stream: "WORLD_LANDMARKS:world_landmarks"
        output_stream: "SEGMENTATION_MASK:segmentation_mask"

        node {
          calculator: "ImagePropertiesCalculator"
          input_stream: "IMAGE_CPU:image"
          output_stream: "SIZE:image_size"
        }
        node {
          calculator: "ImageToTensorCalculator"
          input_stream: "IMAGE:image"
          input_stream: "NORM_RECT:roi"
          output_stream: "TENSORS:crop"
          output_stream: "LETTERBOX_PADDING:padding"
          output_stream: "MATRIX:crop_to_image"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
            output_tensor_width: 256
            output_tensor_height: 256
            keep_aspect_ratio: true
            output_tensor_float_range { min: 0.0 max: 1.0 }
          } }
        }
        node {
          calculator: "PoseLandmarkModelLoader"
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
        node {
          calculator: "TensorsToPoseLandmarksAndSegmentation"
          input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
          input_stream: "TENSORS:model_outputs"
          output_stream: "LANDMARKS:crop_landmarks"
          output_stream: "AUXILIARY_LANDMARKS:crop_auxiliary_landmarks"
          output_stream: "WORLD_LANDMARKS:crop_world_landmarks"
          output_stream: "SEGMENTATION_MASK:crop_mask"
        }
        node {
          calculator: "PoseLandmarksAndSegmentationInverseProjection"
          input_stream: "IMAGE_SIZE:image_size"
          input_stream: "NORM_RECT:roi"
          input_stream: "LETTERBOX_PADDING:padding"
          input_stream: "MATRIX:crop_to_image"
          input_stream: "LANDMARKS:crop_landmarks"
          input_stream: "AUXILIARY_LANDMARKS:crop_auxiliary_landmarks"
          input_stream: "WORLD_LANDMARKS:crop_world_landmarks"
          input_stream: "SEGMENTATION_MASK:crop_mask"
          output_stream: "LANDMARKS:landmarks"
          output_stream: "AUXILIARY_LANDMARKS:auxiliary_landmarks"
          output_stream: "WORLD_LANDMARKS:world_landmarks"
          output_stream: "SEGMENTATION_MASK:segmentation_mask"
        }
        """

    /// The landmark model's five outputs: 39 landmarks (x, y, z, visibility, presence in
    /// 256×256 tensor pixels), the pose score, the mask logits, a heatmap, and 39 world
    /// landmarks. Nothing comes out where the score is under 0.5.
    static let tensorsToLandmarks = """
        type: "TensorsToPoseLandmarksAndSegmentation"
        input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
        input_stream: "TENSORS:tensors"
        output_stream: "LANDMARKS:landmarks"
        output_stream: "AUXILIARY_LANDMARKS:auxiliary_landmarks"
        output_stream: "WORLD_LANDMARKS:world_landmarks"
        output_stream: "SEGMENTATION_MASK:segmentation_mask"

        node {
          calculator: "SplitTensorVectorCalculator"
          input_stream: "tensors"
          output_stream: "landmark_tensor"
          output_stream: "score_tensor"
          output_stream: "mask_tensor"
          output_stream: "heatmap_tensor"
          output_stream: "world_tensor"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            ranges { begin: 0 end: 1 }
            ranges { begin: 1 end: 2 }
            ranges { begin: 2 end: 3 }
            ranges { begin: 3 end: 4 }
            ranges { begin: 4 end: 5 }
          } }
        }
        node {
          calculator: "TensorsToFloatsCalculator"
          input_stream: "TENSORS:score_tensor"
          output_stream: "FLOAT:pose_score"
        }
        node {
          calculator: "ThresholdingCalculator"
          input_stream: "FLOAT:pose_score"
          output_stream: "FLAG:pose_present"
          options { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
        }
        node {
          calculator: "GateCalculator"
          input_stream: "landmark_tensor"
          input_stream: "world_tensor"
          input_stream: "mask_tensor"
          input_stream: "heatmap_tensor"
          input_stream: "ALLOW:pose_present"
          output_stream: "present_landmark_tensor"
          output_stream: "present_world_tensor"
          output_stream: "present_mask_tensor"
          output_stream: "present_heatmap_tensor"
        }

        # Landmarks, each nudged to the heatmap's peak near it; 0–32 the body, 33–34 the
        # auxiliary pair (hips centre, and a point that sets the body's size and turn).
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:present_landmark_tensor"
          output_stream: "NORM_LANDMARKS:coarse_landmarks"
          options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
            num_landmarks: 39
            input_image_width: 256
            input_image_height: 256
            visibility_activation: SIGMOID
            presence_activation: SIGMOID
          } }
        }
        node {
          calculator: "RefineLandmarksFromHeatmapCalculator"
          input_stream: "NORM_LANDMARKS:coarse_landmarks"
          input_stream: "TENSORS:present_heatmap_tensor"
          output_stream: "NORM_LANDMARKS:refined_landmarks"
          options { [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] { kernel_size: \(pythonHeatmapKernel) } }
        }
        node {
          calculator: "SplitNormalizedLandmarkListCalculator"
          input_stream: "refined_landmarks"
          output_stream: "landmarks"
          output_stream: "auxiliary_landmarks"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            ranges { begin: 0 end: 33 }
            ranges { begin: 33 end: 35 }
          } }
        }

        # World landmarks carry the image landmarks' visibility and presence.
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:present_world_tensor"
          output_stream: "LANDMARKS:every_world_landmark"
          options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] { num_landmarks: 39 } }
        }
        node {
          calculator: "SplitLandmarkListCalculator"
          input_stream: "every_world_landmark"
          output_stream: "body_world_landmarks"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] { ranges { begin: 0 end: 33 } } }
        }
        node {
          calculator: "VisibilityCopyCalculator"
          input_stream: "NORM_LANDMARKS_FROM:landmarks"
          input_stream: "LANDMARKS_TO:body_world_landmarks"
          output_stream: "LANDMARKS_TO:world_landmarks"
          options { [mediapipe.VisibilityCopyCalculatorOptions.ext] { copy_visibility: true copy_presence: true } }
        }

        # The mask only when segmentation is on.
        node {
          calculator: "GateCalculator"
          input_side_packet: "ALLOW:enable_segmentation"
          input_stream: "present_mask_tensor"
          output_stream: "wanted_mask_tensor"
          options { [mediapipe.GateCalculatorOptions.ext] { allow: false } }
        }
        node {
          calculator: "TensorsToSegmentationCalculator"
          input_stream: "TENSORS:wanted_mask_tensor"
          output_stream: "MASK:segmentation_mask"
          options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] {
            activation: SIGMOID
            gpu_origin: TOP_LEFT
          } }
        }
        """

    /// From the crop back onto the image: landmarks out of the letterbox and the rotated ROI,
    /// world landmarks turned by the ROI's rotation, the mask warped by the crop's inverse
    /// matrix to the image's size.
    static var inverseProjection: String {
        let landmarks = [("roi_landmarks", "landmarks"), ("roi_auxiliary_landmarks", "auxiliary_landmarks")].map { from, to in
            """
            node {
              calculator: "LandmarkLetterboxRemovalCalculator"
              input_stream: "LANDMARKS:\(from)"
              input_stream: "LETTERBOX_PADDING:padding"
              output_stream: "LANDMARKS:unpadded_\(to)"
            }
            node {
              calculator: "LandmarkProjectionCalculator"
              input_stream: "NORM_LANDMARKS:unpadded_\(to)"
              input_stream: "NORM_RECT:roi"
              output_stream: "NORM_LANDMARKS:\(to)"
            }
            """
        }.joined(separator: "\n")
        return """
            type: "PoseLandmarksAndSegmentationInverseProjection"
            input_stream: "IMAGE_SIZE:image_size"
            input_stream: "NORM_RECT:roi"
            input_stream: "LETTERBOX_PADDING:padding"
            input_stream: "MATRIX:crop_to_image"
            input_stream: "LANDMARKS:roi_landmarks"
            input_stream: "AUXILIARY_LANDMARKS:roi_auxiliary_landmarks"
            input_stream: "WORLD_LANDMARKS:roi_world_landmarks"
            input_stream: "SEGMENTATION_MASK:roi_mask"
            output_stream: "LANDMARKS:landmarks"
            output_stream: "AUXILIARY_LANDMARKS:auxiliary_landmarks"
            output_stream: "WORLD_LANDMARKS:world_landmarks"
            output_stream: "SEGMENTATION_MASK:segmentation_mask"
            \(landmarks)
            node {
              calculator: "WorldLandmarkProjectionCalculator"
              input_stream: "LANDMARKS:roi_world_landmarks"
              input_stream: "NORM_RECT:roi"
              output_stream: "LANDMARKS:world_landmarks"
            }
            node {
              calculator: "InverseMatrixCalculator"
              input_stream: "MATRIX:crop_to_image"
              output_stream: "MATRIX:image_to_crop"
            }
            node {
              calculator: "WarpAffineCalculator"
              input_stream: "IMAGE:roi_mask"
              input_stream: "MATRIX:image_to_crop"
              input_stream: "OUTPUT_SIZE:image_size"
              output_stream: "IMAGE:segmentation_mask"
              options { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: BORDER_ZERO gpu_origin: TOP_LEFT } }
            }
            """
    }

    /// A smoothing node: `calculator` with `filter` (its options' filter field) on `input`,
    /// under the `NORM_` tags when the landmarks are normalized. With `switchable`, the
    /// filter holds only when the `enable` side packet is true (else `no_filter`).
    static func smoothing(
        _ calculator: String, normalized: Bool, _ input: String, _ output: String, filter: String, switchable: Bool,
        scaleInputs: Bool = false
    ) -> String {
        let prefix = normalized ? "NORM_" : ""
        let optionsType = "mediapipe.\(calculator)Options.ext"
        let ports = """
            input_stream: "\(prefix)LANDMARKS:\(input)"
            \(scaleInputs ? "input_stream: \"IMAGE_SIZE:image_size\"\ninput_stream: \"OBJECT_SCALE_ROI:scale_roi\"" : "")
            output_stream: "\(prefix)FILTERED_LANDMARKS:\(output)"
            """
        guard switchable else {
            return """
                node {
                  calculator: "\(calculator)"
                  \(ports)
                  options { [\(optionsType)] { \(filter) } }
                }
                """
        }
        return """
            node {
              calculator: "SwitchContainer"
              input_side_packet: "ENABLE:enable"
              \(ports)
              options { [mediapipe.SwitchContainerOptions.ext] {
                enable: true
                contained_node { calculator: "\(calculator)" options { [\(optionsType)] { no_filter {} } } }
                contained_node { calculator: "\(calculator)" options { [\(optionsType)] { \(filter) } } }
              } }
            }
            """
    }

    /// Landmark smoothing across frames (`ENABLE`): visibility by a low-pass filter, positions
    /// by one-euro filters scaled by the body's size; the auxiliary landmarks (which give the
    /// next ROI) are always smoothed.
    static let landmarkFiltering = """
        type: "PoseLandmarkFiltering"
        input_side_packet: "ENABLE:enable"
        input_stream: "IMAGE_SIZE:image_size"
        input_stream: "NORM_LANDMARKS:landmarks"
        input_stream: "AUX_NORM_LANDMARKS:aux_landmarks"
        input_stream: "WORLD_LANDMARKS:world_landmarks"
        output_stream: "FILTERED_NORM_LANDMARKS:filtered_landmarks"
        output_stream: "FILTERED_AUX_NORM_LANDMARKS:filtered_aux_landmarks"
        output_stream: "FILTERED_WORLD_LANDMARKS:filtered_world_landmarks"

        # The body's box from the auxiliary pair sets the filters' scale.
        node {
          calculator: "LandmarksToDetectionCalculator"
          input_stream: "NORM_LANDMARKS:aux_landmarks"
          output_stream: "DETECTION:aux_detection"
        }
        node {
          calculator: "AlignmentPointsRectsCalculator"
          input_stream: "DETECTION:aux_detection"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "NORM_RECT:scale_roi"
          options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
            rotation_vector_start_keypoint_index: 0
            rotation_vector_end_keypoint_index: 1
            rotation_vector_target_angle_degrees: 90
          } }
        }
        \(smoothing("VisibilitySmoothingCalculator", normalized: true, "landmarks", "smoothed_visibility",
            filter: "low_pass_filter { alpha: 0.1 }", switchable: true))
        \(smoothing("LandmarksSmoothingCalculator", normalized: true, "smoothed_visibility", "filtered_landmarks",
            filter: "one_euro_filter { min_cutoff: 0.05 beta: 80.0 derivate_cutoff: 1.0 }", switchable: true, scaleInputs: true))
        \(smoothing("VisibilitySmoothingCalculator", normalized: false, "world_landmarks", "smoothed_world_visibility",
            filter: "low_pass_filter { alpha: 0.1 }", switchable: true))
        \(smoothing("LandmarksSmoothingCalculator", normalized: false, "smoothed_world_visibility", "filtered_world_landmarks",
            filter: "one_euro_filter { min_cutoff: 0.1 beta: 40.0 derivate_cutoff: 1.0 disable_value_scaling: true }", switchable: true))
        \(smoothing("VisibilitySmoothingCalculator", normalized: true, "aux_landmarks", "smoothed_aux_visibility",
            filter: "low_pass_filter { alpha: 0.1 }", switchable: false))
        \(smoothing("LandmarksSmoothingCalculator", normalized: true, "smoothed_aux_visibility", "filtered_aux_landmarks",
            filter: "one_euro_filter { min_cutoff: 0.01 beta: 10.0 derivate_cutoff: 1.0 }", switchable: false, scaleInputs: true))
        """

    /// Mask smoothing across frames (`ENABLE`): each mask is blended with the previous
    /// smoothed one, by how sure the new one is, `pythonMaskBlend` of the way (none, as in
    /// MediaPipe's Python solution).
    static let segmentationFiltering = """
        type: "PoseSegmentationFiltering"
        input_side_packet: "ENABLE:enable"
        input_stream: "SEGMENTATION_MASK:segmentation_mask"
        output_stream: "FILTERED_SEGMENTATION_MASK:filtered_segmentation_mask"
        node {
          calculator: "GateCalculator"
          input_side_packet: "ALLOW:enable"
          input_stream: "last_mask"
          output_stream: "allowed_last_mask"
          options { [mediapipe.GateCalculatorOptions.ext] { allow: true } }
        }
        node {
          calculator: "SegmentationSmoothingCalculator"
          input_stream: "MASK:segmentation_mask"
          input_stream: "MASK_PREVIOUS:allowed_last_mask"
          output_stream: "MASK_SMOOTHED:filtered_segmentation_mask"
          options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] { combine_with_previous_ratio: \(pythonMaskBlend) } }
        }
        node {
          calculator: "PreviousLoopbackCalculator"
          input_stream: "MAIN:segmentation_mask"
          input_stream: "LOOP:filtered_segmentation_mask"
          input_stream_info { tag_index: "LOOP" back_edge: true }
          output_stream: "PREV_LOOP:last_mask"
        }
        """

    /// People on the whole image, letterboxed into 224×224 with values in [-1, 1]: 2254
    /// anchors, a box and four keypoints each (hips centre, a point fixing the body's size
    /// and turn, face centre, a point fixing the face's size).
    static let detection = LandmarkTrackingLoop.detector(
        interface: """
            type: "PoseDetectionCpu"
            input_stream: "IMAGE:image"
            output_stream: "DETECTIONS:detections"
            """,
        toTensor: """
            output_tensor_width: 224
            output_tensor_height: 224
            keep_aspect_ratio: true
            output_tensor_float_range { min: -1.0 max: 1.0 }
            border_mode: BORDER_ZERO
            gpu_origin: TOP_LEFT
            """,
        model: """
            node {
              calculator: "InferenceCalculator"
              input_stream: "TENSORS:input_tensor"
              output_stream: "TENSORS:model_outputs"
              options { [mediapipe.InferenceCalculatorOptions.ext] {
                model_path: "mediapipe/modules/pose_detection/pose_detection.tflite"
                delegate { xnnpack {} }
              } }
            }
            """,
        anchors: """
            num_layers: 5
            min_scale: 0.1484375
            max_scale: 0.75
            input_size_width: 224
            input_size_height: 224
            anchor_offset_x: 0.5
            anchor_offset_y: 0.5
            strides: [8, 16, 32, 32, 32]
            aspect_ratios: 1.0
            fixed_anchor_size: true
            """,
        decode: """
            num_classes: 1
            num_boxes: 2254
            num_coords: 12
            box_coord_offset: 0
            keypoint_coord_offset: 4
            num_keypoints: 4
            num_values_per_keypoint: 2
            sigmoid_score: true
            score_clipping_thresh: 100.0
            reverse_output_order: true
            x_scale: 224.0 y_scale: 224.0 w_scale: 224.0 h_scale: 224.0
            min_score_thresh: 0.5
            """)

    /// A person's ROI from a detection's (or the auxiliary landmarks') first two points: a
    /// square centred on the hips whose half-side reaches the second point, turned so hips →
    /// shoulders points up, enlarged 1.25×.
    static func roi(_ type: String, input: String, fromLandmarks: Bool) -> String {
        FaceLandmarkSubgraphs.rectToRoi(
            type, input: input, firstKeypoint: 0, secondKeypoint: 1, fromLandmarks: fromLandmarks,
            box: "AlignmentPointsRectsCalculator", angle: 90, scale: 1.25)
    }

    /// Landmark pairs joined into the skeleton: face, arms and hands, torso, legs and feet.
    static let connections = """
        0, 1, 1, 2, 2, 3, 3, 7, 0, 4, 4, 5, 5, 6, 6, 8, 9, 10, 11, 12, 11, 13, 13, 15, 15, 17, 15, 19,
        15, 21, 17, 19, 12, 14, 14, 16, 16, 18, 16, 20, 16, 22, 18, 20, 11, 23, 12, 24, 23, 24, 23, 25,
        24, 26, 25, 27, 26, 28, 27, 29, 28, 30, 29, 31, 30, 32, 27, 31, 28, 32
        """

    /// A landmarks drawing node (visible landmarks only, thickness × `render_scale`).
    static func drawLandmarks(_ input: String, _ output: String, color: (Int, Int, Int), thickness: Double, joined: Bool) -> String {
        """
        node {
          calculator: "LandmarksToRenderDataCalculator"
          input_stream: "NORM_LANDMARKS:\(input)"
          input_stream: "RENDER_SCALE:render_scale"
          output_stream: "RENDER_DATA:\(output)"
          options { [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
            \(joined ? "landmark_connections: [\(connections)]" : "")
            landmark_color { r: \(color.0) g: \(color.1) b: \(color.2) }
            connection_color { r: \(color.0) g: \(color.1) b: \(color.2) }
            thickness: \(thickness)
            visualize_landmark_depth: false
            utilize_visibility: true
            visibility_threshold: 0.5
          } }
        }
        """
    }

    /// The landmarks of one side of the body (face, arm, hand, hip, leg and foot) as a list.
    static func joints(_ output: String, _ indices: [Int]) -> String {
        let ranges = indices.map { "ranges { begin: \($0) end: \($0 + 1) }" }.joined(separator: " ")
        return """
            node {
              calculator: "SplitNormalizedLandmarkListCalculator"
              input_stream: "pose_landmarks"
              output_stream: "\(output)"
              options { [mediapipe.SplitVectorCalculatorOptions.ext] { \(ranges) combine_outputs: true } }
            }
            """
    }

    /// The skeleton in white, the left side's joints in orange and the right side's in cyan,
    /// sized by the ROI (so a far person gets thinner lines).
    static let landmarksToRenderData = """
        type: "PoseLandmarksToRenderData"
        input_stream: "LANDMARKS:pose_landmarks"
        input_stream: "ROI:roi"
        input_stream: "IMAGE_SIZE:image_size"
        output_stream: "RENDER_DATA:drawings"
        node {
          calculator: "RectToRenderScaleCalculator"
          input_stream: "NORM_RECT:roi"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "RENDER_SCALE:render_scale"
          options { [mediapipe.RectToRenderScaleCalculatorOptions.ext] { multiplier: 0.0012 } }
        }
        \(drawLandmarks("pose_landmarks", "skeleton_drawing", color: (255, 255, 255), thickness: 3, joined: true))
        \(joints("left_joints", [1, 2, 3, 7, 9] + Array(stride(from: 11, to: 33, by: 2))))
        \(joints("right_joints", [4, 5, 6, 8, 10] + Array(stride(from: 12, to: 33, by: 2))))
        \(drawLandmarks("left_joints", "left_drawing", color: (255, 138, 0), thickness: 3, joined: false))
        \(drawLandmarks("right_joints", "right_drawing", color: (0, 217, 231), thickness: 3, joined: false))
        node {
          calculator: "ConcatenateRenderDataVectorCalculator"
          input_stream: "skeleton_drawing"
          input_stream: "left_drawing"
          input_stream: "right_drawing"
          output_stream: "drawings"
        }
        """

    /// The image with the background painted blue (1 − mask of the way, as MediaPipe's demo
    /// does), the detection box, the ROI and the skeleton.
    static let renderer = """
        type: "PoseRendererCpu"
        input_stream: "IMAGE:image"
        input_stream: "LANDMARKS:pose_landmarks"
        input_stream: "SEGMENTATION_MASK:segmentation_mask"
        input_stream: "ROI:roi"
        input_stream: "DETECTION:detection"
        output_stream: "IMAGE:annotated"
        node {
          calculator: "ImagePropertiesCalculator"
          input_stream: "IMAGE:image"
          output_stream: "SIZE:image_size"
        }
        node {
          calculator: "DetectionsToRenderDataCalculator"
          input_stream: "DETECTION:detection"
          output_stream: "RENDER_DATA:detection_drawing"
          options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] { thickness: 4.0 color { r: 0 g: 255 b: 0 } } }
        }
        node {
          calculator: "RectToRenderDataCalculator"
          input_stream: "NORM_RECT:roi"
          output_stream: "RENDER_DATA:roi_drawing"
          options { [mediapipe.RectToRenderDataCalculatorOptions.ext] { filled: false thickness: 4.0 color { r: 255 g: 0 b: 0 } } }
        }
        node {
          calculator: "PoseLandmarksToRenderData"
          input_stream: "LANDMARKS:pose_landmarks"
          input_stream: "ROI:roi"
          input_stream: "IMAGE_SIZE:image_size"
          output_stream: "RENDER_DATA:landmark_drawings"
        }
        node {
          calculator: "RecolorCalculator"
          input_stream: "IMAGE:image"
          input_stream: "MASK:segmentation_mask"
          output_stream: "IMAGE:tinted"
          options { [mediapipe.RecolorCalculatorOptions.ext] {
            color { r: 0 g: 0 b: 255 }
            mask_channel: RED
            invert_mask: true
            adjust_with_luminance: false
          } }
        }
        node {
          calculator: "AnnotationOverlayCalculator"
          input_stream: "IMAGE:tinted"
          input_stream: "detection_drawing"
          input_stream: "roi_drawing"
          input_stream: "VECTOR:landmark_drawings"
          output_stream: "IMAGE:annotated"
        }
        """
}
