/// MediaPipe's Face Mesh subgraphs under MediaPipe's names, ports and side packets, so that
/// MediaPipe's compiled `face_landmark_front_cpu.binarypb` (and graphs written for MediaPipe)
/// find the subgraphs they name.
///
/// `FaceLandmarkFrontCpu` tracks up to `NUM_FACES` faces: on a frame where the previous
/// frame's landmarks (`USE_PREV_LANDMARKS`) do not already give enough faces, face detection
/// runs and each detection becomes a rotated square ROI; the ROIs of detections and of the
/// previous landmarks are merged (overlapping ones collapse into one), and `FaceLandmarkCpu`
/// crops each ROI, runs the landmark model (with irises and refined lips/eyes when
/// `WITH_ATTENTION`) and projects the landmarks back onto the image. The landmarks of each
/// face give next frame's ROI.
enum FaceLandmarkSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("FaceLandmarkFrontCpu", front),
        ("FaceLandmarkCpu", landmarkCpu),
        ("FaceLandmarksModelLoader", modelLoader),
        (
            "FaceDetectionFrontDetectionToRoi",
            rectToRoi(
                "FaceDetectionFrontDetectionToRoi", input: "DETECTION:detection", firstKeypoint: 0, secondKeypoint: 1, fromLandmarks: false)
        ),
        (
            "FaceLandmarkLandmarksToRoi",
            rectToRoi(
                "FaceLandmarkLandmarksToRoi", input: "LANDMARKS:landmarks", firstKeypoint: 33, secondKeypoint: 263, fromLandmarks: true)
        ),
        ("TensorsToFaceLandmarks", tensorsToLandmarks),
        ("TensorsToFaceLandmarksWithAttention", tensorsToLandmarksWithAttention),
    ]

    /// Detection or tracking, then landmarks, for each face.
    static let front = LandmarkTrackingLoop.text(
        interface: """
            type: "FaceLandmarkFrontCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "NUM_FACES:num_faces"
            input_side_packet: "USE_PREV_LANDMARKS:use_prev_landmarks"
            input_side_packet: "WITH_ATTENTION:with_attention"
            output_stream: "LANDMARKS:multi_face_landmarks"
            output_stream: "DETECTIONS:detections"
            output_stream: "ROIS_FROM_LANDMARKS:rois_from_landmarks"
            output_stream: "ROIS_FROM_DETECTIONS:rois_from_detections"
            """,
        count: "num_faces",
        detector: """
            node {
              calculator: "FaceDetectionShortRangeCpu"
              input_stream: "IMAGE:detection_image"
              output_stream: "DETECTIONS:every_detection"
            }
            """,
        detectionToRoi: "FaceDetectionFrontDetectionToRoi", landmarksToRoi: "FaceLandmarkLandmarksToRoi", imageTag: "IMAGE",
        landmarks: """
            node {
              calculator: "FaceLandmarkCpu"
              input_stream: "IMAGE:one_roi_image"
              input_stream: "ROI:one_roi"
              input_side_packet: "WITH_ATTENTION:with_attention"
              output_stream: "LANDMARKS:one_landmarks"
            }
            """,
        collected: [("EndLoopNormalizedLandmarkListVectorCalculator", "one_landmarks", "multi_face_landmarks")])

    /// Landmarks of one face in one ROI: 468 points, or 478 (with irises) with attention.
    static let landmarkCpu = """
        type: "FaceLandmarkCpu"
        input_stream: "IMAGE:image"
        input_stream: "ROI:roi"
        input_side_packet: "WITH_ATTENTION:with_attention"
        output_stream: "LANDMARKS:face_landmarks"

        # The rotated ROI, stretched to the model's 192×192 input, values in [0, 1].
        node {
          calculator: "ImageToTensorCalculator"
          input_stream: "IMAGE:image"
          input_stream: "NORM_RECT:roi"
          output_stream: "TENSORS:crop"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
            output_tensor_width: 192
            output_tensor_height: 192
            output_tensor_float_range { min: 0.0 max: 1.0 }
          } }
        }
        node {
          calculator: "FaceLandmarksModelLoader"
          input_side_packet: "WITH_ATTENTION:with_attention"
          output_side_packet: "MODEL:model"
        }
        node {
          calculator: "TfLiteCustomOpResolverCalculator"
          output_side_packet: "OP_RESOLVER:op_resolver"
        }
        node {
          calculator: "InferenceCalculator"
          input_stream: "TENSORS:crop"
          input_side_packet: "MODEL:model"
          input_side_packet: "OP_RESOLVER:op_resolver"
          output_stream: "TENSORS:model_outputs"
          options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack {} } } }
        }

        # The plain model gives [mesh, face score]; the attention model gives six landmark
        # tensors (mesh, lips, eyes, irises) and then the score.
        node {
          calculator: "SwitchContainer"
          input_side_packet: "ENABLE:with_attention"
          input_stream: "model_outputs"
          output_stream: "landmark_tensors"
          output_stream: "score_tensor"
          options { [mediapipe.SwitchContainerOptions.ext] {
            contained_node {
              calculator: "SplitTensorVectorCalculator"
              options { [mediapipe.SplitVectorCalculatorOptions.ext] {
                ranges { begin: 0 end: 1 }
                ranges { begin: 1 end: 2 }
              } }
            }
            contained_node {
              calculator: "SplitTensorVectorCalculator"
              options { [mediapipe.SplitVectorCalculatorOptions.ext] {
                ranges { begin: 0 end: 6 }
                ranges { begin: 6 end: 7 }
              } }
            }
          } }
        }

        # Landmarks only where the model says a face is there.
        node {
          calculator: "TensorsToFloatsCalculator"
          input_stream: "TENSORS:score_tensor"
          output_stream: "FLOAT:face_score"
          options { [mediapipe.TensorsToFloatsCalculatorOptions.ext] { activation: SIGMOID } }
        }
        node {
          calculator: "ThresholdingCalculator"
          input_stream: "FLOAT:face_score"
          output_stream: "FLAG:face_present"
          options { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
        }
        node {
          calculator: "GateCalculator"
          input_stream: "landmark_tensors"
          input_stream: "ALLOW:face_present"
          output_stream: "present_landmark_tensors"
        }
        node {
          calculator: "SwitchContainer"
          input_side_packet: "ENABLE:with_attention"
          input_stream: "TENSORS:present_landmark_tensors"
          output_stream: "LANDMARKS:roi_landmarks"
          options { [mediapipe.SwitchContainerOptions.ext] {
            contained_node { calculator: "TensorsToFaceLandmarks" }
            contained_node { calculator: "TensorsToFaceLandmarksWithAttention" }
          } }
        }

        # From the ROI's coordinates back into the image's.
        node {
          calculator: "LandmarkProjectionCalculator"
          input_stream: "NORM_LANDMARKS:roi_landmarks"
          input_stream: "NORM_RECT:roi"
          output_stream: "NORM_LANDMARKS:face_landmarks"
        }
        """

    /// The landmark model's file: with attention (irises, refined lips and eyes) or without.
    static let modelLoader = HandLandmarkSubgraphs.fileLoader(
        "FaceLandmarksModelLoader", sidePacket: "WITH_ATTENTION:with_attention", choice: "ENABLE:with_attention", defaultChoice: "",
        paths: ["mediapipe/modules/face_landmark/face_landmark.tflite", "mediapipe/modules/face_landmark/face_landmark_with_attention.tflite"])

    /// A face's ROI: the box of a detection (or of the landmarks), turned so that the line
    /// between two keypoints (the eyes) is level, enlarged 1.5× and made square. Pose passes
    /// its own box calculator (`AlignmentPointsRectsCalculator`), angle (90°) and scale.
    static func rectToRoi(
        _ type: String, input: String, firstKeypoint: Int, secondKeypoint: Int, fromLandmarks: Bool,
        box: String = "DetectionsToRectsCalculator", angle: Int = 0, scale: Double = 1.5
    ) -> String {
        let toDetection =
            fromLandmarks
            ? """
            node {
              calculator: "LandmarksToDetectionCalculator"
              input_stream: "NORM_LANDMARKS:landmarks"
              output_stream: "DETECTION:detection"
            }
            """ : ""
        return """
            type: "\(type)"
            input_stream: "\(input)"
            input_stream: "IMAGE_SIZE:image_size"
            output_stream: "ROI:roi"
            \(toDetection)
            node {
              calculator: "\(box)"
              input_stream: "DETECTION:detection"
              input_stream: "IMAGE_SIZE:image_size"
              output_stream: "NORM_RECT:box"
              options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
                rotation_vector_start_keypoint_index: \(firstKeypoint)
                rotation_vector_end_keypoint_index: \(secondKeypoint)
                rotation_vector_target_angle_degrees: \(angle)
              } }
            }
            node {
              calculator: "RectTransformationCalculator"
              input_stream: "NORM_RECT:box"
              input_stream: "IMAGE_SIZE:image_size"
              output_stream: "roi"
              options { [mediapipe.RectTransformationCalculatorOptions.ext] {
                scale_x: \(scale)
                scale_y: \(scale)
                square_long: true
              } }
            }
            """
    }

    /// The plain model's 468 mesh points (x, y, z per point, in 192×192 tensor pixels).
    static let tensorsToLandmarks = """
        type: "TensorsToFaceLandmarks"
        input_stream: "TENSORS:tensors"
        output_stream: "LANDMARKS:landmarks"
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:tensors"
          output_stream: "NORM_LANDMARKS:landmarks"
          options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
            num_landmarks: 468 input_image_width: 192 input_image_height: 192
          } }
        }
        """

    /// The attention model's six tensors merged into 478 points: the mesh, with its lips and
    /// eyes replaced by the finer predictions and the two irises appended (their depth is
    /// the mean depth of the eye's contour).
    static var tensorsToLandmarksWithAttention: String {
        let parts = [("mesh", 468), ("lips", 80), ("left_eye", 71), ("right_eye", 71), ("left_iris", 5), ("right_iris", 5)]
        let split = parts.map { "  output_stream: \"\($0.0)_tensor\"" }.joined(separator: "\n")
        let ranges = parts.indices.map { "    ranges { begin: \($0) end: \($0 + 1) }" }.joined(separator: "\n")
        let decode = parts.map { name, count in
            """
            node {
              calculator: "TensorsToLandmarksCalculator"
              input_stream: "TENSORS:\(name)_tensor"
              output_stream: "NORM_LANDMARKS:\(name)_landmarks"
              options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
                num_landmarks: \(count) input_image_width: 192 input_image_height: 192
              } }
            }
            """
        }.joined(separator: "\n")
        let inputs = parts.enumerated().map { "  input_stream: \"LANDMARKS:\($0.offset):\($0.element.0)_landmarks\"" }
            .joined(separator: "\n")
        func list(_ v: [Int]) -> String { "[" + v.map(String.init).joined(separator: ", ") + "]" }
        return """
            type: "TensorsToFaceLandmarksWithAttention"
            input_stream: "TENSORS:tensors"
            output_stream: "LANDMARKS:landmarks"
            node {
              calculator: "SplitTensorVectorCalculator"
              input_stream: "tensors"
            \(split)
              options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            \(ranges)
              } }
            }
            \(decode)
            node {
              calculator: "LandmarksRefinementCalculator"
            \(inputs)
              output_stream: "REFINED_LANDMARKS:landmarks"
              options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
                refinement { indexes_mapping: \(list(Array(0..<468))) z_refinement { copy {} } }
                refinement { indexes_mapping: \(list(lips)) z_refinement { none {} } }
                refinement { indexes_mapping: \(list(leftEye)) z_refinement { none {} } }
                refinement { indexes_mapping: \(list(rightEye)) z_refinement { none {} } }
                refinement {
                  indexes_mapping: \(list(Array(468..<473)))
                  z_refinement { assign_average { indexes_for_average: \(list(Array(leftEye.prefix(16)))) } }
                }
                refinement {
                  indexes_mapping: \(list(Array(473..<478)))
                  z_refinement { assign_average { indexes_for_average: \(list(Array(rightEye.prefix(16)))) } }
                }
              } }
            }
            """
    }

    /// Mesh vertex refined by each of the lips' 80 outputs, in the model's order.
    static let lips: [Int] = [
        61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 185, 40, 39, 37, 0,
        267, 269, 270, 409, 78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 191,
        80, 81, 82, 13, 312, 311, 310, 415, 76, 77, 90, 180, 85, 16, 315, 404,
        320, 307, 306, 184, 74, 73, 72, 11, 302, 303, 304, 408, 62, 96, 89, 179,
        86, 15, 316, 403, 319, 325, 292, 183, 42, 41, 38, 12, 268, 271, 272, 407,
    ]

    /// Mesh vertex refined by each of the left eye's 71 outputs (its contour first, then the eyebrow).
    static let leftEye: [Int] = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173,
        130, 25, 110, 24, 23, 22, 26, 112, 243, 247, 30, 29, 27, 28, 56, 190,
        226, 31, 228, 229, 230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221, 189,
        35, 124, 46, 53, 52, 65, 143, 111, 117, 118, 119, 120, 121, 128, 245, 156,
        70, 63, 105, 66, 107, 55, 193,
    ]

    /// Mesh vertex refined by each of the right eye's 71 outputs, mirroring `leftEye`.
    static let rightEye: [Int] = [
        263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398,
        359, 255, 339, 254, 253, 252, 256, 341, 463, 467, 260, 259, 257, 258, 286, 414,
        446, 261, 448, 449, 450, 451, 452, 453, 464, 342, 445, 444, 443, 442, 441, 413,
        265, 353, 276, 283, 282, 295, 372, 340, 346, 347, 348, 349, 350, 357, 465, 383,
        300, 293, 334, 296, 336, 285, 417,
    ]
}
